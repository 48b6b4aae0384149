package org.ingestquarantine.delivery;

import java.sql.SQLException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.SqlFailure;

/**
 * The documents a route skipped by policy (table {@code skipped_documents}, V21): one statement closes the
 * delivery's attempt as {@code skipped_by_policy} and records which document was skipped, at which version and
 * bytes, and why, so that coverage and a later run can see it. The reason is a route author's short label
 * ({@value #REASON_FORM}), never document text.
 */
public final class PolicySkips {

    /** The form of a reason: a lower-case label of at most 40 characters (the table's CHECK says the same). */
    public static final String REASON_FORM = "[a-z][a-z0-9_.-]{0,39}";
    private static final Pattern REASON = Pattern.compile(REASON_FORM);

    private final Jdbc jdbc;
    private final Clock clock;
    private final AttemptJournal journal;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of the skip's time
     * @param journal the journal whose attempt the statement closes (its unwritten stage goes with the close)
     */
    public PolicySkips(DataSource dataSource, Clock clock, AttemptJournal journal) {
        this.jdbc = new Jdbc(dataSource);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.journal = Objects.requireNonNull(journal, "journal");
    }

    /**
     * One skip by policy.
     *
     * @param source the document's source
     * @param docId its id
     * @param sourceVersion the version it was skipped at, or null if not fetched
     * @param sha256 the digest of the bytes it was skipped at, or null if not fetched
     * @param reason why, in {@value #REASON_FORM}
     */
    public record Skip(String source, String docId, String sourceVersion, String sha256, String reason) {

        /** @throws IllegalArgumentException when the reason is not a short label */
        public Skip {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(docId, "docId");
            if (reason == null || !REASON.matcher(reason).matches()) {
                throw new IllegalArgumentException("a skip's reason is a short label matching " + REASON_FORM
                        + " (e.g. 'over-max-pages'), never document text; fix the route's outcomes.skipped call");
            }
        }
    }

    /**
     * Closes the attempt and records the skip, in one statement (one commit, before the acknowledgement).
     *
     * @param attemptId the delivery's open attempt
     * @param skip what was skipped and why
     * @throws JournalWriteException if the database fails; nothing was written then
     * @throws java.util.NoSuchElementException if there is no such attempt
     */
    public void record(long attemptId, Skip skip) {
        String sql = """
                WITH closed AS (
                    UPDATE attempt_journal SET outcome = 'skipped_by_policy', closed_at = ?,
                        stage = coalesce(?, stage), stage_at = coalesce(?, stage_at)
                    WHERE attempt_id = ? RETURNING attempt_id, closed_at
                )
                INSERT INTO skipped_documents (source, doc_id, source_version, payload_sha256, reason, attempt_id,
                    skipped_at)
                SELECT ?, ?, ?, ?, ?, attempt_id, closed_at FROM closed
                ON CONFLICT (source, doc_id) DO UPDATE SET source_version = excluded.source_version,
                    payload_sha256 = excluded.payload_sha256, reason = excluded.reason,
                    attempt_id = excluded.attempt_id, skipped_at = excluded.skipped_at
                """;
        java.time.Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        String stage = journal.unwrittenStage(attemptId).orElse(null);
        try {
            if (jdbc.update(sql, now, stage, stage == null ? null : now, attemptId, skip.source(), skip.docId(),
                    skip.sourceVersion(), skip.sha256(), skip.reason()) == 0) {
                throw new java.util.NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (SQLException e) {
            throw new JournalWriteException("the skip of attempt " + attemptId + " was not recorded ("
                    + SqlFailure.describe(e) + "); the message is not acknowledged, pause consumption until"
                    + " PostgreSQL answers again", e);
        }
        journal.closedByOutcome(attemptId);
    }

    /**
     * @param source a source
     * @return its documents skipped by policy: doc_id → the reason of its latest skip
     * @throws JournalWriteException if the database fails
     */
    public java.util.Map<String, String> reasons(String source) {
        java.util.Map<String, String> reasons = new java.util.HashMap<>();
        try {
            jdbc.query("SELECT doc_id, reason FROM skipped_documents WHERE source = ?",
                    rs -> reasons.put(rs.getString(1), rs.getString(2)), source);
        } catch (SQLException e) {
            throw new JournalWriteException("the skipped documents of a source could not be read ("
                    + SqlFailure.describe(e) + ")", e);
        }
        return reasons;
    }
}
