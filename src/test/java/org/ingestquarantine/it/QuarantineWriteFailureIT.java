package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.camel.builder.AdviceWith;
import org.ingestquarantine.app.EmbeddedPostgresService;
import org.ingestquarantine.broker.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a database outage never acknowledges a message without its committed outcome: a failing
 * quarantine write leaves the message on the queue and pauses the consumer, and a batch caught by the
 * outage still ends with exactly one outcome per message once the database is back.
 */
class QuarantineWriteFailureIT {

    /** Longest wait for anything the pipeline does on its own. */
    private static final Duration WAIT = Duration.ofSeconds(240);
    /**
     * The consumer's visibility timeout in these tests, far beyond {@link #WAIT}: a message that only comes
     * back because its visibility ran out (instead of being released) makes the test time out.
     */
    private static final int VISIBILITY_SECONDS = 900;
    /** How long the consumer may take to notice the outage and pause; far below the consumer's 120 s visibility. */
    private static final Duration PAUSE_WITHIN = Duration.ofSeconds(30);

    private static final List<String> GOOD = List.of("c0004.pdf", "c0007.pdf", "c0018.pdf", "c0023.pdf", "c0044.pdf",
            "c0046.pdf", "c0047.pdf", "c0048.pdf", "c0090.pdf", "c0096.pdf", "c0112.pdf", "c0140.pdf");
    /** not_pdf ×3, encrypted ×2, no_text_layer ×2 (permanent_input), and one ambiguous_parse. */
    private static final List<String> BAD = List.of("c0066.pdf", "c0013.pdf", "c0038.pdf", "c0001.pdf", "c0034.pdf",
            "c0008.pdf", "c0020.pdf", "c0069.pdf");

    @TempDir
    Path data;

    @Test
    void shouldLeaveTheMessageOnTheQueueAndPauseWhenTheQuarantineWriteFails() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, longVisibility())) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            AtomicInteger quarantineRuns = new AtomicInteger();
            // the first time the quarantine route runs, the database goes away under it
            AdviceWith.adviceWith(pipeline.app().context(), "quarantine", a -> a.weaveAddFirst().process(exchange -> {
                if (quarantineRuns.incrementAndGet() == 1) {
                    postgres.stop();
                }
            }));

            String key = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));

            await().atMost(WAIT).until(() -> quarantineRuns.get() >= 1);
            await("consumer paused").atMost(PAUSE_WITHIN).until(breaker::isOpen);
            assertThat(postgres.isRunning()).isFalse();
            assertThat(pipeline.metrics().outcomeOf(key)).as("outcome without a committed record").isNull();
            assertThat(pipeline.depth("ingest")).as("the unacknowledged message is still on the queue").isEqualTo(1);
            // paused, not burning deliveries, for as long as the database stays down: at most one more
            // delivery, by the other poller's receive already in flight when the consumer paused
            await("paused while the database is down").during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20))
                    .until(() -> breaker.isOpen() && pipeline.deliveries(key) <= 2);
            int deliveriesWhileDown = pipeline.deliveries(key);

            postgres.start();

            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            // not acknowledged after the failed write, so delivered again: either during the outage (then held
            // at the consumer's entrance until the database answered) or after it
            assertThat(pipeline.deliveries(key)).as("the message came back after the failed write")
                    .isGreaterThanOrEqualTo(2).isGreaterThanOrEqualTo(deliveriesWhileDown);
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
            assertThat(record.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(record.reasonCode()).isEqualTo("not_pdf");
            assertThat(record.attempts()).isEqualTo(1);
            List<QuarantineAttempt> history = pipeline.store().attempts(record.dlqId());
            assertThat(history).hasSize(1);
            assertThat(history.get(0).deliveryKey()).isEqualTo(key);
            assertThat(count(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).isEqualTo(1);
            assertThat(count(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open, i.e. counted as deaths").isZero();
            assertThat(pipeline.settlements()).as("settled exactly once").isEqualTo(1);
            await("acknowledged once recorded").atMost(WAIT).until(() -> pipeline.depth("ingest") == 0);
            assertThat(pipeline.depth("ingest-dlq")).isZero();
        }
    }

    @Test
    void shouldNotCountAttemptsCutShortByOutagesAsConsumerDeaths() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, longVisibility())) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            AtomicInteger quarantineRuns = new AtomicInteger();
            // two outages in a row, each under a quarantine write: the consumer never dies
            AdviceWith.adviceWith(pipeline.app().context(), "quarantine", a -> a.weaveAddFirst().process(exchange -> {
                if (quarantineRuns.incrementAndGet() <= 2) {
                    postgres.stop();
                }
            }));

            String key = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));
            for (int outage = 1; outage <= 2; outage++) {
                int n = outage;
                await("outage " + n).atMost(WAIT)
                        .until(() -> quarantineRuns.get() >= n && breaker.isOpen() && !postgres.isRunning());
                postgres.start();
            }

            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
            assertThat(record.errorClass()).as("class of a not-PDF whose consumer never died")
                    .isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(record.reasonCode()).isEqualTo("not_pdf");
            assertThat(record.attempts()).isEqualTo(1);
            assertThat(count(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open, i.e. counted as deaths").isZero();
        }
    }

    @Test
    void shouldSettleEveryMessageOnceWhenTheDatabaseStopsWithABatchInFlight() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, longVisibility())) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            Map<String, String> good = new LinkedHashMap<>();
            Map<String, String> bad = new LinkedHashMap<>();
            for (int i = 0; i < Math.max(GOOD.size(), BAD.size()); i++) {
                if (i < GOOD.size()) {
                    good.put(pipeline.publishFile("it", "good-" + GOOD.get(i), Corpus.file(GOOD.get(i))), "good-" + GOOD.get(i));
                }
                if (i < BAD.size()) {
                    bad.put(pipeline.publishFile("it", "bad-" + BAD.get(i), Corpus.file(BAD.get(i))), "bad-" + BAD.get(i));
                }
            }
            int sent = good.size() + bad.size();

            await("first outcomes").atMost(WAIT).until(() -> pipeline.settlements() >= 3);
            postgres.stop();
            long settledBeforeOutage = pipeline.settlements();
            assertThat(settledBeforeOutage).as("the outage must catch messages in flight").isLessThan(sent);
            // for the whole outage, no message leaves the queue without its outcome and none is dead-lettered
            // (queue depth read first: a message is settled before it is deleted)
            await("outage").during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(20)).until(() -> {
                long onQueue = pipeline.depth("ingest");
                return onQueue >= sent - pipeline.settlements() && pipeline.depth("ingest-dlq") == 0;
            });
            postgres.start();

            List<String> keys = new ArrayList<>(good.keySet());
            keys.addAll(bad.keySet());
            await("every message settled").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> keys.stream().allMatch(k -> pipeline.metrics().outcomeOf(k) != null));

            for (String key : good.keySet()) {
                assertThat(pipeline.metrics().outcomeOf(key)).as(good.get(key)).isEqualTo("indexed");
            }
            for (String key : bad.keySet()) {
                assertThat(pipeline.metrics().outcomeOf(key)).as(bad.get(key)).isEqualTo("quarantined");
            }
            assertThat(pipeline.settlements()).as("every message settled exactly once").isEqualTo(sent);

            DataSource db = pipeline.dataSource();
            assertThat(count(db, "SELECT count(*) FROM quarantine")).isEqualTo(bad.size());
            for (String docId : bad.values()) {
                QuarantineRecord record = pipeline.store().find("it", docId).orElseThrow();
                assertThat(record.attempts()).as("attempts of %s", docId).isEqualTo(1);
                assertThat(pipeline.store().attempts(record.dlqId())).as("history of %s", docId).hasSize(1);
            }
            assertThat(count(db, "SELECT count(*) FROM documents")).isEqualTo(good.size());
            assertThat(count(db, "SELECT count(*) FROM documents WHERE state = 'searchable'")).isEqualTo(good.size());
            assertThat(count(db, """
                    SELECT count(*) FROM documents d
                    WHERE d.chunk_count <> (SELECT count(*) FROM chunks c WHERE c.source = d.source AND c.doc_id = d.doc_id)
                       OR d.chunk_count = 0
                    """)).as("documents whose chunks differ from chunk_count").isZero();
            assertThat(count(db, "SELECT count(*) FROM documents WHERE doc_id LIKE 'bad-%'")).isZero();
            assertThat(count(db, "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open, i.e. counted as deaths").isZero();
            assertThat(pipeline.depth("ingest-dlq")).as("messages the broker dead-lettered").isZero();
            await("every message acknowledged").atMost(WAIT).until(() -> pipeline.depth("ingest") == 0);
        }
    }

    /** @return the property that gives the embedded consumer {@link #VISIBILITY_SECONDS} of visibility timeout */
    private static Map<String, String> longVisibility() {
        return Map.of("sqs.visibility-timeout-s", Integer.toString(VISIBILITY_SECONDS));
    }

    private static long count(DataSource db, String sql) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
