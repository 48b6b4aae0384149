package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.Test;

/**
 * Ensures a delivery whose count is unknown (Kafka, the journal unreadable because the database is down) is
 * released when its failure is transient, never quarantined for the outage, and is quarantined otherwise so
 * that nothing loops.
 */
class FailureDispositionTest {

    private final FailureDisposition disposition = new FailureDisposition(ShippedProperties.policies(),
            new ClassifyFailure(ErrorTaxonomy.standard()));

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

    private static Exchange failedWith(Exception failure) {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
        return exchange;
    }
}
