package org.ingestquarantine.delivery;

import java.sql.SQLException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.ingestquarantine.db.SqlFailure;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

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

    private static final String RECORD = SpringSql.load("policy-skip.sql");

    private final NamedParameterJdbcTemplate jdbc;
    private final Clock clock;
    private final AttemptJournal journal;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of the skip's time
     * @param journal the journal whose attempt the statement closes (its unwritten stage goes with the close)
     */
    public PolicySkips(DataSource dataSource, Clock clock, AttemptJournal journal) {
        this.jdbc = new NamedParameterJdbcTemplate(SpringSql.template(dataSource));
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
        java.time.Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        String stage = journal.unwrittenStage(attemptId).orElse(null);
        try {
            if (jdbc.update(RECORD, SpringSql.params("closedAt", now, "stage", stage, "stageAt", stage == null ? null : now,
                    "attemptId", attemptId, "source", skip.source(), "docId", skip.docId(),
                    "sourceVersion", skip.sourceVersion(), "sha256", skip.sha256(), "reason", skip.reason())) == 0) {
                throw new java.util.NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (DataAccessException e) {
            SQLException cause = SpringSql.sqlException(e);
            throw new JournalWriteException("the skip of attempt " + attemptId + " was not recorded ("
                    + SqlFailure.describe(cause) + "); the message is not acknowledged, pause consumption until"
                    + " PostgreSQL answers again", cause);
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
            jdbc.getJdbcOperations().query("SELECT doc_id, reason FROM skipped_documents WHERE source = ?",
                    (RowCallbackHandler) rs -> reasons.put(rs.getString(1), rs.getString(2)), SpringSql.args(source));
        } catch (DataAccessException e) {
            SQLException cause = SpringSql.sqlException(e);
            throw new JournalWriteException("the skipped documents of a source could not be read ("
                    + SqlFailure.describe(cause) + ")", cause);
        }
        return reasons;
    }
}
