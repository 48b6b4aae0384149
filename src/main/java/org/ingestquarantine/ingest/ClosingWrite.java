package org.ingestquarantine.ingest;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;
import org.ingestquarantine.db.SpringJdbc;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The index write of a document that has an open quarantine record: the write, the attempt's close and the
 * record's close ({@link RepairClose}) in ONE transaction, as separate statements. Not in the index statement
 * itself: the summary triggers of {@code documents} and {@code quarantine} (V6) would each see the other's final
 * state at the end of that one statement, and the document would leave {@code source_summary.open_indexed}
 * counted -1. Logs each record it closes, under {@link DocumentIndex}'s name. Thread-safe.
 */
final class ClosingWrite {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DocumentIndex.class);

    private final IndexStatement statement;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    /** @param dataSource the pool the transaction runs on; the template's statements join it */
    ClosingWrite(IndexStatement statement, DataSource dataSource) {
        this.statement = statement;
        this.jdbc = SpringJdbc.template(dataSource);
        this.transactions = SpringJdbc.transactions(dataSource);
    }

    /**
     * @return the verdict of the write (unguarded); the record was closed if it is {@link IndexOutcome#INDEXED}
     * @throws DataAccessException or {@link TransactionException} if the database fails; nothing was committed
     */
    IndexOutcome write(IndexedDocument document, Long attemptId) {
        return transactions.execute(tx -> {
            IndexOutcome outcome = statement.run(jdbc, document, attemptId, false);
            if (outcome == IndexOutcome.INDEXED) {
                closeRecord(document);
            }
            return outcome;
        });
    }

    private void closeRecord(IndexedDocument d) {
        RepairClose.close(jdbc, d, Instant.now().truncatedTo(ChronoUnit.MICROS)).ifPresent(closed ->
                LOG.info("quarantine record {} closed as {}{} by={}: a later delivery of its document was indexed",
                        closed.dlqId(), closed.disposition(),
                        closed.reasonCode() == null ? "" : " (" + closed.reasonCode() + ")", closed.by().code()));
    }
}
