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
 * <p>The rule, in one SQL statement on the record's row under its lock, by the strongest evidence held on both
 * sides ({@link Evidence}):
 * <ul>
 *   <li>{@link Evidence#SHA256} when the record holds its payload's sha256 and the indexed document its content's:
 *       {@code repaired_content_changed} if they differ, else {@code repaired_parser_fixed}, whatever the source
 *       versions say (a source re-serving the same bytes under a fresh ETag has not changed them: the ETag is the
 *       source's opinion, the digest the fact);</li>
 *   <li>else {@link Evidence#VERSION} when both hold a source version (etag; content sha256 for folders):
 *       changed if they differ;</li>
 *   <li>else {@link Evidence#NONE}: {@code repaired_parser_fixed}. A value the record does not hold (its failure
 *       came before the fetch: source version and payload NULL) is no evidence that the bytes changed;</li>
 *   <li>when the bytes did not change and the record's parser version is the document's too, nothing the record
 *       holds differs (a transient cause went away, or the failure was unrelated to the bytes and the code): still
 *       {@code repaired_parser_fixed} ("not the bytes"), with reason code {@value #NO_CHANGE_SEEN} in place of the
 *       failure's reason (which stays in the attempt history); otherwise the reason code is kept.</li>
 * </ul>
 * The evidence that decided is written to the record's {@code verdict_by} (schema V22) and returned. Only an
 * {@code open} record is closed; the close appends no attempt. Stateless; thread-safe.
 */
public final class RepairClose {

    /**
     * Reason code of a quarantine record closed although neither its source version, its bytes nor its parser
     * version differ from the indexed document's.
     */
    public static final String NO_CHANGE_SEEN = "no_change_seen";

    /** What decided a verdict, strongest first; {@link #code()} is the value of {@code verdict_by}. */
    public enum Evidence {
        /** The record's payload sha256 against the indexed content's. */
        SHA256("sha256"),
        /** The record's source version against the indexed document's (no digest on both sides). */
        VERSION("version"),
        /** Neither is held on both sides: no evidence that the bytes changed. */
        NONE("none");

        private final String code;

        Evidence(String code) {
            this.code = code;
        }

        /** @return the database and report code: {@code sha256}, {@code version} or {@code none} */
        public String code() {
            return code;
        }

        /** @return the evidence of a code; @throws IllegalArgumentException for another */
        public static Evidence fromCode(String code) {
            for (Evidence e : values()) {
                if (e.code.equals(code)) {
                    return e;
                }
            }
            throw new IllegalArgumentException("unknown verdict evidence '" + code + "'");
        }
    }

    /**
     * Parameters: content sha256, source version, parser version, source, doc_id, closed_at. Returns the record's
     * dlq_id, disposition, reason code and verdict_by; no row when no record was open.
     */
    private static final String CLOSE = """
            WITH given AS (
                SELECT lower(CAST(? AS text)) AS sha256, CAST(? AS text) AS version, CAST(? AS text) AS parser
            ), r AS (
                SELECT q.dlq_id,
                    CASE WHEN q.payload_sha256 IS NOT NULL AND g.sha256 IS NOT NULL THEN 'sha256'
                         WHEN q.source_version IS NOT NULL AND g.version IS NOT NULL THEN 'version'
                         ELSE 'none' END AS verdict_by,
                    lower(trim(CAST(q.payload_sha256 AS text))) AS held_sha256, q.source_version AS held_version,
                    q.parser_version IS DISTINCT FROM g.parser AS parser_changed, g.sha256, g.version
                FROM quarantine q, given g
                WHERE q.source = ? AND q.doc_id = ? AND q.disposition = 'open'
                FOR UPDATE OF q
            ), v AS (
                SELECT dlq_id, verdict_by, parser_changed,
                    CASE verdict_by WHEN 'sha256' THEN held_sha256 <> sha256
                                    WHEN 'version' THEN held_version <> version
                                    ELSE false END AS content_changed
                FROM r
            )
            UPDATE quarantine q SET
                disposition = CASE WHEN v.content_changed THEN 'repaired_content_changed'
                                   ELSE 'repaired_parser_fixed' END,
                reason_code = CASE WHEN v.content_changed OR v.parser_changed THEN q.reason_code
                                   ELSE '%s' END,
                verdict_by = v.verdict_by,
                closed_at = ?
            FROM v WHERE q.dlq_id = v.dlq_id
            RETURNING q.dlq_id, q.disposition, q.reason_code, q.verdict_by
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
     * @param by the evidence that decided the disposition
     */
    public record Closed(String dlqId, String disposition, String reasonCode, Evidence by) {
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
            s.setString(i++, indexed.contentSha256());
            s.setString(i++, indexed.sourceVersion());
            s.setString(i++, indexed.parserVersion());
            s.setString(i++, indexed.source());
            s.setString(i++, indexed.docId());
            SqlTime.set(s, i, closedAt);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new Closed(rs.getString(1), rs.getString(2), rs.getString(3),
                        Evidence.fromCode(rs.getString(4))))
                        : Optional.empty();
            }
        }
    }
}
