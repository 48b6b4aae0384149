package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ensures routes/error-policy.camel.yaml gives every error class exactly its budget from application.properties:
 * released (never acknowledged) on each delivery before the last, quarantined and acknowledged on delivery
 * retries + 1, and classified once.
 */
class ErrorPolicyRouteTest extends RouteTestBase {

    /** One representative failure per class, thrown at the stage that raises it. */
    static Stream<Arguments> everyDeliveryOfEveryClass() {
        return Stream.of(
                Arguments.of(ErrorClass.TRANSIENT, "fetch", RouteTestSupport.failure(ErrorClass.TRANSIENT)),
                Arguments.of(ErrorClass.AMBIGUOUS_PARSE, "parse", RouteTestSupport.failure(ErrorClass.AMBIGUOUS_PARSE)),
                Arguments.of(ErrorClass.RESOURCE_FATAL, "parse", RouteTestSupport.failure(ErrorClass.RESOURCE_FATAL)),
                Arguments.of(ErrorClass.PERMANENT_INPUT, "preflight", RouteTestSupport.failure(ErrorClass.PERMANENT_INPUT)),
                Arguments.of(ErrorClass.DOWNSTREAM_CONTRACT, "embed", RouteTestSupport.failure(ErrorClass.DOWNSTREAM_CONTRACT)),
                Arguments.of(ErrorClass.UNCLASSIFIED, "chunk", RouteTestSupport.failure(ErrorClass.UNCLASSIFIED)))
                .flatMap(a -> {
                    ErrorClass c = (ErrorClass) a.get()[0];
                    int max = RouteDoubles.POLICIES.forClass(c).maxDeliveries();
                    return IntStream.rangeClosed(1, max).mapToObj(n -> Arguments.of(c, a.get()[1], a.get()[2], n));
                });
    }

    @ParameterizedTest(name = "{0} at {1}, delivery {3}")
    @MethodSource("everyDeliveryOfEveryClass")
    void shouldReleaseUntilTheBudgetIsSpentThenQuarantineOnce(ErrorClass errorClass, String stage,
                                                             RuntimeException failure, int delivery) {
        stages.failAt(stage, failure);
        RedeliveryPolicy policy = RouteDoubles.POLICIES.forClass(errorClass);

        Exchange done = deliver(delivery);

        if (delivery < policy.maxDeliveries()) {
            assertThat(done.isFailed()).as("released deliveries are not acknowledged").isTrue();
            assertThat(outcomes.closed).containsExactly("k1=released");
            assertThat(broker.releases).containsKey("k1");
            assertThat(broker.releases.get("k1").toMillis())
                    .isBetween(Math.round(policy.initialBackoff().toMillis() * (1 - policy.jitter())),
                            Math.round(policy.maxBackoff().toMillis() * (1 + policy.jitter())));
            assertThat(recorder.recorded).isEmpty();
        } else {
            assertThat(done.isFailed()).as("a quarantined delivery is acknowledged").isFalse();
            assertThat(outcomes.closed).containsExactly("k1=quarantined");
            assertThat(broker.releases).isEmpty();
            assertThat(recorder.recorded).singleElement().satisfies(c -> assertThat(c.errorClass()).isEqualTo(errorClass));
            assertThat(recorder.stages).last().isEqualTo(stage);
        }
    }
}
