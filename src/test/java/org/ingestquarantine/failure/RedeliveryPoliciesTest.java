package org.ingestquarantine.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.Test;

/** Ensures every error class has exactly one redelivery policy, read from the shipped properties, meaning what DESIGN.md says. */
class RedeliveryPoliciesTest {

    @Test
    void shouldHaveOnePolicyPerClassWithTheDesignDefaults() {
        RedeliveryPolicies p = ShippedProperties.policies();
        assertThat(p.forClass(ErrorClass.TRANSIENT).retries()).isEqualTo(6);
        assertThat(p.forClass(ErrorClass.AMBIGUOUS_PARSE).retries()).isEqualTo(1);
        assertThat(p.forClass(ErrorClass.RESOURCE_FATAL).retries()).isEqualTo(1);
        assertThat(p.forClass(ErrorClass.PERMANENT_INPUT).retries()).isZero();
        assertThat(p.forClass(ErrorClass.DOWNSTREAM_CONTRACT).retries()).isZero();
        assertThat(p.forClass(ErrorClass.UNCLASSIFIED).retries()).isEqualTo(1);
    }

    @Test
    void shouldCountRetriesAfterTheFirstDelivery() {
        RedeliveryPolicy ambiguous = ShippedProperties.policies().forClass(ErrorClass.AMBIGUOUS_PARSE);
        assertThat(ambiguous.isExhausted(1)).isFalse();
        assertThat(ambiguous.isExhausted(2)).isTrue();
        assertThat(RedeliveryPolicy.none().isExhausted(1)).isTrue();
    }

    @Test
    void shouldGrowBackOffExponentiallyUpToTheCap() {
        RedeliveryPolicy p = new RedeliveryPolicy(6, Duration.ofMillis(100), 2.0, Duration.ofMillis(500), 0.0);
        assertThat(p.backoffBefore(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoffBefore(3)).isEqualTo(Duration.ofMillis(400));
        assertThat(p.backoffBefore(6)).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void shouldApplyPropertiesAndRejectNonsense() {
        assertThat(RedeliveryPolicies.fromProperties(with("failure.transient.retries", "8"))
                .forClass(ErrorClass.TRANSIENT).retries()).isEqualTo(8);
        assertThatThrownBy(() -> RedeliveryPolicies.fromProperties(with("failure.transient.retries", "many")))
                .hasMessageContaining("failure.transient.retries");
        assertThatThrownBy(() -> RedeliveryPolicies.fromProperties(with("failure.permanent_input.retries", "-1")))
                .hasMessageContaining("retries must be >= 0");
        assertThatThrownBy(() -> RedeliveryPolicies.fromProperties(with("failure.unclassified.jitter", null)))
                .hasMessageContaining("failure.unclassified.jitter is missing");
    }

    private static Function<String, Optional<String>> with(String key, String value) {
        Function<String, Optional<String>> shipped = ShippedProperties.lookup();
        return k -> k.equals(key) ? Optional.ofNullable(value) : shipped.apply(k);
    }
}
