package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.delivery.ClassifyFailure;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.pipeline.Settings;
import org.junit.jupiter.api.Test;

/**
 * Ensures the pipeline's checks are Camel health checks that Camel's own registry finds among the beans (as under
 * Camel Main and Spring Boot), and that each says what its service's state is.
 */
class PipelineHealthChecksTest {

    @Test
    void shouldBeFoundByCamelsHealthCheckRegistryAndReportEachState() throws Exception {
        String setting = "embed.openai.url";
        ConsumerCircuitBreaker breaker = new ConsumerCircuitBreaker(() -> true,
                new ClassifyFailure(ErrorTaxonomy.standard()), Duration.ofMillis(10), Duration.ofSeconds(30),
                new PipelineMetrics(new SimpleMeterRegistry(), SourceTags.of(List.of("docs"))));
        breaker.holdFor(setting, () -> false);
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/none");
        pool.setInitializationFailTimeout(-1);
        pool.setConnectionTimeout(250);
        try (CamelContext context = new DefaultCamelContext();
             DocumentParser parser = new InProcessPdfParser(ParseLimits.defaults())) {
            Wiring w = new Wiring(context, new Settings(k -> java.util.Optional.empty()), context.getRegistry(),
                    new ArrayDeque<>(), Path.of("data"), new StartupTimeline(), Clock.systemUTC());
            PipelineHealthChecks.bind(w, Database.over(pool), breaker, parser);
            context.start();

            assertThat(states(context)).containsEntry("database", HealthCheck.State.DOWN)
                    .containsEntry("consumer-circuit", HealthCheck.State.UP)
                    .containsEntry("parser-pool", HealthCheck.State.UP);

            DefaultExchange failed = new DefaultExchange(context);
            failed.setException(new ServiceUnreachableException(setting, "the embedding service", "unreachable",
                    "refused", null, null));
            breaker.onFailure(failed);
            assertThat(states(context)).containsEntry("consumer-circuit", HealthCheck.State.DOWN);
        } finally {
            pool.close();
        }
    }

    private static Map<String, HealthCheck.State> states(CamelContext context) {
        return HealthCheckHelper.invoke(context, c -> Map.of(), c -> false, "full").stream()
                .filter(r -> PipelineHealthChecks.GROUP.equals(r.getCheck().getGroup()))
                .collect(Collectors.toMap(r -> r.getCheck().getId(), HealthCheck.Result::getState));
    }
}
