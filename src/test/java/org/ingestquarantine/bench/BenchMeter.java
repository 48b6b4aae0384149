package org.ingestquarantine.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.support.SynchronizationAdapter;
import javax.sql.DataSource;

/**
 * Counts the messages a benchmark route finished and the time between the first and the last, so that
 * consumer start-up (Kafka group join, SQS long poll) is not measured. Bound as {@code benchMeter} by
 * {@code bench/routes/bench-bare-consumer.camel.yaml}. Thread-safe.
 */
public final class BenchMeter {

    /** The bare route's one row per message, table created by {@link BrokerBench} (not by the product's schema). */
    static final String BARE_TABLE = "bench_bare_row";
    static final String CREATE_BARE_TABLE = "CREATE TABLE IF NOT EXISTS " + BARE_TABLE
            + " (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text NOT NULL,"
            + " at timestamptz NOT NULL DEFAULT now())";
    private static final String INSERT = "INSERT INTO " + BARE_TABLE + " (body) VALUES (?)";
    /** The close the product's index statement makes (ingest.DocumentIndex), without the document's write. */
    private static final String CLOSE = "UPDATE attempt_journal SET stage = 'index', stage_at = now(), closed_at = now(),"
            + " outcome = 'indexed' WHERE attempt_id = ?";

    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();

    /** Forgets every earlier tick. */
    public void reset() {
        count.set(0);
        firstNanos.set(0);
        lastNanos.set(0);
    }

    /** Marks one message done. */
    public void tick() {
        long now = System.nanoTime();
        firstNanos.compareAndSet(0, now);
        lastNanos.accumulateAndGet(now, Math::max);
        count.incrementAndGet();
    }

    /**
     * The bare route's whole work, the durable minimum of an at-least-once consumer: INSERTs the message body
     * as one row in its own transaction (the application's pool, {@code dataSource}, auto-commit: one
     * statement, one commit), marks the message done and, on Kafka, commits its offset when the exchange
     * completes, as the pipeline's KafkaBrokerAdapter does (SQS deletes and RabbitMQ acknowledges a
     * completed exchange by themselves), so the acknowledgement follows the commit.
     *
     * @param exchange a consumed message
     * @throws SQLException when the row cannot be written (the exchange fails and is not acknowledged)
     */
    public void bare(Exchange exchange) throws SQLException {
        DataSource db = exchange.getContext().getRegistry().lookupByNameAndType("dataSource", DataSource.class);
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(INSERT)) {
            s.setString(1, exchange.getIn().getBody(String.class));
            s.executeUpdate();
        }
        consumeOnly(exchange);
    }

    /**
     * The full path's stand-in for the index write (bench/routes/process-document.camel.yaml): closes the attempt as
     * indexed in one statement, its own transaction (auto-commit), as the product's index statement does.
     *
     * @param exchange the delivery
     * @param attemptId its attempt, opened by the delivery guard
     * @throws SQLException when the close cannot be written (the exchange fails and is not acknowledged)
     * @throws IllegalStateException when no such attempt is open
     */
    public void close(Exchange exchange, long attemptId) throws SQLException {
        DataSource db = exchange.getContext().getRegistry().lookupByNameAndType("dataSource", DataSource.class);
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(CLOSE)) {
            s.setLong(1, attemptId);
            if (s.executeUpdate() != 1) {
                throw new IllegalStateException("no journalled attempt " + attemptId);
            }
        }
    }

    /**
     * Marks the message done and, on Kafka, commits its offset when the exchange completes; nothing written.
     *
     * @param exchange a consumed message
     */
    public void consumeOnly(Exchange exchange) {
        KafkaManualCommit commit = exchange.getIn().getHeader(KafkaConstants.MANUAL_COMMIT, KafkaManualCommit.class);
        if (commit != null) {
            exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                @Override
                public void onComplete(Exchange done) {
                    commit.commit();
                }
            });
        }
        tick();
    }

    /** @return messages done since the last {@link #reset()} */
    public int count() {
        return count.get();
    }

    /** @return messages per second between the first and the last tick, over {@code count - 1} intervals */
    public double rate() {
        long span = lastNanos.get() - firstNanos.get();
        return span <= 0 ? 0 : (count.get() - 1) * 1e9 / span;
    }
}
