package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.camel.BeanInject;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.main.MainConfigurationProperties;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.apache.camel.test.main.junit5.Configure;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.testsupport.RoutesCopy;
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
class PolicySkipRouteTest {

    /** The edited copy, made by {@link #configure} before the routes are loaded. */
    static final String COPY = "target/route-copies/policy-skip";
    static final String ROUTES = "camel.main.routes-include-pattern=file:" + COPY + "/routes/*.camel.yaml";

    /** The guide's example: the first yaml block after its marker in routes/README.md. */
    static final Pattern EXAMPLE = Pattern.compile(
            "<!-- example: skip-by-page-count[^\\n]*-->\\n```yaml\\n(.*?)```", Pattern.DOTALL);
    /** Where the guide says the filter goes: right after the parse step of process-document. */
    static final String AFTER_PARSE = "              - bean: { ref: parseStage, method: parse }\n";
    /** The edit a route author must not make: a stop, after fetch, for one document, that skips every outcome. */
    static final String STOP_EDIT = ""
            + "              - filter:\n"
            + "                  simple: \"${exchangeProperty.iqMessage.docId} == 'stopped.pdf'\"\n"
            + "                  steps:\n"
            + "                    - stop: {}\n";
    static final String AFTER_FETCH = "              - setProperty: { name: iqFetched, simple: \"${body}\" }\n";

    @BeanInject
    CamelContext context;
    @BeanInject("stages")
    RouteDoubles.Stages stages;
    @BeanInject("outcomes")
    RouteDoubles.Outcomes outcomes;
    @BeanInject("deliveryGuard")
    RouteDoubles.Guard guard;

    /** @return the guide's example, as written */
    static String guideExample() throws IOException {
        Matcher m = EXAMPLE.matcher(Files.readString(Path.of("routes", "README.md"), StandardCharsets.UTF_8));
        assertThat(m.find()).as("routes/README.md has the skip-by-page-count example").isTrue();
        return m.group(1);
    }

    /**
     * @param into a fresh folder
     * @return a copy of routes/ with the guide's example and the stop edit in process-document
     */
    static RoutesCopy editedRoutes(Path into) throws IOException {
        String example = guideExample();
        return RoutesCopy.of(into).edit("process-document.camel.yaml", yaml -> yaml
                .replace(AFTER_PARSE, AFTER_PARSE + example)
                .replace(AFTER_FETCH, AFTER_FETCH + STOP_EDIT));
    }

    @Configure
    protected void configure(MainConfigurationProperties configuration) throws IOException {
        Path into = Files.createDirectories(Path.of(COPY));
        try (var old = Files.walk(into)) {
            old.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(into)).forEach(p -> p.toFile().delete());
        }
        editedRoutes(into);
    }

    @BeforeEach
    void reset() {
        stages.reset();
        outcomes.closed.clear();
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
