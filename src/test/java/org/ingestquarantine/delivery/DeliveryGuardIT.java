package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ensures a delivery never counts a LIVE attempt (its owner still renews its lease) as a death and never
 * works on the message beside it: it waits, then goes on if that attempt released the message or died,
 * is acknowledged with no work if it settled it, and is handed back uncounted if it stays live.
 */
class DeliveryGuardIT extends PostgresTestBase {

    private static final String KEY = "sqs:m1";
    private static final Duration POLL = Duration.ofMillis(50);

    private final CamelContext camel = new DefaultCamelContext();
    private AttemptJournal elsewhere;
    private AttemptJournal here;

    @BeforeEach
    void setUp() {
        elsewhere = new AttemptJournal(dataSource(), Clock.systemUTC(), new AttemptLease("other/1/A", Duration.ofMinutes(1)));
        here = new AttemptJournal(dataSource(), Clock.systemUTC(), new AttemptLease("this/2/B", Duration.ofMinutes(1)));
    }

    @AfterEach
    void tearDown() throws Exception {
        camel.close();
    }

    @Test
    void shouldHandBackUncountedWhileAnotherAttemptStaysLive() {
        long running = elsewhere.open(KEY, "s", "d.pdf", 1);
        Exchange exchange = delivery(2);

        assertThatThrownBy(() -> guard(Duration.ofMillis(300)).admit(exchange)).isInstanceOf(AttemptInProgressException.class);
        assertThat(exchange.getProperty(PipelineKeys.ATTEMPT_ID)).as("no attempt opened").isNull();
        assertThat(exchange.getProperty(PipelineKeys.BACKOFF)).isEqualTo(Duration.ofMinutes(1));
        assertThat(here.attempts(KEY)).isEqualTo(1);
        assertThat(here.openAttempts(KEY).live()).containsExactly(running);
    }

    @Test
    void shouldAcknowledgeWithoutWorkWhenTheAttemptItWaitedForSettledTheMessage() throws Exception {
        long running = elsewhere.open(KEY, "s", "d.pdf", 1);
        Exchange exchange = delivery(2);
        CompletableFuture<Void> settles = CompletableFuture.runAsync(() -> elsewhere.close(running, AttemptOutcome.INDEXED),
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

        guard(Duration.ofSeconds(30)).admit(exchange);
        settles.get();

        assertThat(exchange.getProperty(PipelineKeys.SETTLED_ELSEWHERE, Boolean.class)).isTrue();
        assertThat(exchange.getProperty(PipelineKeys.ATTEMPT_ID)).isNull();
        assertThat(here.attempts(KEY)).isEqualTo(1);
    }

    @Test
    void shouldGoOnWhenTheAttemptItWaitedForReleasedTheMessage() throws Exception {
        long running = elsewhere.open(KEY, "s", "d.pdf", 1);
        Exchange exchange = delivery(2);
        CompletableFuture<Void> releases = CompletableFuture.runAsync(() -> elsewhere.close(running, AttemptOutcome.RELEASED),
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

        guard(Duration.ofSeconds(30)).admit(exchange);
        releases.get();

        assertThat(exchange.getProperty(PipelineKeys.SETTLED_ELSEWHERE)).isNull();
        assertThat(exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class)).isNotNull();
        assertThat(here.deaths(KEY)).isEqualTo(Deaths.NONE);
    }

    @Test
    void shouldCountTheAttemptItWaitedForAsADeathOnceItsLeaseRanOut() throws Exception {
        long running = elsewhere.open(KEY, "s", "d.pdf", 1);
        elsewhere.forget(running);
        Exchange exchange = delivery(2);
        CompletableFuture<Void> dies = CompletableFuture.runAsync(() -> {
            try {
                AttemptJournalIT.expireLease(running);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

        guard(Duration.ofSeconds(30)).admit(exchange);
        dies.get();

        assertThat(exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class)).as("one death is below the budget").isNotNull();
        assertThat(here.attempts(KEY)).isEqualTo(2);
    }

    /**
     * At the broker's redrive count (SQS maxReceiveCount 10) a hand-back would have the broker dead-letter a
     * message that is being worked on: the delivery waits past {@code maxWait} until the live attempt settles.
     */
    @Test
    void shouldKeepWaitingInsteadOfHandingBackAtTheBrokersRedriveCount() throws Exception {
        long running = elsewhere.open(KEY, "s", "d.pdf", 1);
        Exchange exchange = delivery(10);
        CompletableFuture<Void> settles = CompletableFuture.runAsync(() -> elsewhere.close(running, AttemptOutcome.INDEXED),
                CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS));

        new DeliveryGuard(new FixedBroker(10), here, ShippedProperties.policies(), new InFlightAttempts(), POLL,
                Duration.ofMillis(300), METRICS).admit(exchange);
        settles.get();

        assertThat(exchange.getProperty(PipelineKeys.SETTLED_ELSEWHERE, Boolean.class)).as("waited, not handed back").isTrue();
    }

    @Test
    void shouldLeaveAJournalCountedDeliveryCountToTheAdmittingStatement() {
        here.close(here.open(KEY, "s", "d.pdf", 1), AttemptOutcome.RELEASED);
        DeliveryGuard guard = new DeliveryGuard(new JournalCountingBroker(), here, ShippedProperties.policies(),
                new InFlightAttempts(), POLL, Duration.ZERO, METRICS);
        Exchange exchange = delivery(1);
        exchange.removeProperty(PipelineKeys.DELIVERY_COUNT);

        guard.capture(exchange);
        assertThat(exchange.getProperty(PipelineKeys.DELIVERY_COUNT)).as("no round trip at capture").isNull();
        guard.admit(exchange);

        assertThat(exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class)).as("one attempt before").isEqualTo(2);
        assertThat(here.attempts(KEY)).isEqualTo(2);
    }

    private static final org.ingestquarantine.metrics.PipelineMetrics METRICS = new org.ingestquarantine.metrics.PipelineMetrics(
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
            org.ingestquarantine.metrics.SourceTags.of(java.util.Set.of()));

    private DeliveryGuard guard(Duration maxWait) {
        return new DeliveryGuard(new FixedBroker(), here, ShippedProperties.policies(), new InFlightAttempts(), POLL,
                maxWait, METRICS);
    }

    private Exchange delivery(int count) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty(PipelineKeys.DELIVERY_KEY, KEY);
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, count);
        exchange.setProperty(PipelineKeys.MESSAGE, new IngestMessage("s", "d.pdf", URI.create("file:///tmp/d.pdf"),
                null, null, null));
        return exchange;
    }

    /** Like Kafka: keeps no count; asking it for one fails the test. */
    private static final class JournalCountingBroker implements BrokerAdapter {
        @Override
        public String deliveryKey(Exchange exchange) {
            return KEY;
        }

        @Override
        public int deliveryCount(Exchange exchange) {
            throw new AssertionError("the count is the admitting statement's");
        }

        @Override
        public boolean countsInJournal() {
            return true;
        }

        @Override
        public void release(Exchange exchange, Duration delay) {
        }
    }

    /** Never asked: the tests set key and count on the exchange themselves. */
    private static final class FixedBroker implements BrokerAdapter {
        private final int redriveAt;

        FixedBroker() {
            this(Integer.MAX_VALUE);
        }

        FixedBroker(int redriveAt) {
            this.redriveAt = redriveAt;
        }

        @Override
        public int redriveAt() {
            return redriveAt;
        }

        @Override
        public String deliveryKey(Exchange exchange) {
            return KEY;
        }

        @Override
        public int deliveryCount(Exchange exchange) {
            return 1;
        }

        @Override
        public void release(Exchange exchange, Duration delay) {
        }
    }
}
