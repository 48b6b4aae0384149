package org.ingestquarantine.ingest;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import org.ingestquarantine.db.SpringJdbc;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;

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

    /** The close, {@code repair-close.sql}: one statement on the record's row under its lock. */
    private static final String CLOSE = SpringJdbc.sql(RepairClose.class, "repair-close.sql").formatted(NO_CHANGE_SEEN);

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
        try {
            return close(SpringJdbc.on(c), indexed, closedAt);
        } catch (DataAccessException e) {
            throw SpringJdbc.cause(e);
        }
    }

    /**
     * {@link #close(Connection, IndexedDocument, Instant)} with a template, in the Spring transaction running.
     *
     * @throws DataAccessException if the database fails; the transaction rolls back
     */
    static Optional<Closed> close(JdbcTemplate jdbc, IndexedDocument indexed, Instant closedAt) {
        return jdbc.query(CLOSE, (ResultSetExtractor<Optional<Closed>>) rs -> rs.next()
                        ? Optional.of(new Closed(rs.getString(1), rs.getString(2), rs.getString(3),
                                Evidence.fromCode(rs.getString(4))))
                        : Optional.<Closed>empty(),
                SpringJdbc.text(indexed.contentSha256()), SpringJdbc.text(indexed.sourceVersion()),
                SpringJdbc.text(indexed.parserVersion()), indexed.source(), indexed.docId(), SpringJdbc.time(closedAt));
    }
}
