package org.ingestquarantine.broker.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
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
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.SqlFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter copies on their way to Kafka (table {@code kafka_dlq_outbox}, migration V8). The consumer
 * thread only {@linkplain #add adds} a copy (one INSERT) and goes on; one sender thread of its own sends the
 * rows oldest first and deletes each once Kafka acknowledged it. While Kafka is away the rows wait in
 * PostgreSQL and are sent when it returns, also by the next process if this one stops first.
 *
 * <p>The sender runs every {@code pollInterval} and at once after each add. Each row is sent in its own
 * transaction that locks it ({@code FOR UPDATE SKIP LOCKED}), so consumers in several processes sharing the
 * database never send one row twice at the same time; a process that dies after Kafka acknowledged a copy
 * and before the row's delete committed sends that copy again (at least once). A send waits at most
 * {@code sendTimeout}; a failure ends the round, logged once per outage, and the row is tried again next round.
 */
final class KafkaDeadLetterOutbox implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaDeadLetterOutbox.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Jdbc jdbc;
    private final Producer<byte[], byte[]> producer;
    private final Duration sendTimeout;
    private final Clock clock;
    private final ScheduledExecutorService sender;
    private volatile boolean failing;

    /** One copy: where it goes, its key and value bytes unchanged, its headers as text. */
    record Copy(String topic, byte[] key, byte[] value, Map<String, String> headers) {
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param producer a producer of raw bytes the caller closes
     * @param sendTimeout how long one send may wait for Kafka's acknowledgement
     * @param pollInterval how often the sender looks for rows left by an earlier failure or process
     * @param clock gives created_at
     */
    KafkaDeadLetterOutbox(DataSource dataSource, Producer<byte[], byte[]> producer, Duration sendTimeout,
                          Duration pollInterval, Clock clock) {
        this.jdbc = new Jdbc(dataSource);
        this.producer = producer;
        this.sendTimeout = sendTimeout;
        this.clock = clock;
        this.sender = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kafka-dlq-outbox");
            t.setDaemon(true);
            return t;
        });
        sender.scheduleWithFixedDelay(this::sendAll, pollInterval.toMillis(), pollInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Keeps a copy for sending and wakes the sender; returns without waiting for Kafka.
     *
     * @param copy the dead-letter record
     * @throws SQLException when the row cannot be written (the caller decides what then)
     */
    void add(Copy copy) throws SQLException {
        jdbc.update("INSERT INTO kafka_dlq_outbox (topic, record_key, record_value, headers, created_at)"
                        + " VALUES (?, CAST(? AS bytea), CAST(? AS bytea), CAST(? AS jsonb), ?)",
                copy.topic(), copy.key(), copy.value(), json(copy.headers()), clock.instant());
        wake();
    }

    /** Asks the sender for a round now (it runs on its own thread). */
    void wake() {
        if (!sender.isShutdown()) {
            sender.execute(this::sendAll);
        }
    }

    /** @return rows not yet sent */
    long pending() throws SQLException {
        return jdbc.queryFirst("SELECT count(*) FROM kafka_dlq_outbox", rs -> rs.getLong(1)).orElse(0L);
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
        } catch (SQLException | KafkaException | ExecutionException | TimeoutException e) {
            if (!failing) {
                failing = true;
                LOG.warn("dead-letter copy not sent ({}); it stays in kafka_dlq_outbox and is sent when Kafka and"
                        + " PostgreSQL answer", e instanceof SQLException sql ? SqlFailure.describe(sql)
                        : e.getClass().getSimpleName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("dead-letter outbox round failed ({}); tried again in the next round", e.getClass().getSimpleName());
        }
    }

    /** @return whether a row was sent (false: none left) */
    private boolean sendOldest() throws SQLException, InterruptedException, ExecutionException, TimeoutException {
        try {
            return jdbc.inTransaction(c -> {
                Optional<Map.Entry<Long, Copy>> row = Jdbc.queryFirst(c, "SELECT outbox_id, topic, record_key, record_value,"
                        + " headers::text AS headers FROM kafka_dlq_outbox ORDER BY outbox_id LIMIT 1 FOR UPDATE SKIP LOCKED",
                        rs -> Map.entry(rs.getLong("outbox_id"), new Copy(rs.getString("topic"), rs.getBytes("record_key"),
                                rs.getBytes("record_value"), headers(rs.getString("headers")))));
                if (row.isEmpty()) {
                    return false;
                }
                // deleted BEFORE the send, in the same transaction, committed after Kafka's ack: a database lost
                // before the send sends nothing (the row stays); only one lost between the ack and the commit
                // leaves a row to be sent twice (consumers of the dead-letter topic can tell by its dlq_id header)
                Jdbc.update(c, "DELETE FROM kafka_dlq_outbox WHERE outbox_id = ?", row.get().getKey());
                try {
                    send(row.get().getValue());
                } catch (InterruptedException | ExecutionException | TimeoutException e) {
                    throw new SendFailed(e);
                }
                return true;
            });
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

    private void send(Copy copy) throws InterruptedException, ExecutionException, TimeoutException {
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

    private static String json(Map<String, String> headers) {
        try {
            return JSON.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("headers are plain strings", e);
        }
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
