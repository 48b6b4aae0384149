package org.ingestquarantine.operator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.quarantine.PayloadNotHereException;
import org.ingestquarantine.quarantine.PayloadStore;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code fingerprints remap}: recomputes, by the running algorithm ({@link ErrorFingerprint#VERSION}), the fingerprint
 * of every OPEN record of an older version or of none (written before versioning, schema V28) from the evidence it
 * keeps ({@link FingerprintRecompute}: the stack trace in the payload store, the reason code on the row), and moves it
 * to that cohort: its {@code error_fingerprint} and {@code fingerprint_version} are written, so the summary tables
 * follow by their triggers in the same transaction. A record whose fingerprint the running version gives already
 * only gets its version written. A record whose evidence cannot be recomputed (no stack trace kept, the object
 * missing or in a store this process cannot read, a trace that does not give the stored fingerprint, ...) is left
 * exactly as it was and counted by why. Closed records and the attempt history keep the fingerprints they were
 * written with.
 *
 * <p>Records are read and written {@value #RECORDS_PER_TRANSACTION} at a time by dlq_id, each batch one
 * transaction; a record a failure, a drain or a dispose changed since it was read is not written (counted as
 * changed meanwhile). A dry run reads the same and writes nothing. Run again, a remap finds only what is left.
 * Thread-safe.
 */
public final class FingerprintRemap {

    /** Records read, recomputed and written per transaction: short enough not to hold the cohorts' locks long. */
    static final int RECORDS_PER_TRANSACTION = 500;

    /** Why not: the record keeps no fingerprint. */
    static final String NO_FINGERPRINT = "no_fingerprint";
    /** Why not: the record keeps no stack trace (written without one, or erased). */
    static final String NO_STACK_TRACE = "no_stack_trace";
    /** Why not: the record names a stack trace object that is no longer stored. */
    static final String STACK_TRACE_MISSING = "stack_trace_missing";
    /** Why not: the stack trace is in a payload store this process is not configured for. */
    static final String STACK_TRACE_NOT_HERE = "stack_trace_not_here";

    private static final String CANDIDATES = OperatorSql.load("remap-candidates.sql");
    private static final String WRITE = OperatorSql.load("remap-write.sql");

    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final PayloadStore payloads;
    /** With the pipeline's classifier, which tells whose reason a record keeps. */
    private final FingerprintRecompute recompute = new FingerprintRecompute(ErrorTaxonomy.standard());

    /**
     * @param dataSource a pool on the migrated schema
     * @param payloads where the records' stack traces are
     */
    public FingerprintRemap(DataSource dataSource, PayloadStore payloads) {
        this.jdbc = OperatorSql.named(dataSource);
        this.transactions = OperatorSql.transactions(dataSource);
        this.payloads = Objects.requireNonNull(payloads, "payloads");
    }

    /** One open record of an older version, as read, and what its evidence gave. */
    private record Candidate(String dlqId, String errorClass, String fingerprint, String newFingerprint, String left) {
    }

    /**
     * @param dryRun read and count only, write nothing
     * @return what was (or would be) done
     * @throws DatabaseAccessException if the database fails; the batches committed before stay
     * @throws IllegalStateException if a stack trace cannot be read for another reason than its absence (the store
     *     does not answer); the batches committed before stay
     */
    public RemapReport remap(boolean dryRun) {
        long selected = 0;
        long moved = 0;
        long alreadyCurrent = 0;
        long changedMeanwhile = 0;
        SortedMap<String, Long> leftBy = new TreeMap<>();
        Map<List<String>, Long> mapped = new TreeMap<>(FingerprintRemap::compareKeys);
        String after = "";
        while (true) {
            List<Candidate> batch = read(after);
            if (batch.isEmpty()) {
                break;
            }
            after = batch.get(batch.size() - 1).dlqId();
            selected += batch.size();
            List<Candidate> recomputed = new ArrayList<>();
            for (Candidate c : batch) {
                if (c.left() != null) {
                    leftBy.merge(c.left(), 1L, Long::sum);
                } else {
                    recomputed.add(c);
                }
            }
            Set<String> written = dryRun ? null : write(recomputed);
            for (Candidate c : recomputed) {
                if (written != null && !written.contains(c.dlqId())) {
                    changedMeanwhile++;
                } else if (c.newFingerprint().equals(c.fingerprint())) {
                    alreadyCurrent++;
                } else {
                    moved++;
                    mapped.merge(List.of(c.errorClass(), c.fingerprint(), c.newFingerprint()), 1L, Long::sum);
                }
            }
        }
        List<RemapReport.Mapping> mappings = new ArrayList<>();
        mapped.forEach((k, n) -> mappings.add(new RemapReport.Mapping(k.get(0), k.get(1), k.get(2), n)));
        long left = leftBy.values().stream().mapToLong(Long::longValue).sum();
        return new RemapReport(ErrorFingerprint.VERSION, dryRun, selected, moved, alreadyCurrent, left, leftBy,
                changedMeanwhile, List.copyOf(mappings));
    }

    private static int compareKeys(List<String> a, List<String> b) {
        for (int i = 0; i < a.size(); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** @return the next open records of an older version after {@code after} by dlq_id, with their recomputation */
    private List<Candidate> read(String after) {
        List<String[]> rows;
        try {
            rows = jdbc.query(CANDIDATES, new MapSqlParameterSource("version", ErrorFingerprint.VERSION)
                    .addValue("after", after).addValue("batch", RECORDS_PER_TRANSACTION), (rs, n) -> new String[] {
                            rs.getString(1).trim(), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)});
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the records to remap were not read", e, "run it again when PostgreSQL answers");
        }
        List<Candidate> candidates = new ArrayList<>(rows.size());
        for (String[] r : rows) {
            candidates.add(candidate(r[0], r[1], r[2], r[3], r[4]));
        }
        return candidates;
    }

    private Candidate candidate(String dlqId, String errorClass, String fingerprint, String reasonCode, String traceUri) {
        if (fingerprint == null) {
            return new Candidate(dlqId, errorClass, null, null, NO_FINGERPRINT);
        }
        if (traceUri == null) {
            return new Candidate(dlqId, errorClass, fingerprint, null, NO_STACK_TRACE);
        }
        String trace;
        try {
            trace = new String(payloads.get(traceUri), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return new Candidate(dlqId, errorClass, fingerprint, null, STACK_TRACE_MISSING);
        } catch (PayloadNotHereException e) {
            return new Candidate(dlqId, errorClass, fingerprint, null, STACK_TRACE_NOT_HERE);
        } catch (IOException e) {
            throw new IllegalStateException("the stack trace of record " + dlqId + " could not be read ("
                    + e.getClass().getSimpleName() + "); run it again when the payload store answers", e);
        }
        FingerprintRecompute.Outcome o = recompute.recompute(fingerprint, reasonCode, trace);
        return new Candidate(dlqId, errorClass, fingerprint, o.fingerprint(), o.notRecomputable());
    }

    /**
     * Writes the batch's recomputed fingerprints and the running version in one statement and transaction, on the
     * records still open with the fingerprint and the older version they were read with.
     *
     * @return the dlq_ids written
     */
    private Set<String> write(List<Candidate> recomputed) {
        if (recomputed.isEmpty()) {
            return Set.of();
        }
        try {
            MapSqlParameterSource args = new MapSqlParameterSource("version", ErrorFingerprint.VERSION)
                    .addValue("dlqIds", recomputed.stream().map(Candidate::dlqId).toArray(String[]::new))
                    .addValue("was", recomputed.stream().map(Candidate::fingerprint).toArray(String[]::new))
                    .addValue("fingerprints", recomputed.stream().map(Candidate::newFingerprint).toArray(String[]::new));
            return transactions.execute(tx -> {
                Set<String> written = new HashSet<>();
                jdbc.query(WRITE, args, rs -> {
                    written.add(rs.getString(1).trim());
                });
                return written;
            });
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("fingerprints were not remapped", e,
                    "the batches before stay remapped, run it again when PostgreSQL answers");
        }
    }
}
