package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.db.DatabaseUnavailableException;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.Test;

/**
 * Ensures a delivery whose count is unknown (Kafka, the journal unreadable because the database is down) is
 * released when its failure is transient, never quarantined for the outage, and is quarantined otherwise so
 * that nothing loops, and that the unreadable count is asked for once per delivery, not at every question.
 */
class FailureDispositionIT {

    private final FailureDisposition disposition = new FailureDisposition(ShippedProperties.policies(),
            new ClassifyFailure(ErrorTaxonomy.standard()));

    /** The log never says {@code delivery 5 of 2}: a count past the class's budget is said to be past it. */
    @Test
    void shouldSayADeliveryPastItsClasssBudgetIsPastIt() {
        assertThat(FailureDisposition.deliveryOf(2, 3, org.ingestquarantine.failure.ErrorClass.TRANSIENT))
                .isEqualTo("delivery 2 of 3");
        assertThat(FailureDisposition.deliveryOf(5, 2, org.ingestquarantine.failure.ErrorClass.AMBIGUOUS_PARSE))
                .isEqualTo("delivery 5, past ambiguous_parse's 2").doesNotContain("5 of 2");
        assertThat(FailureDisposition.deliveryOf(null, 2, org.ingestquarantine.failure.ErrorClass.AMBIGUOUS_PARSE))
                .isEqualTo("delivery count unknown, ambiguous_parse allows 2");
    }

    /** An ambiguous_parse failure (1 retry) on delivery 4 after 2 hand-backs of a paused source is its second. */
    @Test
    void shouldLeaveTheHandBacksOfAPausedSourceOutOfTheBudget() {
        Exchange exchange = failedWith(new RuntimeException("wrapped", pdfSyntax()));
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, 3);
        exchange.setProperty(PipelineKeys.STORM_PAUSES, 2);
        assertThat(disposition.budgetSpent(exchange)).as("delivery 3 less 2 hand-backs: the first charged").isFalse();

        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, 4);
        assertThat(disposition.budgetSpent(exchange)).as("the second charged delivery spends the budget").isTrue();
    }

    private static Exception pdfSyntax() {
        try {
            var ctor = org.ingestquarantine.parse.PdfSyntaxException.class.getDeclaredConstructor(String.class,
                    Throwable.class);
            ctor.setAccessible(true);
            return ctor.newInstance("missing /Root", null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldReleaseATransientFailureWhoseDeliveryCountIsUnknown() {
        Exchange exchange = failedWith(new TransientException("db_unavailable", "the database is down", null));

        assertThat(disposition.budgetSpent(exchange)).as("quarantined for an outage").isFalse();
    }

    @Test
    void shouldQuarantineAPermanentFailureWhoseDeliveryCountIsUnknown() {
        Exchange exchange = failedWith(new PermanentInputException("not_pdf", "not a PDF"));

        assertThat(disposition.budgetSpent(exchange)).as("a permanent failure with no count must not loop").isTrue();
    }

    @Test
    void shouldAskForAnUnreadableDeliveryCountOncePerDelivery() {
        AtomicInteger asked = new AtomicInteger();
        BrokerAdapter journalDown = new BrokerAdapter() {
            @Override
            public String deliveryKey(Exchange exchange) {
                return "kafka:ingest/0/7@t";
            }

            @Override
            public int deliveryCount(Exchange exchange) {
                asked.incrementAndGet();
                throw new DatabaseUnavailableException("the journal is down (each ask waits out the pool's timeout)", null);
            }

            @Override
            public boolean countsInJournal() {
                return true;
            }

            @Override
            public void release(Exchange exchange, Duration delay) {
            }
        };
        FailureDisposition kafka = new FailureDisposition(ShippedProperties.policies(),
                new ClassifyFailure(ErrorTaxonomy.standard()), new InFlightAttempts(), journalDown, java.time.Duration.ZERO);
        Exchange exchange = failedWith(new TransientException("db_unavailable", "the database is down", null));
        exchange.setProperty(PipelineKeys.DELIVERY_KEY, "kafka:ingest/0/7@t");

        // as the route asks: the error policy's handled, the failure route's decide, the quarantine route's catch
        kafka.budgetSpent(exchange);
        kafka.decide(exchange);
        kafka.recordNotWritten(exchange);

        assertThat(exchange.getProperty(PipelineKeys.DISPOSITION)).isEqualTo(FailureDisposition.RELEASE);
        assertThat(asked).as("journal reads for one delivery").hasValue(1);
    }

    @Test
    void shouldWaitAtLeastTheRetryAfterAProviderAskedForCappedAtTheClassMaximum() {
        // shipped transient back-off: about 1 s before the first redelivery, at most 60 s
        Exchange asked30s = failedWith(new TransientException("embed_http_429", "429", null, Duration.ofSeconds(30)));
        asked30s.setProperty(PipelineKeys.DELIVERY_COUNT, 1);
        Exchange asked1h = failedWith(new TransientException("embed_http_429", "429", null, Duration.ofHours(1)));
        asked1h.setProperty(PipelineKeys.DELIVERY_COUNT, 1);
        Exchange none = failedWith(new TransientException("embed_http_503", "503", null));
        none.setProperty(PipelineKeys.DELIVERY_COUNT, 1);

        disposition.decide(asked30s);
        disposition.decide(asked1h);
        disposition.decide(none);

        assertThat(asked30s.getProperty(PipelineKeys.BACKOFF, Duration.class)).isEqualTo(Duration.ofSeconds(30));
        assertThat(asked1h.getProperty(PipelineKeys.BACKOFF, Duration.class))
                .as("capped at failure.transient.backoff-max-ms").isEqualTo(Duration.ofSeconds(60));
        assertThat(none.getProperty(PipelineKeys.BACKOFF, Duration.class)).isLessThan(Duration.ofSeconds(2));
    }

    private static Exchange failedWith(Exception failure) {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
        return exchange;
    }
}
