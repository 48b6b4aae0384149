package org.ingestquarantine.ingest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.ingestquarantine.db.SqlTime;

/**
 * Closes a document's open quarantine record as repaired once the document is indexed: the ONE rule both the
 * live index write ({@link DocumentIndex#index(IndexedDocument, Long)}) and the drain ({@code operator.Drain})
 * close a record by, so that the two never tell "the code or the bytes" apart differently (DESIGN §6).
 *
 * <p>The rule, in one SQL statement on the record's row under its lock:
 * <ul>
 *   <li>{@code repaired_content_changed} when the record's source version (etag; content sha256 for folders) is
 *       known and differs from the indexed document's, or the record's payload sha256 is known and differs from
 *       the document's content sha256 (when the document has one);</li>
 *   <li>else {@code repaired_parser_fixed}. A value the record does not hold (its failure came before the fetch:
 *       source version and payload NULL) is no evidence that the bytes changed, so it is not a difference;</li>
 *   <li>when the record's parser version is the document's too, nothing the record holds differs (a transient
 *       cause went away, or the failure was unrelated to the bytes and the code): still
 *       {@code repaired_parser_fixed} ("not the bytes"), with reason code {@value #NO_CHANGE_SEEN} in place of
 *       the failure's reason (which stays in the attempt history); otherwise the reason code is kept.</li>
 * </ul>
 * Only an {@code open} record is closed; the close appends no attempt. Stateless; thread-safe.
 */
public final class RepairClose {

    /**
     * Reason code of a quarantine record closed although neither its source version, its bytes nor its parser
     * version differ from the indexed document's.
     */
    public static final String NO_CHANGE_SEEN = "no_change_seen";

    /**
     * Parameters: source version, content sha256, parser version, source, doc_id, closed_at. Returns the record's
     * dlq_id, disposition and reason code; no row when no record was open.
     */
    private static final String CLOSE = """
            WITH r AS (
                SELECT dlq_id,
                    (source_version IS NOT NULL AND source_version <> CAST(? AS text))
                        OR (payload_sha256 IS NOT NULL AND CAST(payload_sha256 AS text)
                            <> COALESCE(CAST(? AS text), CAST(payload_sha256 AS text))) AS content_changed,
                    parser_version IS DISTINCT FROM CAST(? AS text) AS parser_changed
                FROM quarantine WHERE source = ? AND doc_id = ? AND disposition = 'open'
                FOR UPDATE
            )
            UPDATE quarantine q SET
                disposition = CASE WHEN r.content_changed THEN 'repaired_content_changed'
                                   ELSE 'repaired_parser_fixed' END,
                reason_code = CASE WHEN r.content_changed OR r.parser_changed THEN q.reason_code
                                   ELSE '%s' END,
                closed_at = ?
            FROM r WHERE q.dlq_id = r.dlq_id
            RETURNING q.dlq_id, q.disposition, q.reason_code
            """.formatted(NO_CHANGE_SEEN);

    private RepairClose() {
    }

    /**
     * What a close did.
     *
     * @param dlqId the record's dlq_id
     * @param disposition its disposition now, the database code: {@code repaired_content_changed} or
     *     {@code repaired_parser_fixed}
     * @param reasonCode its reason code now: the failure's, {@value #NO_CHANGE_SEEN}, or null if it had none
     */
    public record Closed(String dlqId, String disposition, String reasonCode) {
    }

    /**
     * Closes the document's open quarantine record by the rule above, in the caller's transaction (one
     * statement; the caller commits or rolls back, normally with the document's index write).
     *
     * @param c a connection, auto-commit off to share the index write's transaction
     * @param indexed the document just indexed: its source, doc_id, source version, content sha256 (may be null:
     *     then the payload is not compared) and parser version are compared with the record's
     * @param closedAt the record's {@code closed_at}, microsecond precision
     * @return the close, or empty when the document had no open record (nothing written)
     * @throws SQLException if the database fails; the caller rolls back
     */
    public static Optional<Closed> close(Connection c, IndexedDocument indexed, Instant closedAt) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(CLOSE)) {
            int i = 1;
            s.setString(i++, indexed.sourceVersion());
            s.setString(i++, indexed.contentSha256());
            s.setString(i++, indexed.parserVersion());
            s.setString(i++, indexed.source());
            s.setString(i++, indexed.docId());
            SqlTime.set(s, i, closedAt);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new Closed(rs.getString(1), rs.getString(2), rs.getString(3)))
                        : Optional.empty();
            }
        }
    }
}
