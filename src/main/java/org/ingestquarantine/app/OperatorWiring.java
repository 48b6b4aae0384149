package org.ingestquarantine.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.delivery.SourcePauses;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceListing;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.metrics.SkippedCoverage;
import org.ingestquarantine.operator.CanaryPolicy;
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.operator.Storms;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.PayloadStores;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.web.ApiLimits;
import org.ingestquarantine.web.OperatorApi;
import org.slf4j.LoggerFactory;

/**
 * The operator API and page beside the consumer, when {@value AppConfiguration#SERVE_OPERATOR_API} is {@code true}:
 * on {@code operator.api-host}:{@code operator.api-port} with {@code operator.api-token} (see {@link OperatorApi}),
 * its canary drains sharing the consumer's parse workers and embedder ({@link CanaryPolicy}).
 */
final class OperatorWiring {

    private OperatorWiring() {
    }

    /** Serves the operator API and page if {@value AppConfiguration#SERVE_OPERATOR_API} says so. */
    static void serveIfAsked(Wiring w, Database database, QuarantineStore store, PayloadStores payloads,
                             SourceAccess sourceAccess, StageWiring.Stages stages, SourceListing listing,
                             SourceTotals totals) {
        Settings settings = w.settings();
        if (!Boolean.parseBoolean(settings.string(AppConfiguration.SERVE_OPERATOR_API, "false"))) {
            return;
        }
        OperatorService service = new OperatorService(database.dataSource(), store, payloads, w.clock(),
                sourceAccess.sourceNames()).boundedTo((int) settings.requiredNumber("operator.unnamed-source-rows"))
                .countingSkipped(SkippedCoverage.of(settings.required(SkippedCoverage.PROPERTY)))
                .withSourceOwners(source -> settings.find("sources." + source + ".owner"));
        // canary drains from the page share the consumer's parse workers and embedder
        Drain canaryDrain = DrainWiring.drain(settings, database, stages.parser(), stages.embedder(),
                w.dataDir().resolve("work")).database(database.dataSource(), store).access(sourceAccess).build();
        OperatorActions actions = new OperatorActions(database.dataSource(),
                new Dispositions(database.dataSource(), store, payloads, w.clock()), w.clock(),
                settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY))
                .withCanaries(() -> canaryDrain, CanaryPolicy.from(settings));
        start(w, new OperatorApi.Backend(service, actions, new OperatorRegisters(database.dataSource()),
                new SourceCounts(service, listing, totals),
                new Storms(new SourcePauses(database.dataSource(), w.clock()))));
    }

    /**
     * Serves the operator API and page beside the consumer on {@code operator.api-host}:{@code operator.api-port},
     * binding the page's URL as {@value AppConfiguration#OPERATOR_PAGE_URL}; without {@code operator.api-token} it
     * serves nothing and logs one line saying so (the consumer runs either way).
     *
     * @throws IllegalStateException if the port cannot be bound
     */
    private static void start(Wiring w, OperatorApi.Backend backend) {
        Settings settings = w.settings();
        Optional<String> token = settings.find("operator.api-token").filter(t -> !t.isBlank());
        if (token.isEmpty()) {
            LoggerFactory.getLogger(AppConfiguration.class).warn("operator API and page not served: operator.api-token"
                    + " is not set (e.g. IQ_JAVA_OPTS=-Doperator.api-token=...)");
            return;
        }
        InetSocketAddress address = new InetSocketAddress(settings.required("operator.api-host"),
                (int) settings.requiredNumber("operator.api-port"));
        try {
            OperatorApi api = OperatorApi.start(address, backend, token.get(),
                    Duration.ofDays(settings.requiredNumber("operator.retention-age-days")), ApiLimits.from(settings));
            w.closeOnStop(api);
            w.bind(AppConfiguration.OPERATOR_PAGE_URL, "http://" + address.getHostString() + ":" + api.port() + "/");
        } catch (IOException e) {
            throw new IllegalStateException("the operator API cannot listen on " + address.getHostString() + ":"
                    + address.getPort() + " (" + e.getMessage() + "); set operator.api-port to a free port");
        }
    }
}
