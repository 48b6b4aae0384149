package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.camel.BeanInject;
import org.apache.camel.Exchange;
import org.apache.camel.main.MainConfigurationProperties;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.apache.camel.test.main.junit5.Configure;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.testsupport.SkipByPageCount;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 22: a copy of {@code routes/} with the routes guide's "skip by page count" filter inserted AS WRITTEN in
 * routes/README.md (after the parse step), and an edit that ends a delivery with {@code stop} and no outcome: each
 * delivery ends in exactly one outcome (indexed, skipped by policy with its reason, or abandoned by the consumer),
 * is acknowledged, and none is left without one.
 */
@CamelMainTest(configurationClasses = RouteDoubles.class, mockEndpointsAndSkip = "sql:*",
        properties = {PolicySkipRouteTest.ROUTES, RouteTestSupport.INGEST_FROM, RouteTestSupport.DLQ_FROM,
                "skip.max-pages=5"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicySkipRouteTest extends RouteTestBase {

    /** The edited copy, made by {@link #configure} before the routes are loaded. */
    static final String COPY = "target/route-copies/policy-skip";
    static final String ROUTES = "camel.main.routes-include-pattern=file:" + COPY + "/routes/*.camel.yaml";

    @BeanInject("deliveryGuard")
    RouteDoubles.Guard guard;

    @Configure
    protected void configure(MainConfigurationProperties configuration) throws IOException {
        Path into = Files.createDirectories(Path.of(COPY));
        try (var old = Files.walk(into)) {
            old.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(into)).forEach(p -> p.toFile().delete());
        }
        SkipByPageCount.editedRoutes(into);
    }

    @BeforeEach
    void resetMeters() {
        guard.meters.clear();
    }

    @Test
    void shouldIndexADocumentWithinTheLimit() {
        stages.pages = 5;
        Exchange done = deliver("d.pdf", "k1");
        assertThat(done.isFailed()).as("acknowledged").isFalse();
        assertThat(outcomes.closed).containsExactly("k1=indexed");
        assertThat(done.getProperty(PipelineKeys.OUTCOME)).isEqualTo("indexed");
    }

    @Test
    void shouldSkipADocumentOverTheLimitWithItsReasonOnce() {
        stages.pages = 6;
        Exchange done = deliver("d.pdf", "k2");
        assertThat(done.isFailed()).as("acknowledged").isFalse();
        assertThat(outcomes.closed).as("one outcome").containsExactly("k2=skipped_by_policy:over-max-pages");
        assertThat(done.getProperty(PipelineKeys.OUTCOME)).isEqualTo("skipped");
        assertThat(stages.bodies).as("no stage after parse").noneMatch(b -> b.startsWith("chunk"));
        assertThat(guard.meters.find(PipelineMetrics.ABANDONED).counters()).as("nothing abandoned").isEmpty();
    }

    @Test
    void shouldCloseADeliveryThatAStopEndedAsAbandonedBeforeItIsAcknowledged() {
        Exchange done = deliver("stopped.pdf", "k3");
        assertThat(done.isFailed()).as("acknowledged").isFalse();
        assertThat(outcomes.closed).as("one outcome, by the consumer").containsExactly("k3=abandoned");
        assertThat(done.getProperty(PipelineKeys.OUTCOME)).isEqualTo("abandoned");
        assertThat(guard.meters.get(PipelineMetrics.ABANDONED).tag("source", "docs").tag("stage", "fetch").counter()
                .count()).isEqualTo(1.0);
    }

    private Exchange deliver(String docId, String key) {
        return RouteTestSupport.deliver(context, RouteTestSupport.message(docId), key, 1);
    }
}
