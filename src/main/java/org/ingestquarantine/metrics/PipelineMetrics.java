package org.ingestquarantine.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.ingestquarantine.failure.ErrorClass;

/**
 * The pipeline's counters (DESIGN.md §7), each incremented only once the outcome it counts is committed.
 * Tags never carry document text or doc ids, only bounded names: sources (configured ones, {@link SourceTags}),
 * classes, reason codes, versions and content types.
 *
 * <ul>
 *   <li>{@value #QUARANTINED} {source, error_class, reason, parser_version}: quarantine records committed;</li>
 *   <li>{@value #DOWNSTREAM_CONTRACT} {source, reason, parser_version}: the downstream_contract ones among
 *       them again, a counter of their own to alert on;</li>
 *   <li>{@value #PROCESSED} and {@value #FAILED} {source, content_type}: deliveries settled (indexed,
 *       unchanged, stale or quarantined) and, of those, quarantined. Both are registered together, so every
 *       failure rate {@code failed / processed} has its own population as denominator (zero failures is 0,
 *       not a missing series). A skip by policy is settled: counted in {@value #PROCESSED}, not in
 *       {@value #FAILED};</li>
 *   <li>{@value #SKIPPED} {source, content_type, reason}: deliveries settled as skipped by policy, by the route's
 *       reason (a short label a route author chose, {@code delivery.PolicySkips});</li>
 *   <li>{@value #ABANDONED} {source, stage}: deliveries that ended without an outcome (a route's {@code stop}),
 *       their attempts closed as abandoned; not settled, so not in {@value #PROCESSED}. Any is a route bug.</li>
 *   <li>{@value #PIPELINE_FAULTS} {stage, reason}: deliveries released because a route of ours failed, not the
 *       document ({@code pipeline_fault}); the stage is a step id of the route files, the reason a taxonomy code;</li>
 *   <li>{@value #PIPELINE_FAULT_HELD}: 1 while such a fault holds the consumer, else 0 (registered at start);</li>
 *   <li>{@value #STORM_PAUSED} {source}: 1 while the failure-storm breaker has the source paused, as this process
 *       last read the pauses, else 0 (registered at start for every configured source);</li>
 *   <li>{@value #STORM_HELD_BACK} {source}: deliveries of a paused source handed back unworked or held.</li>
 * </ul>
 */
public final class PipelineMetrics {

    /** Counter of committed quarantine records. */
    public static final String QUARANTINED = "ingest.quarantined";
    /** Counter of committed downstream_contract quarantine records. */
    public static final String DOWNSTREAM_CONTRACT = "ingest.downstream_contract";
    /** Counter of settled deliveries. */
    public static final String PROCESSED = "ingest.processed";
    /** Counter of settled deliveries whose outcome is a quarantine record. */
    public static final String FAILED = "ingest.failed";
    /** Counter of deliveries settled as skipped by a route's policy. */
    public static final String SKIPPED = "ingest.skipped";
    /** Counter of deliveries that ended without an outcome, their attempts closed as abandoned. */
    public static final String ABANDONED = "ingest.abandoned";
    /** Counter of deliveries released for a fault of our own route. */
    public static final String PIPELINE_FAULTS = "ingest.pipeline_faults";
    /** Gauge: 1 while a route fault holds the consumer. */
    public static final String PIPELINE_FAULT_HELD = "ingest.pipeline_fault.held";
    /** Gauge: 1 while the failure-storm breaker has the source paused. */
    public static final String STORM_PAUSED = "ingest.storm.paused";
    /** Counter of deliveries of a paused source handed back unworked or held. */
    public static final String STORM_HELD_BACK = "ingest.storm.held_back";
    /** Content type tag of a delivery whose document was never fetched (e.g. an invalid message). */
    public static final String UNKNOWN_CONTENT_TYPE = "unknown";

    private final MeterRegistry registry;
    private final SourceTags sources;
    private final java.util.concurrent.atomic.AtomicInteger faultHeld = new java.util.concurrent.atomic.AtomicInteger();
    /** {@value #STORM_PAUSED} of each source tag. */
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> stormPaused =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param registry where meters are registered (the application's one {@code metricsRegistry})
     * @param sources the source tag each source is counted under
     */
    public PipelineMetrics(MeterRegistry registry, SourceTags sources) {
        this.registry = registry;
        this.sources = java.util.Objects.requireNonNull(sources, "sources");
        io.micrometer.core.instrument.Gauge.builder(PIPELINE_FAULT_HELD, faultHeld, java.util.concurrent.atomic.AtomicInteger::get)
                .description("1 while a fault of our own route holds the consumer").register(registry);
        // a series per configured source from the start: 0 is a reading, absence is none
        sources.configured().forEach(source -> stormPausedOf(source));
    }

    /**
     * @param source a source
     * @param paused whether the failure-storm breaker has it paused now
     */
    public void stormPaused(String source, boolean paused) {
        stormPausedOf(source).set(paused ? 1 : 0);
    }

    /**
     * Counts one delivery of a paused source handed back unworked, or held.
     *
     * @param source its source
     */
    public void stormHeldBack(String source) {
        Counter.builder(STORM_HELD_BACK).description("deliveries of a source paused by the failure-storm breaker,"
                + " handed back unworked or held").tag("source", sources.tag(source)).register(registry).increment();
    }

    private java.util.concurrent.atomic.AtomicInteger stormPausedOf(String source) {
        return stormPaused.computeIfAbsent(sources.tag(source), tag -> {
            java.util.concurrent.atomic.AtomicInteger value = new java.util.concurrent.atomic.AtomicInteger();
            io.micrometer.core.instrument.Gauge.builder(STORM_PAUSED, value,
                            java.util.concurrent.atomic.AtomicInteger::get)
                    .description("1 while the failure-storm breaker has the source paused").tag("source", tag)
                    .register(registry);
            return value;
        });
    }

    /**
     * Counts one delivery released because a route of ours failed.
     *
     * @param stage the step it failed in ({@code iqStage}: {@code receive} or a step id of the route files)
     * @param reason the classification's reason code, e.g. {@code expression_failed}
     */
    public void pipelineFault(String stage, String reason) {
        Counter.builder(PIPELINE_FAULTS).description("deliveries released for a fault of our own route")
                .tag("stage", stage == null ? "unknown" : stage).tag("reason", reason).register(registry).increment();
    }

    /** @param held whether a route fault holds the consumer now */
    public void pipelineFaultHeld(boolean held) {
        faultHeld.set(held ? 1 : 0);
    }

    /**
     * Counts one committed quarantine record; call only after its statement committed.
     *
     * @param source the document's source
     * @param errorClass its class
     * @param reason the classification's reason code
     * @param parserVersion the parser version that failed
     */
    public void quarantined(String source, ErrorClass errorClass, String reason, String parserVersion) {
        String tag = sources.tag(source);
        Counter.builder(QUARANTINED).description("quarantine records committed")
                .tag("source", tag).tag("error_class", errorClass.code())
                .tag("reason", reason).tag("parser_version", parserVersion)
                .register(registry).increment();
        if (errorClass == ErrorClass.DOWNSTREAM_CONTRACT) {
            Counter.builder(DOWNSTREAM_CONTRACT).description("downstream_contract quarantine records committed")
                    .tag("source", tag).tag("reason", reason).tag("parser_version", parserVersion)
                    .register(registry).increment();
        }
    }

    /**
     * Counts one settled delivery.
     *
     * @param source the document's source
     * @param contentType the fetched document's type, or {@code null} when nothing was fetched
     * @param failed whether its outcome is a quarantine record
     */
    public void settled(String source, String contentType, boolean failed) {
        String type = contentType == null ? UNKNOWN_CONTENT_TYPE : contentType;
        String tag = sources.tag(source);
        Counter.builder(PROCESSED).description("deliveries settled (indexed, unchanged, stale, skipped or quarantined)")
                .tag("source", tag).tag("content_type", type).register(registry).increment();
        Counter.builder(FAILED).description("deliveries settled as quarantined")
                .tag("source", tag).tag("content_type", type).register(registry).increment(failed ? 1 : 0);
    }

    /**
     * Counts one delivery skipped by policy (also settled: call {@link #settled} as well).
     *
     * @param source the document's source
     * @param contentType the fetched document's type, or {@code null} when nothing was fetched
     * @param reason the route's reason label
     */
    public void skipped(String source, String contentType, String reason) {
        Counter.builder(SKIPPED).description("deliveries settled as skipped by a route's policy")
                .tag("source", sources.tag(source)).tag("content_type", contentType == null ? UNKNOWN_CONTENT_TYPE
                        : contentType).tag("reason", reason).register(registry).increment();
    }

    /**
     * Counts one delivery that ended without an outcome.
     *
     * @param source the document's source
     * @param stage the stage its attempt was in (a step id of {@code process-document}, or {@code receive})
     */
    public void abandoned(String source, String stage) {
        Counter.builder(ABANDONED).description("deliveries that ended without an outcome (closed as abandoned)")
                .tag("source", sources.tag(source)).tag("stage", stage == null ? "receive" : stage)
                .register(registry).increment();
    }

    /** @return the registry */
    public MeterRegistry registry() {
        return registry;
    }
}
