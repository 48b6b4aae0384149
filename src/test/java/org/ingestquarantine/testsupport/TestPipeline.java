package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.camel.CamelContext;
import org.awaitility.Awaitility;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.delivery.SettledOutcomes;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.scenarios.BrokerFixture;
import org.ingestquarantine.scenarios.SqsFixture;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The real application (embedded PostgreSQL + worker pool) consuming from a real broker
 * ({@link BrokerFixture}; embedded SQS by default, observed from outside by {@link SqsReceiveCounter}),
 * with short back-offs so that a class's whole budget is spent within seconds.
 */
public final class TestPipeline implements AutoCloseable {

    private final PipelineApp app;
    private final CamelContext context;
    private final BrokerFixture broker;
    private final SettledOutcomes settlements;

    private TestPipeline(PipelineApp app, CamelContext context, BrokerFixture broker) throws Exception {
        this.app = app;
        this.context = context;
        this.broker = broker;
        this.settlements = SettledOutcomes.listen(context);
    }

    /**
     * The same observations over an application some other runtime started (the Spring Boot module's tests):
     * settlements are counted from this call on. {@link #app()} is not available; {@link #close()} closes
     * only the broker fixture.
     *
     * @param context the running application's Camel context, wired by {@code app.AppConfiguration}
     * @param broker the broker fixture it was started on ({@link #testProperties} with its properties)
     * @return the pipeline
     * @throws Exception when the outcome listener cannot be added
     */
    public static TestPipeline attach(CamelContext context, BrokerFixture broker) throws Exception {
        return new TestPipeline(null, context, broker);
    }

    /**
     * @param dataDir a fresh folder for this pipeline's database and objects
     * @param extra properties that override the test defaults
     * @return the pipeline started on embedded SQS
     * @throws Exception when it cannot start
     */
    public static TestPipeline start(Path dataDir, Map<String, String> extra) throws Exception {
        return start(dataDir, new SqsFixture(), extra);
    }

    /**
     * @param dataDir a fresh folder for this pipeline's database and objects
     * @param broker the broker to consume from; started here, closed with the pipeline
     * @param extra properties that override the test defaults
     * @return the started pipeline
     * @throws Exception when it cannot start
     */
    public static TestPipeline start(Path dataDir, BrokerFixture broker, Map<String, String> extra) throws Exception {
        Map<String, String> p = new HashMap<>(broker.start());
        p.putAll(testProperties());
        p.putAll(extra);
        try {
            PipelineApp app = PipelineApp.start(broker.profile(), dataDir, p);
            return new TestPipeline(app, app.context(), broker);
        } catch (Exception e) {
            broker.close();
            throw e;
        }
    }

    /**
     * @param dataDir a fresh folder for this pipeline's database and objects
     * @param broker the broker; started here, closed with the pipeline
     * @return the pipeline started with no route consuming: it holds the database, the publisher and (for
     *     the embedded profile) the queue, for consumers in their own JVMs ({@link #startConsumerProcess})
     * @throws Exception when it cannot start
     */
    public static TestPipeline startIdle(Path dataDir, BrokerFixture broker) throws Exception {
        return start(dataDir, broker, Map.of("camel.main.auto-startup", "false"));
    }

    /**
     * Sources the tests publish under ({@code sources.<name>.file-roots}): the shared corpus, the sample set
     * and the temporary folder JUnit's {@code @TempDir} lives in. A test of the trust model configures its
     * own sources in its overrides.
     */
    public static final List<String> TEST_SOURCES = List.of("it", "corpus", "reports", "restart", "kill", "cli", "dlq",
            "bench", "outage", "names", "signals", "aged", "mixed");

    /**
     * @return the folders every test source may read: the corpus, the samples and the JVM's temporary folder
     */
    public static String testRoots() {
        return String.join(",", Corpus.ROOT.toString(), Path.of("samples").toAbsolutePath().toString(),
                Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().toString());
    }

    /** @return short back-offs and one parser worker, so that a class's whole budget is spent within seconds */
    public static Map<String, String> testProperties() {
        Map<String, String> p = new HashMap<>();
        for (String source : TEST_SOURCES) {
            p.put("sources." + source + ".file-roots", testRoots());
        }
        for (String c : new String[] {"transient", "ambiguous_parse", "resource_fatal", "unclassified"}) {
            p.put("failure." + c + ".backoff-initial-ms", "100");
            p.put("failure." + c + ".backoff-max-ms", "200");
        }
        p.put("parse.pool-size", "1");
        p.put("db.probe-interval-ms", "200");
        return p;
    }

    /**
     * Starts the production consumer ({@code run --profile}) in its own JVM on this pipeline's broker and
     * database, with the test defaults; killing it leaves both running here.
     *
     * @param dataDir its data folder
     * @param log where its output goes (appended)
     * @return the started process
     * @throws Exception when it cannot be started
     */
    public ConsumerProcess startConsumerProcess(Path dataDir, Path log) throws Exception {
        Map<String, String> p = externalConsumerProperties(postgres());
        p.putAll(broker.externalConsumerProperties());
        return ConsumerProcess.start(broker.externalProfile(), dataDir, p, Map.of(), log);
    }

    /**
     * @param pg the database a consumer in its own JVM ({@link ConsumerProcess}) is to use
     * @return {@link #testProperties()} with that database (external) and this project's routes and broker
     *     configurations; a mutable map for the test's own additions (the broker's address)
     */
    public static Map<String, String> externalConsumerProperties(EmbeddedPostgresService pg) {
        Map<String, String> p = new HashMap<>(testProperties());
        p.put("db.mode", "external");
        p.put("db.url", pg.jdbcUrl());
        p.put("db.user", pg.user());
        p.put("db.password", pg.password());
        p.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        return p;
    }

    /**
     * @return the application
     * @throws IllegalStateException when this pipeline was {@linkplain #attach attached} to another runtime's
     */
    public PipelineApp app() {
        if (app == null) {
            throw new IllegalStateException("not a Camel Main pipeline; use bean(name, type)");
        }
        return app;
    }

    /**
     * @param name a bean name bound by {@code app.AppConfiguration}
     * @param type its type
     * @param <T> its type
     * @return the bean
     * @throws IllegalStateException when no such bean is bound
     */
    public <T> T bean(String name, Class<T> type) {
        T bean = context.getRegistry().lookupByNameAndType(name, type);
        if (bean == null) {
            throw new IllegalStateException("no bean '" + name + "' of type " + type.getSimpleName());
        }
        return bean;
    }

    /** @return the broker and its outside observers */
    public BrokerFixture broker() {
        return broker;
    }

    /** @return the quarantine store */
    public QuarantineStore store() {
        return bean("quarantineStore", QuarantineStore.class);
    }

    /** @return the embedded PostgreSQL server, to stop and start it mid-run */
    public EmbeddedPostgresService postgres() {
        return bean("embeddedPostgres", EmbeddedPostgresService.class);
    }

    /** @return the application's connection pool, for reading the tables */
    public DataSource dataSource() {
        return bean("database", Database.class).dataSource();
    }

    /** @return how many times any message was settled (every outcome counted), in this process */
    public long settlements() {
        return settlements.count();
    }

    /**
     * @param deliveryKey a published message
     * @return its outcome if it settled in this process, else {@code null}
     */
    public String outcomeOf(String deliveryKey) {
        return settlements.outcomeOf(deliveryKey);
    }

    /**
     * @param queue a queue name, e.g. {@code ingest-dlq}
     * @return messages on it: visible, in flight and delayed
     */
    public long depth(String queue) {
        SqsClient sqs = bean("sqsClient", SqsClient.class);
        String url = sqs.getQueueUrl(b -> b.queueName(queue)).queueUrl();
        var attributes = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)).attributes();
        return attributes.values().stream().mapToLong(Long::parseLong).sum();
    }

    /**
     * @param message a message
     * @return its delivery key
     */
    public String publish(IngestMessage message) {
        return bean("ingestPublisher", IngestPublisher.class).publish(message);
    }

    /**
     * @param source source name
     * @param docId document id
     * @param file the file it names
     * @return the delivery key
     */
    public String publishFile(String source, String docId, Path file) {
        return publish(new IngestMessage(source, docId, file.toAbsolutePath().toUri(), null, null, null));
    }

    /**
     * @param deliveryKey a published message
     * @param timeout how long to wait
     * @return its terminal outcome
     */
    public String awaitOutcome(String deliveryKey, Duration timeout) {
        Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(50))
                .until(() -> settlements.outcomeOf(deliveryKey) != null);
        return settlements.outcomeOf(deliveryKey);
    }

    /**
     * @param deliveryKey a delivery key such as {@code sqs:<id>}
     * @return ReceiveMessage responses that carried it, counted outside the pipeline
     */
    public int deliveries(String deliveryKey) {
        return broker.deliveries(deliveryKey);
    }

    /**
     * Asserts that a message was delivered exactly its class's {@code retries + 1} times (counted outside
     * the pipeline), then recorded once: one quarantine row, attempts 1, one history row whose delivery
     * count is that same number.
     *
     * @param key the message's delivery key
     * @param source the record's source
     * @param docId the record's doc id
     * @param errorClass the expected class
     * @param reason the expected reason code, or {@code null} to accept any
     * @return the record
     */
    public QuarantineRecord assertQuarantinedOnce(String key, String source, String docId, ErrorClass errorClass,
                                                  String reason) {
        int expected = bean("redeliveryPolicies", RedeliveryPolicies.class).forClass(errorClass).maxDeliveries();
        assertThat(deliveries(key)).as("deliveries of %s (%s)", docId, errorClass).isEqualTo(expected);
        QuarantineRecord record = store().find(source, docId).orElseThrow();
        assertThat(record.errorClass()).isEqualTo(errorClass);
        if (reason != null) {
            assertThat(record.reasonCode()).isEqualTo(reason);
        }
        assertThat(record.quarantineWrites()).isEqualTo(1);
        List<QuarantineAttempt> history = store().attempts(record.dlqId());
        assertThat(history).hasSize(1);
        assertThat(history.get(0).deliveryCount()).isEqualTo(expected);
        return record;
    }

    /**
     * Asserts that a record's payload is {@code expected}, byte for byte, under its SHA-256 and length.
     *
     * @param r a quarantine record
     * @param expected the bytes it must keep
     * @throws Exception when the payload cannot be read
     */
    public static void assertPayload(QuarantineRecord r, byte[] expected) throws Exception {
        assertThat(r.payloadSha256()).isEqualTo(java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(expected)));
        assertThat(r.payloadBytes()).isEqualTo((long) expected.length);
        assertThat(java.nio.file.Files.readAllBytes(Path.of(java.net.URI.create(r.payloadUri())))).isEqualTo(expected);
    }

    @Override
    public void close() throws Exception {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            broker.close();
        }
    }
}
