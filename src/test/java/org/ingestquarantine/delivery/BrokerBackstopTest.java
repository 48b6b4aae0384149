package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.Test;

/** Ensures a class budget whose deliveries reach the broker's own dead-letter limit is refused, naming the property. */
class BrokerBackstopTest {

    private static final BrokerBackstop SQS = new BrokerBackstop(10, "the SQS queue ingest's maxReceiveCount 10 (its RedrivePolicy)");

    @Test
    void shouldAcceptTheShippedBudgets() {
        assertThatCode(() -> SQS.checkBelow(ShippedProperties.policies())).doesNotThrowAnyException();
    }

    @Test
    void shouldAcceptABudgetOneDeliveryBelowTheBackstop() {
        assertThatCode(() -> SQS.checkBelow(with("ambiguous_parse", "8"))).doesNotThrowAnyException();
    }

    @Test
    void shouldRefuseABudgetWhoseDeliveriesReachTheBackstop() {
        assertThatThrownBy(() -> SQS.checkBelow(with("ambiguous_parse", "9"))).hasMessage("failure.ambiguous_parse"
                + ".retries=9 gives 10 deliveries, at or above the SQS queue ingest's maxReceiveCount 10 (its"
                + " RedrivePolicy): raise the backstop above every budget or lower the budget");
    }

    private static RedeliveryPolicies with(String errorClass, String retries) {
        Map<String, String> overrides = Map.of("failure." + errorClass + ".retries", retries);
        return RedeliveryPolicies.fromProperties(k -> Optional.ofNullable(overrides.get(k))
                .or(() -> ShippedProperties.lookup().apply(k)));
    }
}
