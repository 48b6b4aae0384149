package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.BeanInject;
import org.apache.camel.Exchange;
import org.apache.camel.test.main.junit5.CamelMainTest;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Ensures a fault of our own route is not the document's: with a copy of routes/ whose parse step holds the typo
 * {@code ${body.pageCont}} (a bean and then the expression, in the same step), a good document's delivery is
 * released, not quarantined, its attempt closed as pipeline_fault, the consumer held with a WARN line and a
 * metric, and one probe after the hold; while the document's own failure in that step (a PDF syntax error its
 * bean throws) keeps its class and budget, and ends the hold. The shared doubles of {@link RouteTestBase}, on
 * that copy of the routes (this class's own {@code @CamelMainTest}, which takes the place of the base's).
 */
@CamelMainTest(configurationClasses = RouteDoubles.class, mockEndpointsAndSkip = "sql:*",
        properties = {"camel.main.routes-include-pattern=file:target/route-fault-routes/*.camel.yaml",
                RouteTestSupport.INGEST_FROM, RouteTestSupport.DLQ_FROM})
class RouteFaultRouteTest extends RouteTestBase {

    static {
        // written before Camel Main starts, which happens after the class is loaded
        copyRoutesWithTypo(Path.of("target/route-fault-routes"));
    }

    @BeanInject("pipelineMetrics")
    PipelineMetrics metrics;

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger breakerLog = (Logger) LoggerFactory.getLogger(ConsumerCircuitBreaker.class);

    @BeforeEach
    void attach() {
        logs.list.clear();
        logs.start();
        breakerLog.addAppender(logs);
    }

    @AfterEach
    void detach() {
        breakerLog.detachAppender(logs);
    }

    @Test
    void shouldReleaseAGoodDocumentAndHoldTheConsumerForATypoInTheRoute() throws Exception {
        double before = faults();

        Exchange first = deliver("a.pdf", "k1", 1, 0);
        long held = System.nanoTime(); // the hold began before deliver returned

        assertThat(first.isFailed()).as("not acknowledged").isTrue();
        Classification c = first.getProperty(PipelineKeys.FAILURE, Classification.class);
        assertThat(c.errorClass()).isEqualTo(ErrorClass.PIPELINE_FAULT);
        assertThat(c.reasonCode()).isEqualTo("expression_failed");
        assertThat(first.getProperty(PipelineKeys.DISPOSITION)).isEqualTo("release");
        assertThat(recorder.recorded).as("no quarantine record").isEmpty();
        assertThat(outcomes.closed).as("its attempt closed, as a route fault: no open attempt, no budget spent")
                .containsExactly("k1=pipeline_fault");
        assertThat(broker.releases).containsEntry("k1", RouteDoubles.ROUTE_FAULT_HOLD);
        assertThat(breaker.routeFault()).as("the consumer held").isPresent();
        assertThat(breaker.routeFault().get().stage()).isEqualTo("parse");
        assertThat(faults() - before).isEqualTo(1.0);
        assertThat(registry().get(PipelineMetrics.PIPELINE_FAULT_HELD).gauge().value()).isEqualTo(1.0);
        assertThat(logs.list).hasSize(1);
        assertThat(logs.list.get(0).getLevel()).isEqualTo(Level.WARN);
        assertThat(logs.list.get(0).getFormattedMessage()).contains("pipeline fault: step parse")
                .contains("expression_failed").contains("does not fix itself").contains("restart");

        // the next delivery waits out the hold at the consumer's entrance, before any work, then probes: the same
        // typo, so it is released too and the hold starts again
        stages.marks.clear();
        CompletableFuture<Exchange> probe = CompletableFuture.supplyAsync(() -> deliver("b.pdf", "k2", 1, 0));
        // looked at halfway through the hold, counted from the fault (the assertions above may take a while on a
        // loaded machine)
        Thread.sleep(Math.max(0, RouteDoubles.ROUTE_FAULT_HOLD.toMillis() / 2
                - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - held)));
        assertThat(probe).as("held").isNotDone();
        assertThat(stages.marks).as("no stage ran while held").isEmpty();
        assertThat(probe.get(10, TimeUnit.SECONDS).isFailed()).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - held)).as("the probe went on once the hold ended")
                .isGreaterThanOrEqualTo(RouteDoubles.ROUTE_FAULT_HOLD.toMillis() - 50);
        assertThat(outcomes.closed).containsExactly("k1=pipeline_fault", "k2=pipeline_fault");
        assertThat(recorder.recorded).isEmpty();
        assertThat(breaker.routeFault()).isPresent();
        assertThat(faults() - before).isEqualTo(2.0);
        assertThat(logs.list).as("one more line for the probe that met the fault").hasSize(2);

        // the document's own failure in the same step (its bean throws before the expression) is the document's:
        // ambiguous_parse, released on its first delivery; and the probe without a route fault ends the hold
        stages.failAt("parse", RouteTestSupport.failure(ErrorClass.AMBIGUOUS_PARSE));
        Exchange own = deliver("c.pdf", "k3", 1, 0);
        assertThat(own.getProperty(PipelineKeys.FAILURE, Classification.class).errorClass())
                .isEqualTo(ErrorClass.AMBIGUOUS_PARSE);
        assertThat(outcomes.closed).endsWith("k3=released");
        assertThat(breaker.routeFault()).as("the hold ended").isEmpty();
        assertThat(registry().get(PipelineMetrics.PIPELINE_FAULT_HELD).gauge().value()).isZero();
        assertThat(logs.list.get(logs.list.size() - 1).getFormattedMessage()).contains("consuming");
    }

    @Test
    void shouldNotChargeTheDeliveriesARouteFaultReleasedToTheDocumentsBudget() {
        awaitNoHold();
        stages.failAt("parse", RouteTestSupport.failure(ErrorClass.AMBIGUOUS_PARSE));
        int last = RouteDoubles.POLICIES.forClass(ErrorClass.AMBIGUOUS_PARSE).maxDeliveries();

        // delivered `last` times, one of them released by a route fault: the document has failed only last - 1
        Exchange charged = deliver("d.pdf", "k4", last, 1);
        assertThat(charged.getProperty(PipelineKeys.DISPOSITION)).isEqualTo("release");
        assertThat(recorder.recorded).isEmpty();

        Exchange spent = deliver("d.pdf", "k4", last + 1, 1);
        assertThat(spent.getProperty(PipelineKeys.DISPOSITION)).isEqualTo("quarantine");
        assertThat(recorder.recorded).extracting(Classification::errorClass).containsExactly(ErrorClass.AMBIGUOUS_PARSE);
        assertThat(spent.isFailed()).as("acknowledged once recorded").isFalse();
    }

    /** Ends a hold an earlier test left: a probe with the document failing before the typo. */
    private void awaitNoHold() {
        if (breaker.routeFault().isPresent()) {
            stages.failAt("parse", RouteTestSupport.failure(ErrorClass.AMBIGUOUS_PARSE));
            deliver("z.pdf", "kz", 1, 0);
            outcomes.closed.clear();
            recorder.recorded.clear();
        }
        assertThat(breaker.routeFault()).isEmpty();
    }

    private Exchange deliver(String docId, String key, int count, int earlierFaults) {
        Exchange exchange = new org.apache.camel.support.DefaultExchange(context);
        exchange.getIn().setBody(RouteTestSupport.message(docId));
        exchange.getIn().setHeader(RouteDoubles.KEY, key);
        exchange.getIn().setHeader(RouteDoubles.COUNT, count);
        exchange.getIn().setHeader(RouteDoubles.PIPELINE_FAULTS, earlierFaults);
        return context.createProducerTemplate().send("direct:ingest", exchange);
    }

    private MeterRegistry registry() {
        return metrics.registry();
    }

    private double faults() {
        return registry().find(PipelineMetrics.PIPELINE_FAULTS).counters().stream().mapToDouble(x -> x.count()).sum();
    }

    /** The shipped routes, the parse step reading the parsed document's page count with a typo after its bean. */
    private static void copyRoutesWithTypo(Path into) {
        try {
            Files.createDirectories(into);
            try (var files = Files.list(Path.of("routes"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".camel.yaml")).toList()) {
                    String text = Files.readString(file);
                    if (file.getFileName().toString().equals("process-document.camel.yaml")) {
                        String step = "              - bean: { ref: parseStage, method: parse }\n";
                        if (!text.contains(step)) {
                            throw new IllegalStateException("the parse step of process-document changed");
                        }
                        text = text.replace(step, step
                                + "              - setProperty: { name: pages, simple: \"${body.pageCont}\" }\n");
                    }
                    Files.writeString(into.resolve(file.getFileName()), text);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
