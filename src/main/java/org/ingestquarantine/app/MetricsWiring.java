package org.ingestquarantine.app;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.ScrapeEndpoint;
import org.ingestquarantine.metrics.SkippedCoverage;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.metrics.StoreGauges;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.QuarantineQueries;

/**
 * The one meter registry, bound as {@value MicrometerConstants#METRICS_REGISTRY_NAME} where camel-micrometer
 * (and Camel Main's {@code camel.metrics.*}) finds it, the store gauges ({@code metrics.store-poll-ms},
 * {@code metrics.new-fingerprint-window-ms}, {@code operator.retention-age-days}: {@link StoreGauges}) and the scrape
 * endpoint on {@code management.host}:{@code management.port} (0 = any free port), whose URL is bound as
 * {@value AppConfiguration#SCRAPE_URL} (unless {@value AppConfiguration#SERVE_METRICS} is {@code false}: then
 * neither).
 */
final class MetricsWiring {

    private MetricsWiring() {
    }

    /**
     * @param sourceTags the sources metric tags may name
     * @return the pipeline's meters, in the one registry
     */
    static PipelineMetrics start(Wiring w, Database database, SourceTags sourceTags) throws Exception {
        return new PipelineMetrics(w.timeline().time("metrics", () -> registry(w, database, sourceTags)), sourceTags);
    }

    private static PrometheusMeterRegistry registry(Wiring w, Database database, SourceTags sourceTags)
            throws IOException {
        Settings settings = w.settings();
        PrometheusMeterRegistry meters = w.registry().lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME,
                PrometheusMeterRegistry.class);
        if (meters == null) {
            meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            w.bind(MicrometerConstants.METRICS_REGISTRY_NAME, meters);
        }
        w.closeOnStop(StoreGauges.start(database.dataSource(), sourceTags, meters, new StoreGauges.Windows(
                settings.requiredMillis("metrics.store-poll-ms"),
                settings.requiredMillis("metrics.new-fingerprint-window-ms"),
                Duration.ofDays(settings.requiredNumber("operator.retention-age-days"))),
                new QuarantineQueries(database.dataSource(),
                        SkippedCoverage.of(settings.required(SkippedCoverage.PROPERTY))), w.clock()));
        if (Boolean.parseBoolean(settings.string(AppConfiguration.SERVE_METRICS, "true"))) {
            ScrapeEndpoint endpoint = ScrapeEndpoint.start(meters, settings.required("management.host"),
                    (int) settings.requiredNumber("management.port"));
            w.closeOnStop(endpoint);
            w.bind(AppConfiguration.SCRAPE_URL, endpoint.url().toString());
        }
        return meters;
    }
}
