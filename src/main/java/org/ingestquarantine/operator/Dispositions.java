package org.ingestquarantine.operator;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.PayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The operator's changes to the residue: {@code dispose} (a cohort to the unindexable register),
 * {@code expire-payloads}, {@code erase} and journal pruning. No quarantine row is ever deleted; erasure
 * leaves a tombstone. Each change of the database is one transaction. Objects are deleted before the rows
 * that name them are cleared, so a failure in between leaves a row naming a missing object (reproduce reads
 * it as expired) and running the same command again finishes the job. Every method throws {@link DatabaseAccessException} when the database fails. Thread-safe.
 */
public final class Dispositions {

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final QuarantineStore store;
    private final PayloadStore payloads;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema
     * @param store the evidence records
     * @param payloads where payloads and stack traces live
     * @param clock the time of closings and the reference of ages
     */
    public Dispositions(DataSource dataSource, QuarantineStore store, PayloadStore payloads, Clock clock) {
        this.jdbc = OperatorSql.jdbc(Objects.requireNonNull(dataSource, "dataSource"));
        this.transactions = OperatorSql.transactions(dataSource);
        this.store = Objects.requireNonNull(store, "store");
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * {@link #disposeUnindexable(String, String, String, String, String)} over every source of the cohort: refused
     * when the cohort spans more than one source.
     */
    public int disposeUnindexable(String fingerprint, String parserVersion, String reasonCode, String owner) {
        return disposeUnindexable(fingerprint, parserVersion, null, reasonCode, owner);
    }

    /**
     * Moves every OPEN record of a cohort to {@code unindexable} with a reason code and an owner: as
     * {@link #disposeUnindexable(CohortSelection, String, String, Long)} of the cohort's records of every class,
     * whatever their count.
     */
    public int disposeUnindexable(String fingerprint, String parserVersion, String source, String reasonCode,
                                  String owner) {
        return disposeUnindexable(new CohortSelection(fingerprint, parserVersion, null, source, null), reasonCode,
                owner, null);
    }

    /**
     * Moves every OPEN record of a selection to {@code unindexable} with a reason code and an owner. They stay
     * in coverage's denominator, so coverage does not change. An owner is a team of one source: a cohort that
     * spans several sources is refused unless one is named, so one team is never made the owner of another's
     * records. With {@code expected}, the move is one transaction that is rolled back unless it moved exactly that
     * many records (the count a preview showed).
     *
     * @param selection the cohort's fingerprint and its filters (parser version, class, source); its limit is
     *     ignored
     * @param reasonCode why they cannot be indexed, e.g. {@code vendor_format}; not blank
     * @param owner the team that owns the decision; not blank
     * @param expected the records a preview counted, or null to move however many there are
     * @return records moved, at least 1
     * @throws BadOperatorInputException if reason or owner is blank, over {@link OperatorLabels#MAX_CHARS} characters
     *     or holds a control character, no open record matches, or no source is named and the cohort spans
     *     several (the message names them); nothing was changed
     * @throws ActionRefusedException if {@code expected} is given and the selection holds another count now;
     *     nothing was changed
     */
    public int disposeUnindexable(CohortSelection selection, String reasonCode, String owner, Long expected) {
        OperatorLabels.require(reasonCode, OperatorField.REASON);
        OperatorLabels.require(owner, OperatorField.OWNER);
        selection.check();
        java.util.SortedMap<String, Long> bySource = openBySource(selection);
        long open = bySource.values().stream().mapToLong(Long::longValue).sum();
        if (expected != null && open != expected) {
            throw ActionRefusedException.countChanged(open, expected);
        }
        if (bySource.isEmpty()) {
            throw selection.matchesNothing();
        }
        requireOneSource(selection, bySource);
        // the sources just read, so a record of another source arriving meanwhile is not disposed
        String sql = "UPDATE quarantine SET disposition = 'unindexable', closed_at = ?, reason_code = ?, owner = ?"
                + " WHERE disposition = 'open' AND error_fingerprint = ? AND source = ANY (?)"
                + (selection.parserVersion() == null ? "" : " AND parser_version = ?")
                + (selection.errorClass() == null ? "" : " AND error_class = ?");
        List<Object> args = new ArrayList<>(List.of(OperatorSql.time(now()), reasonCode.trim(), owner.trim(),
                selection.fingerprint(), bySource.keySet().toArray(new String[0])));
        if (selection.parserVersion() != null) {
            args.add(selection.parserVersion());
        }
        if (selection.errorClass() != null) {
            args.add(selection.errorClass());
        }
        try {
            return transactions.execute(tx -> {
                int moved = jdbc.update(sql, args.toArray());
                if (expected != null && moved != expected) {
                    throw ActionRefusedException.countChanged(moved, expected); // rolled back
                }
                if (moved == 0) {
                    throw selection.matchesNothing();
                }
                return moved;
            });
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("the cohort was not disposed", e);
        }
    }

    /**
     * @param selection a dispose's selection
     * @param bySource its open records per source ({@link #disposable(CohortSelection)})
     * @return {@code bySource}
     * @throws BadOperatorInputException if the selection names no source and the records are of several: the
     *     owner names one team
     */
    static java.util.SortedMap<String, Long> requireOneSource(CohortSelection selection,
                                                             java.util.SortedMap<String, Long> bySource) {
        if (selection.source() == null && bySource.size() > 1) {
            throw new BadOperatorInputException(OperatorField.SOURCE, " is required: fingerprint "
                    + RecordRef.bounded(selection.fingerprint()) + " has open records in " + bySource.size()
                    + " sources (" + String.join(", ", bySource.keySet().stream().map(RecordRef::bounded).toList())
                    + ") and the owner names one team; dispose one source's records at a time");
        }
        return bySource;
    }

    /**
     * What {@link #disposeUnindexable(String, String, String, String, String)} would move now: reads only.
     *
     * @param fingerprint the cohort's error fingerprint
     * @param parserVersion only records of this parser version, or null
     * @param source only records of this source, or null
     * @return open records per source, sorted by source; never empty
     * @throws BadOperatorInputException if no open record matches
     */
    public java.util.SortedMap<String, Long> disposable(String fingerprint, String parserVersion, String source) {
        return disposable(new CohortSelection(fingerprint, parserVersion, null, source, null));
    }

    /**
     * What {@link #disposeUnindexable(CohortSelection, String, String, Long)} would move now: reads only.
     *
     * @param selection the cohort's fingerprint and its filters; its limit is ignored
     * @return open records per source, sorted by source; never empty
     * @throws BadOperatorInputException if the selection is malformed or no open record matches
     */
    public java.util.SortedMap<String, Long> disposable(CohortSelection selection) {
        selection.check();
        java.util.SortedMap<String, Long> bySource = openBySource(selection);
        if (bySource.isEmpty()) {
            throw selection.matchesNothing();
        }
        return bySource;
    }

    /** @return the selection's open records per source, sorted by source; empty when none matches */
    private java.util.SortedMap<String, Long> openBySource(CohortSelection selection) {
        java.util.SortedMap<String, Long> bySource = new java.util.TreeMap<>();
        String sql = "SELECT source, count(*) FROM quarantine WHERE disposition = 'open' AND error_fingerprint = ?"
                + (selection.parserVersion() == null ? "" : " AND parser_version = ?")
                + (selection.errorClass() == null ? "" : " AND error_class = ?")
                + (selection.source() == null ? "" : " AND source = ?") + " GROUP BY source";
        List<Object> args = new ArrayList<>(List.of(selection.fingerprint()));
        for (String filter : new String[] {selection.parserVersion(), selection.errorClass(), selection.source()}) {
            if (filter != null) {
                args.add(filter);
            }
        }
        try {
            jdbc.query(sql, rs -> {
                bySource.put(rs.getString(1), rs.getLong(2));
            }, args.toArray());
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the cohort could not be read", e);
        }
        return bySource;
    }

    /**
     * Deletes the payload objects of records last seen before {@code now - olderThan} and clears their
     * {@code payload_uri}; rows, {@code payload_sha256} and {@code payload_bytes} stay (the evidence of what
     * was seen). An object still named by a record that is not expiring (the same bytes, content-addressed)
     * is kept. A later drain goes back to the source; {@code reproduce} says "payload expired".
     *
     * @param olderThan age of last_seen_at, positive
     * @return records whose payload expired
     * @throws BadOperatorInputException if {@code olderThan} is not positive
     * @throws IOException if an object cannot be deleted; rows whose objects were not deleted are unchanged
     */
    public int expirePayloads(Duration olderThan) throws IOException {
        requirePositive(olderThan, OperatorField.OLDER_THAN);
        Instant cutOff = now().minus(olderThan);
        List<String[]> expiring = new ArrayList<>();
        select("SELECT dlq_id, payload_uri FROM quarantine WHERE payload_uri IS NOT NULL AND last_seen_at < ?",
                cutOff, rs -> expiring.add(new String[] {rs.getString(1), rs.getString(2)}));
        Set<String> stillNamed = new LinkedHashSet<>();
        select("SELECT DISTINCT payload_uri FROM quarantine WHERE payload_uri IS NOT NULL AND last_seen_at >= ?",
                cutOff, rs -> stillNamed.add(rs.getString(1)));
        List<String> expired = new ArrayList<>();
        for (String[] e : expiring) {
            if (!stillNamed.contains(e[1])) {
                payloads.delete(e[1]);
            }
            expired.add(e[0]);
        }
        if (expired.isEmpty()) {
            return 0;
        }
        try {
            return jdbc.update("UPDATE quarantine SET payload_uri = NULL WHERE dlq_id = ANY (CAST(? AS bpchar[]))",
                    (Object) expired.toArray(new String[0]));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("expired payloads were deleted but their records not updated (they read as"
                    + " expired)", e);
        }
    }

    /**
     * Erases one document: its payload and stack trace objects, the error message text, the content-derived
     * values of its record and attempt history (payload hashes, source version and time: for a folder source the
     * version is the content's sha256), and its rows in the index ({@code chunks}, {@code documents}); the
     * quarantine row stays as a tombstone with disposition {@code erased}. A document that was indexed but has no
     * record gets a tombstone (attempts 0, see {@link QuarantineStore#tombstone}) in the transaction that removes
     * its index rows, so coverage keeps it in its denominator as it keeps any erased document. Erasure is of what
     * is held now: a later publish of the same document by its producer is a new arrival, processed as any other
     * (indexed, or, when it fails, the record re-opens with that attempt's evidence and counts as open quarantined
     * again).
     *
     * @param source connector name
     * @param docId document id
     * @return the tombstone, never null
     * @throws BadOperatorInputException if the document has neither a record nor index rows
     * @throws org.ingestquarantine.quarantine.QuarantineWriteException if an object cannot be deleted; the
     *     record is then unchanged, retry the erasure
     */
    public QuarantineRecord erase(String source, String docId) {
        requireText(source, OperatorField.SOURCE);
        requireText(docId, OperatorField.DOC_ID);
        QuarantineRecord created;
        try {
            created = transactions.execute(tx -> {
                int indexRows = jdbc.update("DELETE FROM chunks WHERE source = ? AND doc_id = ?", source, docId)
                        + jdbc.update("DELETE FROM documents WHERE source = ? AND doc_id = ?", source, docId);
                return indexRows == 0 ? null : jdbc.execute((ConnectionCallback<QuarantineRecord>) c ->
                        store.tombstone(c, source, docId, "erased").orElse(null));
            });
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("document " + source + "/" + docId + " was not erased", e);
        }
        if (created != null) {
            return created;
        }
        if (store.find(source, docId).isEmpty()) {
            // no index rows either: a tombstone is written only with index rows to remove
            throw new BadOperatorInputException("nothing to erase: " + RecordRef.bounded(source + "/" + docId)
                    + " has no quarantine record and is not in the index");
        }
        return store.close(source, docId, Disposition.ERASED, "erased", null);
    }

    /**
     * Deletes attempt-journal rows closed before {@code now - olderThan}. Open attempts (possible deaths) are
     * never pruned. The age must stay far above any redelivery window: for Kafka the journal is the delivery
     * counter, so pruning a message still being redelivered would reset its count.
     *
     * @param olderThan age of closed_at, positive
     * @return rows deleted
     * @throws BadOperatorInputException if {@code olderThan} is not positive
     */
    public int pruneJournal(Duration olderThan) {
        requirePositive(olderThan, OperatorField.OLDER_THAN);
        try {
            return jdbc.update("DELETE FROM attempt_journal WHERE closed_at IS NOT NULL AND closed_at < ?",
                    OperatorSql.time(now().minus(olderThan)));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the attempt journal was not pruned", e);
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private void select(String sql, Instant at, RowCallbackHandler reader) {
        try {
            jdbc.query(sql, reader, OperatorSql.time(at));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("payloads to expire could not be read", e);
        }
    }

    private static void requireText(String value, OperatorField field) {
        if (value == null || value.isBlank()) {
            throw new BadOperatorInputException(field, " is required and must not be blank");
        }
    }

    private static void requirePositive(Duration age, OperatorField field) {
        if (age == null || age.isZero() || age.isNegative()) {
            throw new BadOperatorInputException(field, " must be more than 0, was " + age);
        }
    }
}
