package org.ingestquarantine.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Ensures every error class has exactly one redelivery policy and exactly one onException clause in the
 * route configuration, and that the numbers mean what DESIGN.md says.
 */
class RedeliveryPoliciesTest {

    @Test
    void shouldHaveOnePolicyPerClassWithTheDesignDefaults() {
        RedeliveryPolicies p = RedeliveryPolicies.defaults();
        assertThat(p.forClass(ErrorClass.TRANSIENT).retries()).isEqualTo(6);
        assertThat(p.forClass(ErrorClass.AMBIGUOUS_PARSE).retries()).isEqualTo(1);
        assertThat(p.forClass(ErrorClass.RESOURCE_FATAL).retries()).isEqualTo(1);
        assertThat(p.forClass(ErrorClass.PERMANENT_INPUT).retries()).isZero();
        assertThat(p.forClass(ErrorClass.DOWNSTREAM_CONTRACT).retries()).isZero();
        assertThat(p.forClass(ErrorClass.UNCLASSIFIED).retries()).isEqualTo(1);
    }

    @Test
    void shouldCountRetriesAfterTheFirstDelivery() {
        RedeliveryPolicy ambiguous = RedeliveryPolicies.defaults().forClass(ErrorClass.AMBIGUOUS_PARSE);
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
        RedeliveryPolicies p = RedeliveryPolicies.fromProperties(
                k -> Optional.ofNullable(Map.of("failure.transient.retries", "8").get(k)));
        assertThat(p.forClass(ErrorClass.TRANSIENT).retries()).isEqualTo(8);
        assertThatThrownBy(() -> RedeliveryPolicies.fromProperties(
                k -> Optional.ofNullable(Map.of("failure.transient.retries", "many").get(k))))
                .hasMessageContaining("failure.transient.retries");
        assertThatThrownBy(() -> RedeliveryPolicies.fromProperties(
                k -> Optional.ofNullable(Map.of("failure.permanent_input.retries", "-1").get(k))))
                .hasMessageContaining("retries must be >= 0");
    }

    @Test
    void shouldHaveExactlyOneOnExceptionClausePerClass() throws Exception {
        String yaml = Files.readString(Path.of("routes", "error-policy.camel.yaml"));
        for (ErrorClass c : ErrorClass.values()) {
            assertThat(count(yaml, "matches\\(\\$\\{exception\\}, " + c.name() + "\\)")).as("onWhen for %s", c).isEqualTo(1);
            assertThat(count(yaml, "exhausted\\(\\$\\{exchange\\}, " + c.name() + "\\)")).as("handled for %s", c).isEqualTo(1);
            assertThat(count(yaml, "constant: " + c.name() + " ")).as("class property for %s", c).isEqualTo(1);
        }
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
