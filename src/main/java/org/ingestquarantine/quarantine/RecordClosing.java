package org.ingestquarantine.quarantine;

import com.github.f4b6a3.ulid.UlidCreator;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Function;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.failure.ErrorClass;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Closes evidence records: an operator's or the drain's close with a disposition ({@link #close}), the erasure
 * that leaves a tombstone of a record, and the tombstone of a document that has none ({@link #tombstone}).
 * Thread-safe.
 */
final class RecordClosing {

    private static final String ERASE_ATTEMPTS = "UPDATE quarantine_attempt SET source_uri = NULL,"
            + " payload_sha256 = NULL, source_version = NULL WHERE dlq_id = ?";
    private static final String NAMED_BY_ANOTHER = "SELECT 1 FROM quarantine WHERE (payload_uri = ? OR"
            + " stack_trace_uri = ?) AND dlq_id <> ? LIMIT 1";
    private static final String TOMBSTONE = SpringJdbc.sql(RecordClosing.class, "tombstone.sql");

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final PayloadStore payloads;
    private final Function<String, Optional<String>> owners;
    private final Clock clock;

    /** @param jdbc a template on the pool {@code transactions} run on, so that its statements join them */
    RecordClosing(JdbcTemplate jdbc, TransactionTemplate transactions, PayloadStore payloads,
                  Function<String, Optional<String>> owners, Clock clock) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.payloads = payloads;
        this.owners = owners;
        this.clock = clock;
    }

    /**
     * As {@link QuarantineStore#close}, in one transaction.
     *
     * @return the record as committed
     * @throws NoSuchElementException if the document has no record
     * @throws DataAccessException or {@link org.springframework.transaction.TransactionException} if the
     *     database fails; nothing was committed
     */
    QuarantineRecord close(String source, String docId, Disposition disposition, String reasonCode, String owner) {
        return transactions.execute(tx -> closeInTransaction(source, docId, disposition, reasonCode, owner));
    }

    /**
     * {@link #close}'s work in its transaction. (A record repaired by an index write, the drain's or a later
     * delivery's, is closed by {@code ingest.RepairClose} in that write's transaction instead.)
     *
     * @return the record as it will be once the transaction commits
     */
    private QuarantineRecord closeInTransaction(String source, String docId, Disposition disposition,
                                                String reasonCode, String owner) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        boolean erase = disposition == Disposition.ERASED;
        String sql = "UPDATE quarantine SET disposition = ?, closed_at = ?, owner = COALESCE(owner, ?),"
                + " reason_code = COALESCE(?, reason_code)"
                + (erase ? ", source_uri = NULL, payload_uri = NULL, payload_sha256 = NULL, payload_bytes = NULL,"
                        + " stack_trace_uri = NULL, error_message = NULL, source_version = NULL,"
                        + " source_updated_at = NULL" : "")
                + " WHERE source = ? AND doc_id = ?";
        QuarantineRecord before = find("SELECT * FROM quarantine WHERE source = ? AND doc_id = ? FOR UPDATE",
                source, docId).orElseThrow(() -> new NoSuchElementException(
                        "no quarantine record for " + source + "/" + docId));
        jdbc.update(sql, disposition.code(), SpringJdbc.time(now), owner, reasonCode, source, docId);
        if (erase) {
            jdbc.update(ERASE_ATTEMPTS, before.dlqId());
            deleteObjectNamedByNoOther(before.payloadUri(), before.dlqId());
            deleteObjectNamedByNoOther(before.stackTraceUri(), before.dlqId());
        }
        return find("SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", source, docId).orElseThrow();
    }

    /**
     * As {@link QuarantineStore#tombstone}, on the caller's connection.
     *
     * @param on a template on the caller's connection
     * @throws DataAccessException if the database fails; the caller rolls back
     */
    Optional<QuarantineRecord> tombstone(JdbcTemplate on, String source, String docId, String reasonCode) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        String owner = EvidenceRows.text(owners.apply(source).orElse(null));
        Object at = SpringJdbc.time(now);
        return on.query(TOMBSTONE, (rs, n) -> new QuarantineRecord(rs), UlidCreator.getMonotonicUlid().toString(),
                EvidenceRows.text(source), EvidenceRows.text(docId), ErrorClass.UNCLASSIFIED.code(), at, at,
                Disposition.ERASED.code(), reasonCode, owner, at).stream().findFirst();
    }

    /**
     * Objects are content-addressed: another record that saw the same bytes names the same object, and erasing
     * this record must not take that record's evidence. Such an object is kept (it holds no byte that only the
     * erased record named).
     */
    private void deleteObjectNamedByNoOther(String uri, String dlqId) {
        if (uri == null || !jdbc.query(NAMED_BY_ANOTHER, (rs, n) -> 1, uri, uri, dlqId).isEmpty()) {
            return;
        }
        try {
            payloads.delete(uri);
        } catch (IOException e) {
            throw new QuarantineWriteException("object " + uri + " could not be erased ("
                    + e.getClass().getSimpleName() + "); the record was not changed, retry the erasure", e);
        }
    }

    private Optional<QuarantineRecord> find(String sql, String source, String docId) {
        return jdbc.query(sql, (rs, n) -> new QuarantineRecord(rs), source, docId).stream().findFirst();
    }
}
