package org.ingestquarantine.routes;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.spi.Registry;
import org.ingestquarantine.delivery.AttemptInProgressException;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.ClassifyFailure;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.ConsumerDiedException;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.delivery.FailureDisposition;
import org.ingestquarantine.delivery.StageNotifier;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.Rethrow;
import org.ingestquarantine.ingest.ChunkedDocument;
import org.ingestquarantine.ingest.EmbeddedDocument;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.ingest.IndexOutcome;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.ingest.SourceHead;
import org.ingestquarantine.ingest.TextChunk;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.quarantine.QuarantineWriteException;
import org.ingestquarantine.testsupport.ShippedProperties;

/**
 * The beans behind the route files, for the route tests: the real failure policy (classifier, disposition,
 * circuit breaker, budgets from the shipped application.properties) and recording doubles for the broker,
 * the stages, the recorder and the outcomes. A message's delivery count and key come from the headers
 * {@value #COUNT} and {@value #KEY}; the document's stages are scripted by {@link Stages#failAt}.
 */
public final class RouteDoubles implements CamelConfiguration {

    /** Header with the delivery count the broker double reports (default 1). */
    public static final String COUNT = "count";
    /** Header with the delivery key the broker double reports (default "k"). */
    public static final String KEY = "key";
    /** Header with the deaths the guard double reports: 2 or more makes it refuse the delivery. */
    public static final String DEATHS = "deaths";
    /** Header telling the guard double that another attempt stays live: it hands the delivery back. */
    public static final String LIVE = "live";
    /** Key the broker double adds to the record's row where Kafka adds its dead-letter copy. */
    public static final String DEAD_LETTER_COPY = "deadLetterCopy";
    /** Header with the earlier deliveries a route fault released, as the journal reports them (default 0). */
    public static final String PIPELINE_FAULTS = "pipelineFaults";
    /** How long a route fault holds the consumer here (pipeline-fault.hold-ms), short for the tests. */
    public static final Duration ROUTE_FAULT_HOLD = Duration.ofMillis(400);
    /** Header telling the guard double that the live attempt it waited for settled the message. */
    public static final String SETTLED_ELSEWHERE = "settledElsewhere";
    /** Header telling the storm double that the delivery's source is paused: it hands the delivery back. */
    public static final String PAUSED = "paused";
    /** The hand-back of a paused source's delivery here (storm.hand-back-ms). */
    public static final Duration HAND_BACK = Duration.ofSeconds(60);

    static final RedeliveryPolicies POLICIES = ShippedProperties.policies();

    @Override
    public void configure(CamelContext context) {
        Registry r = context.getRegistry();
        Broker broker = new Broker();
        ClassifyFailure classification = new ClassifyFailure(ErrorTaxonomy.standard());
        Stages stages = new Stages();
        r.bind("broker", broker);
        r.bind("brokerAdapter", broker);
        r.bind("classifyFailure", classification);
        r.bind("failureDisposition", new FailureDisposition(POLICIES, classification,
                new org.ingestquarantine.delivery.InFlightAttempts(), null, ROUTE_FAULT_HOLD));
        org.ingestquarantine.metrics.PipelineMetrics metrics = new org.ingestquarantine.metrics.PipelineMetrics(
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                org.ingestquarantine.metrics.SourceTags.of(List.of("docs")));
        r.bind("pipelineMetrics", metrics);
        ConsumerCircuitBreaker breaker = new ConsumerCircuitBreaker(() -> true, classification, Duration.ofMillis(10),
                ROUTE_FAULT_HOLD, metrics);
        EmbeddingService embeddingService = new EmbeddingService();
        breaker.holdFor(EmbeddingService.SETTING, embeddingService.up::get);
        r.bind("consumerCircuitBreaker", breaker);
        r.bind("embeddingService", embeddingService);
        r.bind("rethrow", new Rethrow());
        r.bind("messageReader", new MessageReader(source -> true));
        Outcomes outcomes = new Outcomes();
        r.bind("deliveryGuard", new Guard(broker, outcomes));
        r.bind("stages", stages);
        for (String name : List.of("preflight", "fetcher", "parseStage", "chunkStage", "embedStage", "indexStage")) {
            r.bind(name, stages);
        }
        r.bind("outcomes", outcomes);
        r.bind("failureStorm", new Storm());
        r.bind("quarantineRecorder", new Recorder());
        r.bind("dlqSweeper", new Sweeper());
        // named by the record statement's sql: endpoint, which the route tests mock and skip: never connected
        r.bind("dataSource", new org.postgresql.ds.PGSimpleDataSource());
        r.bind("namedSqlStrategy", new org.ingestquarantine.db.NamedSqlStrategy());
        context.getManagementStrategy().addEventNotifier(new StageNotifier((attemptId, stage) -> stages.marks.add(stage)));
    }

    /** The embedding service as the breaker's probe sees it: up unless a test takes it down. */
    public static final class EmbeddingService {
        /** The property the service's failures name, as the OpenAI-compatible client's do. */
        public static final String SETTING = "embed.openai.url";
        public final AtomicBoolean up = new AtomicBoolean(true);

        /** @return the failure of an embed request to the service while it is down */
        public static RuntimeException refused() {
            return new org.ingestquarantine.failure.ServiceUnreachableException(SETTING,
                    "the embedding service at http://127.0.0.1:9/v1 (" + SETTING + ")", "embed_connection_refused",
                    "the embedding service refused the connection", new java.net.ConnectException(), null);
        }
    }

    /** Broker double: key and count from headers; records every release with its back-off. */
    public static final class Broker implements BrokerAdapter {
        public final Map<String, Duration> releases = new ConcurrentHashMap<>();

        @Override
        public String deliveryKey(Exchange exchange) {
            return exchange.getIn().getHeader(KEY, "k", String.class);
        }

        @Override
        public int deliveryCount(Exchange exchange) {
            return exchange.getIn().getHeader(COUNT, 1, Integer.class);
        }

        @Override
        public void release(Exchange exchange, Duration delay) {
            releases.put(deliveryKey(exchange), delay);
        }

        /** Marks the row, as Kafka adds its copy to it: {@value #DEAD_LETTER_COPY} is true. */
        @Override
        @SuppressWarnings("unchecked")
        public void addDeadLetterCopy(Exchange exchange) {
            exchange.getMessage().getBody(Map.class).put(DEAD_LETTER_COPY, true);
        }
    }

    /**
     * Delivery guard double: no journal; refuses a delivery whose header reports two deaths or more. An admitted
     * delivery gets the real {@link org.ingestquarantine.delivery.AbandonedDelivery}, closing into the outcomes double.
     */
    public static final class Guard {
        private final Broker broker;
        private final Outcomes outcomes;
        public final io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        private final org.ingestquarantine.metrics.PipelineMetrics metrics = new org.ingestquarantine.metrics.PipelineMetrics(
                meters, org.ingestquarantine.metrics.SourceTags.of(java.util.Set.of("docs")));

        Guard(Broker broker, Outcomes outcomes) {
            this.broker = broker;
            this.outcomes = outcomes;
        }

        public void capture(Exchange exchange) {
            exchange.setProperty(PipelineKeys.STAGE, "receive");
            exchange.setProperty(PipelineKeys.DELIVERY_KEY, broker.deliveryKey(exchange));
            exchange.setProperty(PipelineKeys.DELIVERY_COUNT, broker.deliveryCount(exchange));
        }

        public void admit(Exchange exchange) {
            if (exchange.getIn().getHeader(LIVE, false, Boolean.class)) {
                exchange.setProperty(PipelineKeys.BACKOFF, Duration.ofSeconds(5));
                throw new AttemptInProgressException(1);
            }
            if (exchange.getIn().getHeader(SETTLED_ELSEWHERE, false, Boolean.class)) {
                exchange.setProperty(PipelineKeys.SETTLED_ELSEWHERE, Boolean.TRUE);
                return;
            }
            int deaths = exchange.getIn().getHeader(DEATHS, 0, Integer.class);
            if (deaths >= 2) {
                throw new ConsumerDiedException(deaths, "parse");
            }
            exchange.setProperty(PipelineKeys.ATTEMPT_ID, 1L);
            String key = broker.deliveryKey(exchange);
            exchange.getExchangeExtension().addOnCompletion(new org.ingestquarantine.delivery.AbandonedDelivery(1L,
                    (attemptId, outcome) -> outcomes.closed.add(key + "=" + outcome.code()), metrics));
            exchange.setProperty(PipelineKeys.PIPELINE_FAULTS, exchange.getIn().getHeader(PIPELINE_FAULTS, 0, Integer.class));
        }
    }

    /** Every stage bean at once: passes a small document along, or throws where {@link #failAt} says. */
    public static final class Stages {
        public final List<String> marks = new CopyOnWriteArrayList<>();
        public final List<String> bodies = new CopyOnWriteArrayList<>();
        public final List<FetchedDocument> discarded = new CopyOnWriteArrayList<>();
        private volatile String failingStage;
        private volatile RuntimeException failure;
        private volatile boolean current;
        /** Pages of the parsed document ({@link #parse}). */
        public volatile int pages = 1;

        /** @param stage the stage that throws {@code failure} from now on, {@code null} for none */
        public void failAt(String stage, RuntimeException failure) {
            this.failingStage = stage;
            this.failure = failure;
        }

        /** @param current whether the index reports the fetched version as already indexed */
        public void indexHoldsIt(boolean current) {
            this.current = current;
        }

        public void reset() {
            marks.clear();
            bodies.clear();
            discarded.clear();
            failAt(null, null);
            current = false;
            pages = 1;
        }

        private void at(String stage, Object body) {
            bodies.add(stage + ":" + (body == null ? "null" : body.getClass().getSimpleName()));
            if (stage.equals(failingStage)) {
                throw failure;
            }
        }

        /** The trust check passes every message here: its URI as the message named it (the record keeps it). */
        public String admit(IngestMessage message) {
            return message.uri() == null ? null : message.uri().toString();
        }

        public SourceHead check(IngestMessage message) {
            at("preflight", message);
            return new SourceHead(10, null, "v1");
        }

        public FetchedDocument fetch(IngestMessage message) {
            at("fetch", message);
            return new FetchedDocument(Path.of("work-file"), 10, "0".repeat(64), "v1", Instant.EPOCH, "application/pdf");
        }

        public void discard(FetchedDocument fetched) {
            if (fetched != null) {
                discarded.add(fetched);
            }
        }

        public boolean isCurrent(FetchedDocument fetched, org.ingestquarantine.ingest.IndexedVersion indexed) {
            return current;
        }

        public ParsedDocument parse(FetchedDocument fetched) {
            at("parse", fetched);
            return new ParsedDocument(pages, java.util.Collections.nCopies(pages, "text"), List.of(), false, "1.7");
        }

        public ChunkedDocument chunk(ParsedDocument parsed) {
            at("chunk", parsed);
            return new ChunkedDocument(parsed.pageCount(), List.of(new TextChunk(0, "text", 1, 1)));
        }

        public EmbeddedDocument embed(ChunkedDocument chunked) {
            at("embed", chunked);
            return new EmbeddedDocument(chunked.pageCount(), List.of(new EmbeddedDocument.EmbeddedChunk(
                    chunked.chunks().get(0), new float[] {1f})));
        }

        public IndexOutcome index(IngestMessage message, FetchedDocument fetched, Long attemptId,
                                  Boolean openRecord, EmbeddedDocument embedded) {
            at("index", embedded);
            return IndexOutcome.INDEXED;
        }
    }

    /** Outcomes double: the outcome of each delivery key, in order, set on the exchange as the real one sets it. */
    public static final class Outcomes {
        public final List<String> closed = new CopyOnWriteArrayList<>();

        public void indexed(Exchange exchange, IndexOutcome outcome) {
            settle(exchange, outcome.name().toLowerCase());
        }

        public void unchanged(Exchange exchange) {
            settle(exchange, "unchanged");
        }

        public void skipped(Exchange exchange, String reason) {
            closed.add(key(exchange) + "=skipped_by_policy:" + reason);
            exchange.setProperty(PipelineKeys.OUTCOME, "skipped");
        }

        public void quarantined(Exchange exchange) {
            settle(exchange, "quarantined");
        }

        private void settle(Exchange exchange, String outcome) {
            closed.add(key(exchange) + "=" + outcome);
            exchange.setProperty(PipelineKeys.OUTCOME, outcome);
        }

        /**
         * As the real one: a route fault's attempt is closed as pipeline_fault, a paused source's as storm_paused; no
         * budget counts either.
         */
        public void released(Exchange exchange) {
            if (exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class)
                    instanceof org.ingestquarantine.delivery.SourcePausedException) {
                closed.add(key(exchange) + "=storm_paused");
                return;
            }
            Classification c = exchange.getProperty(PipelineKeys.FAILURE, Classification.class);
            closed.add(key(exchange) + (c != null && !c.errorClass().chargedToDocument() ? "=pipeline_fault" : "=released"));
        }

        private static String key(Exchange exchange) {
            return exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class);
        }
    }

    /**
     * Recorder double: gives a row before the statement (or fails, while told to, as the payload store would)
     * and records the classification of each committed record.
     */
    public static final class Recorder {
        public final List<Classification> recorded = new CopyOnWriteArrayList<>();
        public final List<String> stages = new ArrayList<>();
        public final AtomicBoolean failing = new AtomicBoolean();

        public Map<String, Object> evidence(Exchange exchange) {
            if (failing.get()) {
                throw new QuarantineWriteException("the payload store is down", null);
            }
            Map<String, Object> row = new HashMap<>();
            row.put("stage", exchange.getProperty(PipelineKeys.STAGE, String.class));
            return row;
        }

        public void committed(Exchange exchange) {
            recorded.add(exchange.getProperty(PipelineKeys.FAILURE, Classification.class));
            stages.add(exchange.getProperty(PipelineKeys.STAGE, String.class));
        }
    }

    /**
     * Failure-storm breaker double: hands back a delivery whose header says its source is paused, as the real one
     * does ({@link #HAND_BACK}); records the classification of every failure the failure route counts.
     */
    public static final class Storm {
        public final List<Classification> failures = new CopyOnWriteArrayList<>();

        public void admit(Exchange exchange) {
            if (exchange.getIn().getHeader(PAUSED, false, Boolean.class)) {
                exchange.setProperty(PipelineKeys.BACKOFF, HAND_BACK);
                throw new org.ingestquarantine.delivery.SourcePausedException("docs", "0123456789abcdef");
            }
        }

        public void failed(Exchange exchange) {
            failures.add(exchange.getProperty(PipelineKeys.FAILURE, Classification.class));
        }
    }

    /** DLQ sweeper double: counts sweeps. */
    public static final class Sweeper {
        public final List<String> swept = new CopyOnWriteArrayList<>();

        public String sweep(Exchange exchange) {
            swept.add(exchange.getIn().getBody(String.class));
            return "recorded";
        }
    }
}
