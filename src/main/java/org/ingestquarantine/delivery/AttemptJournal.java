package org.ingestquarantine.delivery;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.ingest.IndexedVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class AttemptJournal {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptJournal.class);

    private final Jdbc jdbc;
    private final Clock clock;
    private final AttemptLease lease;
    private final OpenCommit openCommit;
    /** Attempts of this process whose lease the heartbeat renews: open ones, and closes not yet written. */
    private final Set<Long> live = ConcurrentHashMap.newKeySet();
    /** The stage each live attempt of this process last entered, not yet written: the next beat writes it. */
    private final Map<Long, StageMark> marks = new ConcurrentHashMap<>();
    /** Closes not yet written because the database was unreachable, by attempt id. */
    private final Map<Long, UnwrittenClose> unwritten = new ConcurrentHashMap<>();

    private record UnwrittenClose(AttemptOutcome outcome, Instant closedAt, String stage) {
    }

    /**
     * The journal stage of an attempt closed as released because its failure's quarantine record could not be
     * committed ({@link #closeRecordNotWritten}: the store unreachable). Such an attempt decided its message's
     * outcome but could not record it, so the next delivery is the same delivery tried again: where the journal is
     * the delivery counter (Kafka, RabbitMQ: {@link #admit} with no count, {@link #attempts}) it is not counted as
     * one. No route step can take the name (a step id is a stage): it is not an identifier a route would give.
     */
    public static final String RECORD_NOT_WRITTEN_STAGE = "record_not_written";

    /** SQL: the journal row is a delivery the journal counts (not one released as {@value #RECORD_NOT_WRITTEN_STAGE}). */
    private static final String COUNTED_DELIVERY = "(outcome IS DISTINCT FROM 'released' OR stage IS DISTINCT FROM '"
            + RECORD_NOT_WRITTEN_STAGE + "')";

    private record StageMark(String stage, Instant at) {
    }

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
        this.jdbc = new Jdbc(dataSource);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.lease = Objects.requireNonNull(lease, "lease");
        this.openCommit = Objects.requireNonNull(openCommit, "openCommit");
    }

    /**
     * @return the CTE that relaxes the statement's own (autocommit) transaction when the open commits
     *     asynchronously, {@code set_config(..., true)} being {@code SET LOCAL}: it ends with that transaction,
     *     whose commit is the one it relaxes; nothing otherwise. Its column {@code relaxed.v} must be selected
     *     where it is always evaluated
     */
    private String relaxedOpen() {
        return openCommit == OpenCommit.ASYNCHRONOUS
                ? "relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS v), "
                : "relaxed AS (SELECT current_setting('synchronous_commit') AS v), ";
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
        Objects.requireNonNull(deliveryKey, "deliveryKey");
        if (deliveryCount < 1) {
            throw new IllegalArgumentException("deliveryCount starts at 1, was " + deliveryCount);
        }
        String sql = "WITH " + relaxedOpen() + "opened AS (INSERT INTO attempt_journal (delivery_key, source, doc_id,"
                + " delivery_count, started_at, owner, lease_until) VALUES (?, ?, ?, ?, ?, ?,"
                + " clock_timestamp() + ? * interval '1 millisecond') RETURNING attempt_id)"
                + " SELECT attempt_id FROM opened, relaxed WHERE relaxed.v IS NOT NULL";
        try {
            long id = jdbc.queryFirst(sql, rs -> rs.getLong(1), deliveryKey, source, docId, deliveryCount, now(),
                    lease.owner(), lease.duration().toMillis()).orElseThrow();
            if (!lease.duration().isZero()) {
                live.add(id);
            }
            return id;
        } catch (SQLException e) {
            throw failure("attempt for delivery " + deliveryKey + " was not journalled", e);
        }
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
        Objects.requireNonNull(deliveryKey, "deliveryKey");
        if (deliveryCount != null && deliveryCount < 1) {
            throw new IllegalArgumentException("deliveryCount starts at 1, was " + deliveryCount);
        }
        writeUnwrittenCloses();
        // n: the count given, or (Kafka, RabbitMQ) the attempts journalled so far + 1, read before this one is opened,
        // less those released because their quarantine record could not be written (RECORD_NOT_WRITTEN_STAGE)
        String sql = "WITH " + relaxedOpen() + """
                n AS (
                    SELECT coalesce(?::int, (SELECT count(*)::int + 1 FROM attempt_journal WHERE delivery_key = ?
                                             AND """ + COUNTED_DELIVERY + """
                ))
                        AS delivery_count
                ), open AS (
                    SELECT attempt_id, stage, started_at,
                           coalesce(lease_until > clock_timestamp(), false) AS live
                    FROM attempt_journal WHERE delivery_key = ? AND closed_at IS NULL
                ), settled AS (
                    SELECT EXISTS (SELECT 1 FROM attempt_journal WHERE delivery_key = ?
                                   AND outcome IN ('indexed', 'skipped', 'quarantined', 'skipped_by_policy')) AS settled
                ), opened AS (
                    INSERT INTO attempt_journal (delivery_key, source, doc_id, delivery_count, started_at, owner,
                        lease_until)
                    SELECT ?, ?, ?, n.delivery_count, ?, ?, clock_timestamp() + ? * interval '1 millisecond'
                    FROM n
                    WHERE NOT EXISTS (SELECT 1 FROM open WHERE live)
                      AND NOT (SELECT settled FROM settled)
                      AND (SELECT count(*) FROM open WHERE NOT live) < ?
                    RETURNING attempt_id
                )
                SELECT (SELECT attempt_id FROM opened) AS opened, (SELECT delivery_count FROM n) AS delivery_count,
                       (SELECT array_agg(attempt_id ORDER BY attempt_id) FROM open WHERE live) AS live,
                       (SELECT count(*) FROM open WHERE NOT live) AS deaths, d.stage, d.started_at,
                       doc.source_version, doc.parser_version, doc.chunker_version, doc.embedder_version,
                       EXISTS (SELECT 1 FROM quarantine q WHERE q.source = ? AND q.doc_id = ?
                               AND q.disposition = 'open') AS open_record,
                       (SELECT settled FROM settled) AS settled,
                       (SELECT count(*)::int FROM attempt_journal WHERE delivery_key = ?
                        AND outcome = 'pipeline_fault') AS pipeline_faults,
                       (SELECT count(*)::int FROM attempt_journal WHERE delivery_key = ?
                        AND outcome = 'storm_paused') AS storm_pauses,
                       (SELECT v FROM relaxed) AS open_commit
                FROM (SELECT 1) one
                LEFT JOIN LATERAL (
                    SELECT stage, started_at FROM open WHERE NOT live
                    ORDER BY started_at DESC, attempt_id DESC LIMIT 1) d ON true
                LEFT JOIN documents doc ON doc.source = ? AND doc.doc_id = ? AND doc.state = 'searchable'
                """;
        try {
            Admission admission = jdbc.queryFirst(sql, rs -> {
                java.sql.Array ids = rs.getArray("live");
                List<Long> liveIds = ids == null ? List.of() : List.of((Long[]) ids.getArray());
                int deaths = rs.getInt("deaths");
                long opened = rs.getLong("opened");
                Long attemptId = rs.wasNull() ? null : opened;
                String version = rs.getString("source_version");
                IndexedVersion indexed = version == null ? null : new IndexedVersion(version,
                        rs.getString("parser_version"), rs.getString("chunker_version"),
                        rs.getString("embedder_version"));
                return new Admission(new OpenAttempts(liveIds, deaths == 0 ? Deaths.NONE
                        : new Deaths(deaths, rs.getString("stage"), SqlTime.get(rs, "started_at"))), attemptId,
                        indexed, rs.getInt("delivery_count"), rs.getBoolean("open_record"), rs.getBoolean("settled"),
                        rs.getInt("pipeline_faults"), rs.getInt("storm_pauses"));
            }, deliveryCount, deliveryKey, deliveryKey, deliveryKey, deliveryKey, source, docId, now(), lease.owner(),
                    lease.duration().toMillis(), deathBudget, source, docId, deliveryKey, deliveryKey, source, docId)
                    .orElseThrow();
            if (admission.attemptId() != null && !lease.duration().isZero()) {
                live.add(admission.attemptId());
            }
            return admission;
        } catch (SQLException e) {
            throw failure("attempt for delivery " + deliveryKey + " was not journalled", e);
        }
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
        Objects.requireNonNull(stage, "stage");
        if (live.contains(attemptId)) {
            marks.put(attemptId, new StageMark(stage, now()));
            return;
        }
        // set_config(..., true) lasts until the end of the statement's own (autocommit) transaction, whose
        // commit is the one it relaxes; the CTE is referenced so that it runs
        update(attemptId, """
                WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
                UPDATE attempt_journal SET stage = ?, stage_at = ?
                WHERE attempt_id = ? AND EXISTS (SELECT 1 FROM relaxed)
                """, stage);
    }

    /**
     * @param attemptId an attempt of this process
     * @return the stage it last entered that no statement has written yet, if any
     */
    public java.util.Optional<String> unwrittenStage(long attemptId) {
        StageMark mark = marks.get(attemptId);
        return java.util.Optional.ofNullable(mark == null ? null : mark.stage());
    }

    /**
     * Forgets an attempt that the outcome's own statement closed (in the same transaction as the index write
     * or the quarantine record): no round trip. Its last stage was written by that statement.
     *
     * @param attemptId an id from {@link #admit} or {@link #open}
     */
    public void closedByOutcome(long attemptId) {
        live.remove(attemptId);
        marks.remove(attemptId);
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
        close(attemptId, outcome, null);
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
        close(attemptId, AttemptOutcome.RELEASED, RECORD_NOT_WRITTEN_STAGE);
    }

    private void close(long attemptId, AttemptOutcome outcome, String stage) {
        Instant closedAt = clock.instant().truncatedTo(ChronoUnit.MICROS);
        try {
            writeClose(attemptId, outcome, closedAt, stage);
            live.remove(attemptId);
            marks.remove(attemptId);
        } catch (NoSuchElementException e) {
            if (!live.remove(attemptId)) {
                throw e;
            }
            // this process opened it: its asynchronous open was lost with PostgreSQL's last WAL (OpenCommit)
            marks.remove(attemptId);
            LOG.warn("attempt {} closed as {} but its row is gone: its open was lost in a crash of PostgreSQL"
                    + " (delivery.journal-open-commit = asynchronous); this attempt goes uncounted", attemptId,
                    outcome.code());
        } catch (JournalWriteException e) {
            // a second close of the same attempt (the broker adapter's release) keeps the stage the first gave
            unwritten.merge(attemptId, new UnwrittenClose(outcome, closedAt, stage), (kept, again) ->
                    again.stage() == null ? new UnwrittenClose(again.outcome(), again.closedAt(), kept.stage()) : again);
            LOG.warn("attempt {} closed as {} but not written (PostgreSQL unreachable); it is written before the"
                    + " next death count", attemptId, outcome.code());
        }
    }

    /** @param stage the stage to close at, or null: the one it last entered, if no beat has written it yet */
    private void writeClose(long attemptId, AttemptOutcome outcome, Instant closedAt, String stage) {
        StageMark mark = stage != null ? new StageMark(stage, closedAt) : marks.get(attemptId);
        String sql = "UPDATE attempt_journal SET outcome = ?, closed_at = ?, stage = coalesce(?, stage),"
                + " stage_at = coalesce(?, stage_at) WHERE attempt_id = ?";
        try {
            if (jdbc.update(sql, outcome.code(), closedAt, mark == null ? null : mark.stage(),
                    mark == null ? null : mark.at(), attemptId) == 0) {
                throw new NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (SQLException e) {
            throw failure("attempt " + attemptId + " was not closed", e);
        }
    }

    /**
     * Writes the closes kept while the database was unreachable. Throws if one still cannot be written:
     * deaths are not counted before every close this process knows of is in the table.
     */
    private void writeUnwrittenCloses() {
        for (Map.Entry<Long, UnwrittenClose> e : unwritten.entrySet()) {
            try {
                writeClose(e.getKey(), e.getValue().outcome(), e.getValue().closedAt(), e.getValue().stage());
            } catch (NoSuchElementException gone) {
                // nothing left to close
            }
            unwritten.remove(e.getKey(), e.getValue());
            live.remove(e.getKey());
            marks.remove(e.getKey());
        }
    }

    /**
     * Stops renewing an attempt whose delivery has ended in this process, closed or not (a close not yet
     * written stays renewed until it is). An attempt left open this way becomes a death when its lease runs out.
     *
     * @param attemptId an id from {@link #open}
     */
    public void forget(long attemptId) {
        if (!unwritten.containsKey(attemptId)) {
            live.remove(attemptId);
            marks.remove(attemptId);
        }
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
        writeUnwrittenCloses();
        if (live.isEmpty()) {
            return 0;
        }
        Long[] ids = live.toArray(Long[]::new);
        String[] stages = new String[ids.length];
        String[] stageAts = new String[ids.length];
        Map<Long, StageMark> sent = new java.util.HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            StageMark mark = marks.get(ids[i]);
            if (mark != null) {
                stages[i] = mark.stage();
                stageAts[i] = mark.at().toString();
                sent.put(ids[i], mark);
            }
        }
        // one statement for every live attempt: the lease, and the stage each entered since the last beat. A row
        // locked right now is being closed by its outcome's statement (index write, quarantine record): skipped,
        // so the beat never waits for, nor deadlocks with, a transaction that closes an attempt
        String sql = """
                UPDATE attempt_journal a SET lease_until = clock_timestamp() + ? * interval '1 millisecond',
                    stage = coalesce(m.stage, a.stage), stage_at = coalesce(m.stage_at::timestamptz, a.stage_at)
                FROM unnest(?::bigint[], ?::text[], ?::text[]) AS m(attempt_id, stage, stage_at)
                WHERE a.attempt_id = m.attempt_id AND a.attempt_id IN (
                    SELECT attempt_id FROM attempt_journal WHERE attempt_id = ANY (?::bigint[]) AND closed_at IS NULL
                    FOR UPDATE SKIP LOCKED)
                """;
        try {
            int renewed = jdbc.update(sql, lease.duration().toMillis(), ids, stages, stageAts, ids);
            // a mark entered meanwhile stays for the next beat
            sent.forEach(marks::remove);
            return renewed;
        } catch (SQLException e) {
            throw failure("the leases of " + ids.length + " live attempt(s) were not renewed", e);
        }
    }

    /** @return attempts whose lease this process renews (open ones, and closes not yet written) */
    public int liveInThisProcess() {
        return live.size();
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

    private void update(long attemptId, String sql, String value) {
        try {
            if (jdbc.update(sql, value, now(), attemptId) == 0) {
                throw new NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (SQLException e) {
            throw failure("attempt " + attemptId + " was not updated", e);
        }
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
        writeUnwrittenCloses();
        String sql = """
                WITH open AS (
                    SELECT attempt_id, stage, started_at,
                           coalesce(lease_until > clock_timestamp(), false) AS live
                    FROM attempt_journal WHERE delivery_key = ? AND closed_at IS NULL)
                SELECT (SELECT array_agg(attempt_id ORDER BY attempt_id) FROM open WHERE live) AS live,
                       (SELECT count(*) FROM open WHERE NOT live) AS deaths, d.stage, d.started_at
                FROM (SELECT 1) one LEFT JOIN LATERAL (
                    SELECT stage, started_at FROM open WHERE NOT live
                    ORDER BY started_at DESC, attempt_id DESC LIMIT 1) d ON true
                """;
        try {
            return jdbc.queryFirst(sql, rs -> {
                java.sql.Array ids = rs.getArray("live");
                List<Long> live = ids == null ? List.of() : List.of((Long[]) ids.getArray());
                int deaths = rs.getInt("deaths");
                return new OpenAttempts(live, deaths == 0 ? Deaths.NONE
                        : new Deaths(deaths, rs.getString("stage"), SqlTime.get(rs, "started_at")));
            }, deliveryKey).orElse(OpenAttempts.NONE);
        } catch (SQLException e) {
            throw failure("open attempts of delivery " + deliveryKey + " could not be read", e);
        }
    }

    /**
     * @param attemptIds attempts, e.g. the live ones a delivery waited for
     * @return whether any of them closed with a committed outcome (indexed, skipped, quarantined or skipped by policy): the
     *     message is settled, and a further delivery of it has nothing left to do
     * @throws JournalWriteException if the database fails
     */
    public boolean settledAny(Collection<Long> attemptIds) {
        if (attemptIds.isEmpty()) {
            return false;
        }
        String sql = "SELECT count(*) FROM attempt_journal WHERE attempt_id = ANY (?)"
                + " AND outcome IN ('indexed', 'skipped', 'quarantined', 'skipped_by_policy')";
        try {
            return jdbc.queryFirst(sql, rs -> rs.getLong(1), (Object) attemptIds.toArray(Long[]::new)).orElse(0L) > 0;
        } catch (SQLException e) {
            throw failure("outcomes of attempts " + attemptIds + " could not be read", e);
        }
    }

    /**
     * @param deliveryKey broker message identity
     * @return all attempts ever started for the key, closed or not, less those released because their quarantine
     *     record could not be written ({@link #RECORD_NOT_WRITTEN_STAGE}: the next delivery is the same one tried
     *     again); 0 if none
     * @throws JournalWriteException if the database fails
     */
    public int attempts(String deliveryKey) {
        String sql = "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?"
                + " AND " + COUNTED_DELIVERY;
        try {
            return jdbc.queryFirst(sql, rs -> rs.getInt(1), deliveryKey).orElse(0);
        } catch (SQLException e) {
            throw failure("attempts of delivery " + deliveryKey + " could not be read", e);
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static JournalWriteException failure(String what, SQLException e) {
        return new JournalWriteException(what + " (" + SqlFailure.describe(e)
                + "); do not start or acknowledge the message, pause consumption until PostgreSQL answers again", e);
    }
}
