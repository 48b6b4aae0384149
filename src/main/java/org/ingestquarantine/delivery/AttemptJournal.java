package org.ingestquarantine.delivery;

import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.ingestquarantine.ingest.IndexedVersion;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The attempt journal (DESIGN §2), table {@code attempt_journal}: a row is written when an attempt at a
 * message starts and closed with its outcome when it ends. The resource_fatal guard counts deaths, not
 * deliveries; for Kafka, which has no delivery count, the journal is the counter ({@link #admit} with no count,
 * or {@link #attempts(String)}). Each call
 * commits on its own. Thread-safe.
 *
 * <p><b>What a message costs</b> (issue 12): {@link #admit} reads the deaths and live attempts of the delivery
 * and opens the new attempt in ONE statement (one round trip, one commit, before any work); stage marks stay in
 * memory and travel with the heartbeat ({@link #stage}); an indexed or quarantined attempt is closed by the
 * outcome's own statement (the index write of {@code ingest.DocumentIndex}, the quarantine record of
 * {@code sql/quarantine-record.sql}), in its transaction, and {@link #closedByOutcome} only forgets it here.
 * So an indexed message commits twice: its open and its outcome. The open commits asynchronously by default
 * ({@link OpenCommit}, issue 26: {@code synchronous_commit = off} for its own transaction), so only the outcome
 * waits for a WAL flush; every close commits synchronously.
 *
 * <p><b>Leases.</b> Each attempt names its owner (this process, {@link AttemptLease#owner()}) and carries
 * {@code lease_until}, set to the database's clock + the lease when it opens and moved forward by
 * {@link #renewLeases()} (one statement for all of this process's live attempts, called by
 * {@link AttemptHeartbeat}). An open attempt is a <em>death</em> only once its lease has run out: its owner
 * stopped beating, so it died. An open attempt whose lease still runs is <em>live</em>: another process
 * (or another consumer thread) is working on the message right now ({@link #openAttempts}). With
 * {@link AttemptLease#NONE} every open attempt is a death at once, as before leases.
 *
 * <p>A close that cannot be written because the database is unreachable is kept in memory and written
 * before the next {@link #deaths(String)} read, so an attempt cut short by an outage (its message released,
 * or its outcome already committed) is not taken for a death. Only if this process ends before the
 * database answers again does such an attempt stay open, and then it is counted as one.
 *
 * <p>This class composes the journal's parts, one job each: {@link AttemptAdmission} (the opens),
 * {@link AttemptClosing} (the closes, kept ones, and what the journal counts as a delivery), {@link AttemptLeases}
 * (leases and stage marks), {@link JournalReads} (open attempts, settled outcomes, deliveries so far), sharing
 * {@link LiveAttempts} (this process's attempts in memory). Pruning is the operator's
 * ({@code operator.Dispositions#pruneJournal}).
 */
public final class AttemptJournal {

    /**
     * The journal stage of an attempt closed as released because its failure's quarantine record could not be
     * committed ({@link #closeRecordNotWritten}: the store unreachable). Such an attempt decided its message's
     * outcome but could not record it, so the next delivery is the same delivery tried again: where the journal is
     * the delivery counter (Kafka, RabbitMQ: {@link #admit} with no count, {@link #attempts}) it is not counted as
     * one. No route step can take the name (a step id is a stage): it is not an identifier a route would give.
     */
    public static final String RECORD_NOT_WRITTEN_STAGE = "record_not_written";

    private final AttemptLease lease;
    private final AttemptAdmission admission;
    private final AttemptClosing closing;
    private final AttemptLeases leases;
    private final JournalReads reads;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of started, stage and closed times
     */
    public AttemptJournal(DataSource dataSource, Clock clock) {
        this(dataSource, clock, AttemptLease.NONE);
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of started, stage and closed times (leases use the database's clock)
     * @param lease the owner written on every attempt this journal opens, and its lease
     */
    public AttemptJournal(DataSource dataSource, Clock clock, AttemptLease lease) {
        this(dataSource, clock, lease, OpenCommit.ASYNCHRONOUS);
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of started, stage and closed times (leases use the database's clock)
     * @param lease the owner written on every attempt this journal opens, and its lease
     * @param openCommit how an open commits (the shorter constructors: {@link OpenCommit#ASYNCHRONOUS})
     */
    public AttemptJournal(DataSource dataSource, Clock clock, AttemptLease lease, OpenCommit openCommit) {
        NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(SpringSql.template(dataSource));
        LiveAttempts attempts = new LiveAttempts(clock);
        this.lease = Objects.requireNonNull(lease, "lease");
        this.closing = new AttemptClosing(jdbc.getJdbcTemplate(), attempts);
        this.admission = AttemptAdmission.of(jdbc, lease, openCommit, attempts, closing);
        this.leases = new AttemptLeases(jdbc, lease, attempts, closing);
        this.reads = new JournalReads(jdbc, closing);
    }

    /** @return the owner and lease of the attempts this journal opens */
    public AttemptLease lease() {
        return lease;
    }

    /**
     * Records that an attempt starts. Call {@link #deaths(String)} BEFORE this, so the count excludes the
     * attempt being opened.
     *
     * @param deliveryKey broker message identity (SQS message id, RabbitMQ message id, Kafka topic/partition/offset)
     * @param source connector name, may be null if not yet known
     * @param docId document id, may be null if not yet known
     * @param deliveryCount the broker's delivery count (1 = first); for Kafka pass {@code attempts(key) + 1}
     * @return the attempt's id, for {@link #stage} and {@link #close}
     * @throws IllegalArgumentException if {@code deliveryCount} is below 1
     * @throws JournalWriteException if the database fails
     */
    public long open(String deliveryKey, String source, String docId, int deliveryCount) {
        return admission.open(deliveryKey, source, docId, deliveryCount);
    }

    /**
     * What {@link #admit} found and did.
     *
     * @param open the attempts of the delivery that were open before (live ones, and deaths)
     * @param attemptId the attempt opened, or null if none was: another attempt is live, or the deaths reached
     *     the budget
     * @param indexed the document as the index holds it now (searchable), or null if it holds no searchable
     *     version of it
     * @param deliveryCount the delivery count of this delivery: the one given, or the one the journal gave
     * @param openRecord whether the document had an OPEN quarantine record then (its index write will close it,
     *     and can go straight to the transaction that does: {@code ingest.DocumentIndex})
     * @param settled whether an earlier attempt at this delivery closed with a committed outcome (indexed, skipped,
     *     quarantined or skipped by policy): the message is settled and only its acknowledgement was lost (a Kafka offset commit that
     *     failed while Kafka was down, an SQS delete that did not arrive); no attempt was opened
     * @param pipelineFaults earlier attempts at this delivery closed as {@link AttemptOutcome#PIPELINE_FAULT}: a
     *     fault of our own route released them, and no budget counts them
     * @param stormPauses earlier attempts at this delivery closed as {@link AttemptOutcome#STORM_PAUSED}: handed back
     *     unworked while its source was paused, and no budget counts them either
     */
    public record Admission(OpenAttempts open, Long attemptId, IndexedVersion indexed, int deliveryCount,
                            boolean openRecord, boolean settled, int pipelineFaults, int stormPauses) {
    }

    /**
     * Reads the open attempts of a delivery and, unless one of them is live, the deaths reached
     * {@code deathBudget} or an earlier attempt settled the message ({@link Admission#settled}), opens a new
     * attempt, in ONE statement (one round trip, one commit). The same
     * statement reads the versions the index holds for the document, so that an unchanged document is known
     * after its fetch without another round trip (the index write checks again, under its row lock), and whether
     * the document has an open quarantine record (a read of the unique index on (source, doc_id)).
     * Closes kept during an outage are written first.
     *
     * @param deliveryKey broker message identity
     * @param source connector name, may be null if not yet known
     * @param docId document id, may be null if not yet known
     * @param deliveryCount the broker's delivery count (1 = first); null where the broker keeps none (Kafka): then
     *     the same statement counts it from the journal, {@link #attempts(String)} {@code + 1}, with no extra
     *     round trip
     * @param deathBudget deaths at which no attempt is opened any more (resource_fatal's {@code retries + 1})
     * @return the open attempts before, the new attempt's id if one was opened, the indexed version, the
     *     delivery count, whether the document has an open record
     * @throws IllegalArgumentException if {@code deliveryCount} is below 1
     * @throws JournalWriteException if the database fails; nothing was opened then
     */
    public Admission admit(String deliveryKey, String source, String docId, Integer deliveryCount, int deathBudget) {
        return admission.admit(deliveryKey, source, docId, deliveryCount, deathBudget);
    }

    /**
     * Records the stage an open attempt has reached (e.g. {@code fetch}, {@code parse}, {@code index}).
     *
     * <p>For an attempt this process renews (a journal with a lease), the mark stays in memory and costs no
     * round trip: the heartbeat's next beat writes it with the lease ({@link #renewLeases}, one statement for
     * all live attempts of the process), and {@link #close} writes it with the outcome. So the stage of an
     * attempt whose consumer died is known to within one heartbeat interval: an attempt killed less than one
     * beat after entering a stage is remembered at the stage before.
     *
     * <p>Without a lease (no heartbeat, {@link AttemptLease#NONE}; tools and tests), or for an attempt this
     * process does not renew, the mark is written at once, committed asynchronously ({@code
     * synchronous_commit = off} for this one statement's transaction): visible to every reader at once, it
     * survives a consumer that dies, but a crash of the PostgreSQL server itself may lose the marks of the last
     * few hundred milliseconds. The stage is only the explanation of a death; what the guarantees rest on stays
     * synchronous: the open commits before any work, the close commits before the message is acknowledged.
     *
     * @param attemptId an id from {@link #admit} or {@link #open}
     * @param stage the stage name
     * @throws java.util.NoSuchElementException if the mark is written at once and there is no such attempt
     * @throws JournalWriteException if the mark is written at once and the database fails
     */
    public void stage(long attemptId, String stage) {
        leases.stage(attemptId, stage);
    }

    /**
     * @param attemptId an attempt of this process
     * @return the stage it last entered that no statement has written yet, if any
     */
    public java.util.Optional<String> unwrittenStage(long attemptId) {
        return leases.unwrittenStage(attemptId);
    }

    /**
     * Forgets an attempt that the outcome's own statement closed (in the same transaction as the index write
     * or the quarantine record): no round trip. Its last stage was written by that statement.
     *
     * @param attemptId an id from {@link #admit} or {@link #open}
     */
    public void closedByOutcome(long attemptId) {
        leases.forgetClosed(attemptId);
    }

    /**
     * Closes an attempt with its outcome. Closing an already closed attempt overwrites its outcome. If the
     * database cannot be reached, the close is kept and written before the next {@link #deaths} read; it
     * does not throw then, because the outcome it records has already happened.
     *
     * @param attemptId an id from {@link #open}
     * @param outcome how it ended
     * @throws java.util.NoSuchElementException if there is no such attempt, unless this process opened it (then
     *     its asynchronous open was lost in a crash of PostgreSQL, {@link OpenCommit}: logged, nothing to close)
     */
    public void close(long attemptId, AttemptOutcome outcome) {
        closing.close(attemptId, outcome, null);
    }

    /**
     * Closes as released an attempt whose failure's quarantine record could not be committed (the store
     * unreachable), at stage {@value #RECORD_NOT_WRITTEN_STAGE}: its message's outcome was decided but not recorded,
     * so where the journal counts deliveries the next delivery is not counted as another one ({@link #attempts}):
     * a document is not charged a delivery for the outage, and its record counts the deliveries it failed. Kept and
     * written later as {@link #close(long, AttemptOutcome)} is when the database cannot be reached.
     *
     * @param attemptId an id from {@link #admit} or {@link #open}
     * @throws java.util.NoSuchElementException if there is no such attempt
     */
    public void closeRecordNotWritten(long attemptId) {
        closing.close(attemptId, AttemptOutcome.RELEASED, RECORD_NOT_WRITTEN_STAGE);
    }

    /**
     * Stops renewing an attempt whose delivery has ended in this process, closed or not (a close not yet
     * written stays renewed until it is). An attempt left open this way becomes a death when its lease runs out.
     *
     * @param attemptId an id from {@link #open}
     */
    public void forget(long attemptId) {
        leases.forget(attemptId);
    }

    /**
     * The heartbeat: writes the closes kept during an outage, then moves the lease of every attempt this
     * process still works on to the database's clock + the lease, in ONE statement whatever their number
     * (none when there is no live attempt).
     *
     * @return attempts renewed
     * @throws JournalWriteException if the database fails (the leases then run on; a lease a little longer
     *     than a few heartbeat intervals survives a short outage)
     */
    public int renewLeases() {
        return leases.renew();
    }

    /** @return attempts whose lease this process renews (open ones, and closes not yet written) */
    public int liveInThisProcess() {
        return leases.live();
    }

    /**
     * Same as {@link #close(long, AttemptOutcome)} with a code: {@code indexed}, {@code skipped},
     * {@code released} or {@code quarantined}.
     *
     * @throws IllegalArgumentException if {@code outcome} names no {@link AttemptOutcome}
     */
    public void close(long attemptId, String outcome) {
        close(attemptId, AttemptOutcome.fromCode(outcome));
    }

    /**
     * @param deliveryKey broker message identity
     * @return attempts for the key that were started and never closed and whose lease has run out, with the
     *         last stage the most recent of them reached; {@link Deaths#NONE} if none. Closes kept during an
     *         outage are written first.
     * @throws JournalWriteException if the database fails
     */
    public Deaths deaths(String deliveryKey) {
        return openAttempts(deliveryKey).deaths();
    }

    /**
     * The open attempts of one message, in one query: the live ones (lease still running) and the deaths.
     *
     * @param live ids of open attempts whose lease still runs, oldest first; empty if none
     * @param deaths open attempts whose lease has run out
     */
    public record OpenAttempts(List<Long> live, Deaths deaths) {

        /** Nothing open. */
        public static final OpenAttempts NONE = new OpenAttempts(List.of(), Deaths.NONE);

        /** @return whether another attempt at the message is running now */
        public boolean anyLive() {
            return !live.isEmpty();
        }
    }

    /**
     * @param deliveryKey broker message identity
     * @return its open attempts, live and dead, judged by the database's clock. Closes kept during an outage
     *     are written first.
     * @throws JournalWriteException if the database fails
     */
    public OpenAttempts openAttempts(String deliveryKey) {
        return reads.openAttempts(deliveryKey);
    }

    /**
     * @param attemptIds attempts, e.g. the live ones a delivery waited for
     * @return whether any of them closed with a committed outcome (indexed, skipped, quarantined or skipped by policy): the
     *     message is settled, and a further delivery of it has nothing left to do
     * @throws JournalWriteException if the database fails
     */
    public boolean settledAny(Collection<Long> attemptIds) {
        return reads.settledAny(attemptIds);
    }

    /**
     * @param deliveryKey broker message identity
     * @return all attempts ever started for the key, closed or not, less those released because their quarantine
     *     record could not be written ({@link #RECORD_NOT_WRITTEN_STAGE}: the next delivery is the same one tried
     *     again); 0 if none
     * @throws JournalWriteException if the database fails
     */
    public int attempts(String deliveryKey) {
        return reads.attempts(deliveryKey);
    }
}
