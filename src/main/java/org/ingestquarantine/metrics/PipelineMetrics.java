package org.ingestquarantine.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.ingestquarantine.failure.ErrorClass;

/**
 * The pipeline's meters (DESIGN.md §7) and the terminal outcome of every message this process settled.
 *
 * <p>Counters: {@code ingest.quarantined} tagged source, error_class, error_type, parser_version;
 * {@code ingest.processed} tagged source and outcome (indexed, unchanged, stale, quarantined). Tags
 * never carry document text or doc ids.
 */
public final class PipelineMetrics {

    private final MeterRegistry registry;
    private final Map<String, String> outcomes = new ConcurrentHashMap<>();

    /** @param registry where meters are registered */
    public PipelineMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * @param source the document's source
     * @param errorClass its class
     * @param errorType the root exception's type name
     * @param parserVersion the parser version that failed
     */
    public void quarantined(String source, ErrorClass errorClass, String errorType, String parserVersion) {
        Counter.builder("ingest.quarantined").description("documents quarantined")
                .tag("source", source).tag("error_class", errorClass.code())
                .tag("error_type", errorType).tag("parser_version", parserVersion)
                .register(registry).increment();
    }

    /**
     * Records the terminal outcome of one message; a message settled twice keeps its last outcome.
     *
     * @param deliveryKey the broker's identity of the message
     * @param source the document's source
     * @param outcome indexed, unchanged, stale or quarantined
     */
    public void settled(String deliveryKey, String source, String outcome) {
        outcomes.put(deliveryKey, outcome);
        Counter.builder("ingest.processed").description("messages settled, by outcome")
                .tag("source", source).tag("outcome", outcome)
                .register(registry).increment();
    }

    /**
     * @param deliveryKey the broker's identity of a message
     * @return its terminal outcome, or {@code null} while it has none in this process
     */
    public String outcomeOf(String deliveryKey) {
        return outcomes.get(deliveryKey);
    }

    /** @return the registry, for exporters */
    public MeterRegistry registry() {
        return registry;
    }
}
