package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.main.Main;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.routes.RouteDoubles;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a route edit that has Camel redeliver a delivery in memory refuses the start, in one line naming the
 * file and line, and that Camel redeliveries outside a delivery (a timer route of the user's) and the shipped routes
 * (maximumRedeliveries 0 everywhere) start. The real route files over {@link RouteDoubles}.
 */
class NoCamelRedeliveryTest {

    private static final String ON_FAILURE_POLICY =
            "          redeliveryPolicy: { maximumRedeliveries: 0, logExhausted: false, logStackTrace: false, logHandled: false }\n"
            + "          handled:\n            method: { ref: failureDisposition, method: budgetSpent }\n";

    @TempDir
    Path temp;

    @Test
    void shouldStartTheShippedRoutes() throws Exception {
        assertThat(start(RoutesCopy.of(temp), Map.of())).as("refusal").isNull();
    }

    @Nested
    class OnTheConsumersErrorPolicy {

        @Test
        void shouldRefuseRedeliveriesOnAnOnExceptionNamingFileAndLine() throws Exception {
            RoutesCopy routes = RoutesCopy.of(temp).edit("error-policy.camel.yaml", s -> s.replace(ON_FAILURE_POLICY,
                    ON_FAILURE_POLICY.replace("maximumRedeliveries: 0", "maximumRedeliveries: 3")));
            Path file = routes.folder().resolve("error-policy.camel.yaml");
            // Camel's line of a clause is its list item's: "- onException:", the line above its id
            assertThat(start(routes, Map.of())).isEqualTo(file.toAbsolutePath() + ":" + (lineOf(file, "id: on-failure") - 1)
                    + ": redeliveryPolicy maximumRedeliveries 3 on onException on-failure of route ingest-consumer: Camel"
                    + " must not redeliver (the broker does); a class's deliveries are failure.<class>.retries in"
                    + " application.properties");
        }

        @Test
        void shouldResolveAPlaceholderBeforeDeciding() throws Exception {
            UnaryOperator<String> edit = s -> s.replace(ON_FAILURE_POLICY,
                    ON_FAILURE_POLICY.replace("maximumRedeliveries: 0", "maximumRedeliveries: \"{{my.redeliveries}}\""));
            assertThat(start(RoutesCopy.of(temp.resolve("two")).edit("error-policy.camel.yaml", edit),
                    Map.of("my.redeliveries", "2"))).contains(": redeliveryPolicy maximumRedeliveries 2 on onException");
            assertThat(start(RoutesCopy.of(temp.resolve("none")).edit("error-policy.camel.yaml", edit),
                    Map.of("my.redeliveries", "0"))).as("0 through a placeholder").isNull();
        }

        @Test
        void shouldRefuseRedeliveriesOnTheDeadLetterChannelNamingTheLineOfItsPolicy() throws Exception {
            String policy = "        redeliveryPolicy: { maximumRedeliveries: 0, logExhausted: false, logStackTrace: false }";
            RoutesCopy routes = RoutesCopy.of(temp).edit("error-policy.camel.yaml",
                    s -> s.replace(policy, policy.replace("maximumRedeliveries: 0", "maximumRedeliveries: 5")));
            Path file = routes.folder().resolve("error-policy.camel.yaml");
            assertThat(start(routes, Map.of())).isEqualTo(file.toAbsolutePath() + ":"
                    + lineOf(file, policy.replace("maximumRedeliveries: 0", "maximumRedeliveries: 5").strip())
                    + ": redeliveryPolicy maximumRedeliveries 5 on errorHandler of route ingest-consumer: Camel must not"
                    + " redeliver (the broker does); a class's deliveries are failure.<class>.retries in"
                    + " application.properties");
        }
    }

    @Nested
    class OnARouteADeliveryCalls {

        @Test
        void shouldRefuseAnErrorHandlerOfItsOwnWithRedeliveries() throws Exception {
            RoutesCopy routes = RoutesCopy.of(temp).edit("release.camel.yaml", s -> s.replace(
                    "    routeConfigurationId: inner-stage\n", "    errorHandler:\n      defaultErrorHandler:\n"
                            + "        redeliveryPolicy: { maximumRedeliveries: 4 }\n"));
            Path file = routes.folder().resolve("release.camel.yaml");
            assertThat(start(routes, Map.of())).startsWith(file.toAbsolutePath() + ":"
                    + lineOf(file, "redeliveryPolicy: { maximumRedeliveries: 4 }") + ": redeliveryPolicy"
                    + " maximumRedeliveries 4 on errorHandler of route release: ");
        }

        @Test
        void shouldRefuseAnOnExceptionWithRedeliveriesInTheInnerRoutesConfiguration() throws Exception {
            RoutesCopy routes = RoutesCopy.of(temp).edit("error-policy.camel.yaml", s -> s.replace(
                    "      noErrorHandler: {}\n", "      noErrorHandler: {}\n    onException:\n      - onException:\n"
                            + "          exception: [java.io.IOException]\n"
                            + "          redeliveryPolicy: { maximumRedeliveries: 2 }\n"));
            Path file = routes.folder().resolve("error-policy.camel.yaml");
            assertThat(start(routes, Map.of())).startsWith(file.toAbsolutePath() + ":"
                    + (lineOf(file, "exception: [java.io.IOException]") - 1) + ": redeliveryPolicy maximumRedeliveries 2"
                    + " on onException of route ");
        }

        @Test
        void shouldStartATimerRouteOfTheUsersThatRedeliversOutsideADelivery() throws Exception {
            RoutesCopy routes = RoutesCopy.of(temp).add("tick.camel.yaml", """
                    - route:
                        id: tick
                        errorHandler:
                          defaultErrorHandler:
                            redeliveryPolicy: { maximumRedeliveries: 3 }
                        from:
                          uri: timer:tick?repeatCount=1
                          steps:
                            - log: tick
                    """);
            assertThat(start(routes, Map.of())).as("refusal").isNull();
        }
    }

    /** @return the 1-based line of the first line of {@code file} containing {@code text} */
    private static int lineOf(Path file, String text) throws Exception {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " not in " + file);
    }

    /** @return the refusal's message (the root cause's), or null when the routes started */
    private static String start(RoutesCopy routes, Map<String, String> properties) throws Exception {
        Main main = new Main();
        main.configure().addConfiguration(RouteDoubles.class);
        main.configure().addConfiguration(Guarded.class);
        main.addOverrideProperty("iq.routes-dir", routes.folder().toAbsolutePath().toString());
        main.addOverrideProperty("ingest.from-uri", "direct:ingest");
        main.addOverrideProperty("dlq.from-uri", "direct:dlq-sweeper");
        main.addOverrideProperty("camel.metrics.enabled", "false");
        properties.forEach(main::addOverrideProperty);
        try {
            main.start();
            return null;
        } catch (Exception e) {
            return ErrorFingerprint.rootCause(e).getMessage();
        } finally {
            main.stop();
        }
    }

    /** Registers the guard as the application does. */
    public static final class Guarded implements CamelConfiguration {
        @Override
        public void configure(CamelContext context) {
            context.addLifecycleStrategy(new NoCamelRedelivery());
        }
    }
}
