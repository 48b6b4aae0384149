package org.ingestquarantine.broker.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.quarantine.DeadLetterCopy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dead-letter copies on their way to Kafka (table {@code kafka_dlq_outbox}, migration V8). A copy's row is
 * written by its quarantine record's own statement ({@code sql/quarantine-record.sql}, see
 * {@link KafkaDeadLetters}), so a row exists if and only if its record committed; one sender thread of this
 * class sends the rows oldest first and deletes each once Kafka acknowledged it. While Kafka is away the rows
 * wait in PostgreSQL and are sent when it returns, also by the next process if this one stops first.
 *
 * <p>The sender runs every {@code pollInterval} and at once when {@linkplain #wake woken} (after each quarantine).
 * Each row is sent in its own transaction that locks it ({@code FOR UPDATE SKIP LOCKED}) and deletes it before
 * the send, committed after Kafka's acknowledgement: consumers in several processes sharing the database never
 * send one row at the same time, and a database lost before the send sends nothing. A database lost after
 * Kafka acknowledged a copy and before the row's delete committed leaves the row: this process remembers it and
 * deletes it unsent once the database answers. Only a process that dies in that moment leaves a copy to be sent
 * again (at least once; {@link KafkaDeadLetters} says how its consumer tells the repeat). A send waits at most
 * {@code sendTimeout}; a failure ends the round, logged once per outage, and the row is tried again next round.
 */
final class KafkaDeadLetterOutbox implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaDeadLetterOutbox.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transaction;
    private final Producer<byte[], byte[]> producer;
    private final Duration sendTimeout;
    private final ScheduledExecutorService sender;
    private volatile boolean failing;
    /** Rows Kafka acknowledged whose delete did not (visibly) commit; touched by the sender thread only. */
    private final Set<Long> sentNotDeleted = new HashSet<>();

    /**
     * @param dataSource a pool on the migrated schema
     * @param producer a producer of raw bytes the caller closes
     * @param sendTimeout how long one send may wait for Kafka's acknowledgement
     * @param pollInterval how often the sender looks for rows left by an earlier failure or process
     */
    KafkaDeadLetterOutbox(DataSource dataSource, Producer<byte[], byte[]> producer, Duration sendTimeout,
                          Duration pollInterval) {
        // failures translated by SQLSTATE: the default translator would first ask the (maybe unreachable) database its name
        SQLExceptionTranslator bySqlState = new SQLExceptionSubclassTranslator();
        this.jdbc = SpringJdbc.template(dataSource);
        JdbcTransactionManager transactions = new JdbcTransactionManager(dataSource);
        transactions.setExceptionTranslator(bySqlState);
        this.transaction = new TransactionTemplate(transactions);
        this.producer = producer;
        this.sendTimeout = sendTimeout;
        this.sender = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kafka-dlq-outbox");
            t.setDaemon(true);
            return t;
        });
        sender.scheduleWithFixedDelay(this::sendAll, pollInterval.toMillis(), pollInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Asks the sender for a round now (it runs on its own thread). */
    void wake() {
        if (!sender.isShutdown()) {
            sender.execute(this::sendAll);
        }
    }

    /** @return rows not yet sent */
    long pending() {
        Long rows = jdbc.queryForObject("SELECT count(*) FROM kafka_dlq_outbox", Long.class);
        return rows == null ? 0 : rows;
    }

    /** One round: sends and deletes rows, oldest first, until none is left or one fails. */
    private void sendAll() {
        try {
            while (sendOldest()) {
                // next
            }
            if (failing) {
                failing = false;
                LOG.info("dead-letter copies sent again; the outbox is empty");
            }
        } catch (DataAccessException | TransactionException | KafkaException | ExecutionException | TimeoutException e) {
            if (!failing) {
                failing = true;
                LOG.warn("dead-letter copy not sent ({}); it stays in kafka_dlq_outbox and is sent when Kafka and"
                        + " PostgreSQL answer", describe(e));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("dead-letter outbox round failed ({}); tried again in the next round", e.getClass().getSimpleName());
        }
    }

    /** @return whether a row was sent (false: none left) */
    private boolean sendOldest() throws InterruptedException, ExecutionException, TimeoutException {
        // rows Kafka acknowledged whose delete was lost with the database: deleted now, never sent again
        for (Iterator<Long> sent = sentNotDeleted.iterator(); sent.hasNext(); ) {
            jdbc.update("DELETE FROM kafka_dlq_outbox WHERE outbox_id = ?", sent.next());
            sent.remove();
        }
        try {
            boolean sent = Boolean.TRUE.equals(transaction.execute(status -> {
                List<Map.Entry<Long, DeadLetterCopy>> row = jdbc.query("SELECT outbox_id, topic, record_key, record_value,"
                        + " headers::text AS headers FROM kafka_dlq_outbox ORDER BY outbox_id LIMIT 1 FOR UPDATE SKIP LOCKED",
                        (rs, n) -> Map.entry(rs.getLong("outbox_id"), new DeadLetterCopy(rs.getString("topic"), rs.getBytes("record_key"),
                                rs.getBytes("record_value"), headers(rs.getString("headers")))));
                if (row.isEmpty()) {
                    return false;
                }
                // deleted BEFORE the send, in the same transaction, committed after Kafka's ack: a database lost
                // before the send sends nothing (the row stays); one lost between the ack and the commit leaves the
                // row, which this process then deletes unsent (sentNotDeleted); only a process that dies there
                // leaves it to be sent twice (consumers of the dead-letter topic can tell, see KafkaDeadLetters)
                jdbc.update("DELETE FROM kafka_dlq_outbox WHERE outbox_id = ?", row.get(0).getKey());
                try {
                    send(row.get(0).getValue());
                } catch (InterruptedException | ExecutionException | TimeoutException e) {
                    throw new SendFailed(e);
                }
                // kept until the delete is known to have committed (a commit lost with the database leaves it)
                sentNotDeleted.add(row.get(0).getKey());
                return true;
            }));
            sentNotDeleted.clear();
            return sent;
        } catch (SendFailed e) {
            Throwable cause = e.getCause();
            if (cause instanceof InterruptedException i) {
                throw i;
            }
            if (cause instanceof ExecutionException x) {
                throw x;
            }
            throw (TimeoutException) cause;
        }
    }

    private void send(DeadLetterCopy copy) throws InterruptedException, ExecutionException, TimeoutException {
        RecordHeaders headers = new RecordHeaders();
        copy.headers().forEach((k, v) -> headers.add(k, v.getBytes(StandardCharsets.UTF_8)));
        producer.send(new ProducerRecord<>(copy.topic(), null, copy.key(), copy.value(), headers))
                .get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Carries a send failure out of the transaction (rolled back, the row stays). */
    private static final class SendFailed extends RuntimeException {
        SendFailed(Throwable cause) {
            super(cause);
        }
    }

    /** @return the failure in one line safe to log: a database failure by {@link SqlFailure}, else its type */
    private static String describe(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return SqlFailure.describe(sql);
            }
        }
        return e.getClass().getSimpleName();
    }

    private static Map<String, String> headers(String json) {
        try {
            return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("kafka_dlq_outbox.headers is not a JSON object of strings", e);
        }
    }

    /** Stops the sender; rows not yet sent stay for the next process. */
    @Override
    public void close() {
        sender.shutdownNow();
    }
}
