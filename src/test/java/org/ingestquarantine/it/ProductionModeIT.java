package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.scenarios.KafkaFixture;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.FolderHttpServer;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.RabbitMqAppLock;
import org.ingestquarantine.testsupport.RabbitMqBroker;
import org.ingestquarantine.testsupport.S3Server;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectVersion;

/**
 * Production mode as a team runs it: three {@code run} processes on separate data folders with no folder in common,
 * one PostgreSQL, one RabbitMQ queue, payloads and traces in S3, documents from S3 and from HTTP; an operator on a
 * fourth data folder asks and acts. Proves across processes what {@code ingest <folder>} proves on one machine: a
 * consumer killed with SIGKILL mid-document costs one death and its document ends once on another; every message
 * ends in exactly one outcome; {@code show} and {@code reproduce} find a payload another process stored; a drain
 * re-fetches from S3 (a replaced object: {@code repaired_content_changed}; a deleted one: {@code deleted_at_source});
 * {@code erase} leaves no byte of the document in S3, in any data folder or in any table; {@code expire-payloads}
 * deletes the S3 object.
 */
class ProductionModeIT {

    private static final Duration WAIT = Duration.ofMinutes(4);
    private static final Duration COMMAND_LIMIT = Duration.ofMinutes(3);
    private static final int CONSUMERS = 3;

    @TempDir
    Path tmp;

    @Test
    void threeRabbitMqConsumersAndAnOperatorShareOneDatabaseOneQueueAndOneObjectStore() throws Exception {
        try (RabbitTransport rabbit = new RabbitTransport("iq-prod-" + ProcessHandle.current().pid())) {
            scenario(rabbit);
        }
    }

    @Test
    void threeKafkaConsumersOfOneGroupAndAnOperatorShareOneDatabaseAndOneObjectStore() throws Exception {
        try (KafkaTransport kafka = new KafkaTransport()) {
            scenario(kafka);
        }
    }

    private void scenario(Transport transport) throws Exception {
        Path log = Files.createDirectories(Path.of("target")).resolve("production-mode-it-" + transport.profile() + ".log")
                .toAbsolutePath();
        Files.deleteIfExists(log);
        S3Server s3server = S3Server.shared();
        String payloads = s3server.createBucket("payloads");
        String docs = s3server.createVersionedBucket("documents");
        Path web = Files.createDirectories(tmp.resolve("web"));
        Files.copy(Corpus.file("c0048.pdf"), web.resolve("a.pdf"));
        Files.copy(Corpus.file("c0098.pdf"), web.resolve("b.pdf")); // ambiguous_parse
        String marker = "MARKER-" + UUID.randomUUID();
        List<ConsumerProcess> consumers = new ArrayList<>();
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password());
             FolderHttpServer http = FolderHttpServer.serve(web);
             S3Client s3 = s3server.client()) {
            put(s3, docs, "docs/good1.pdf", Files.readAllBytes(Corpus.file("c0007.pdf")));
            put(s3, docs, "docs/good2.pdf", Files.readAllBytes(Corpus.file("c0004.pdf")));
            put(s3, docs, "docs/fixme.pdf", Files.readAllBytes(Corpus.file("c0069.pdf"))); // ambiguous_parse
            put(s3, docs, "docs/gone.pdf", Files.readAllBytes(Corpus.file("c0084.pdf")));  // ambiguous_parse
            put(s3, docs, "docs/marker.pdf", ("not a PDF at all: " + marker).getBytes(StandardCharsets.US_ASCII));
            put(s3, docs, "docs/long.pdf", Files.readAllBytes(LongPdf.write(tmp.resolve("long.pdf"), 600)));

            Map<String, String> props = new HashMap<>(s3server.properties());
            props.putAll(transport.start());
            props.put("db.mode", "external");
            props.put("db.url", pg.jdbcUrl());
            props.put("db.user", pg.user());
            props.put("db.password", pg.password());
            props.put("payload.store", "s3");
            props.put("payload.s3.bucket", payloads);
            props.put("sources.s3docs.s3-allow", docs + "/docs/");
            props.put("sources.web.http-allow", http.base().toString());
            props.put("sources.web.http-allow-private", "true");
            props.put("parse.pool-size", "1");
            props.put("failure.ambiguous_parse.backoff-initial-ms", "200");
            props.put("failure.ambiguous_parse.backoff-max-ms", "200");
            props.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
            props.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
            List<Path> dataDirs = new ArrayList<>();
            for (int i = 0; i < CONSUMERS; i++) {
                Path data = Files.createDirectories(tmp.resolve("consumer-" + i));
                dataDirs.add(data);
                consumers.add(ConsumerProcess.start(transport.profile(), data, props, Map.of(), log));
            }
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> transport.listening(CONSUMERS));

            // kill -9 the consumer that works on the long document: one death, and the document ends once elsewhere
            transport.publish("s3docs", "long.pdf", URI.create("s3://" + docs + "/docs/long.pdf"));
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> workingOwner(db, "long.pdf") != null);
            long pid = Long.parseLong(workingOwner(db, "long.pdf").split("/")[1]);
            ConsumerProcess victim = consumers.stream().filter(c -> c.pid() == pid).findFirst().orElseThrow();
            victim.kill9();
            consumers.remove(victim);

            for (String name : List.of("good1.pdf", "good2.pdf", "fixme.pdf", "gone.pdf", "marker.pdf")) {
                transport.publish("s3docs", name, URI.create("s3://" + docs + "/docs/" + name));
            }
            transport.publish("web", "a.pdf", http.uri("a.pdf"));
            transport.publish("web", "b.pdf", http.uri("b.pdf"));
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> searchable(db) == 4 && openRecords(db) == 4);
            // every message in exactly one outcome: no document both searchable and open, none without either
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM documents d JOIN quarantine q"
                    + " ON q.source = d.source AND q.doc_id = d.doc_id AND q.disposition = 'open' WHERE d.state = 'searchable'"))
                    .isZero();
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine WHERE doc_id = 'long.pdf'")).isZero();
            // the killed attempt is the one death: two attempts of the long document, the first never closed
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE doc_id = 'long.pdf'"))
                    .isEqualTo(2);
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE doc_id = 'long.pdf'"
                    + " AND closed_at IS NULL")).isEqualTo(1);
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE doc_id = 'long.pdf'"
                    + " AND outcome = 'indexed'")).isEqualTo(1);
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"
                    + " AND doc_id <> 'long.pdf'")).isZero();

            // an operator on a fourth data folder, which no consumer ever wrote
            Path operatorDir = Files.createDirectories(tmp.resolve("operator"));
            Operator operator = new Operator(transport.profile(), operatorDir, props, log);
            // coverage of a run-fed S3 source: its total by listing the bucket under s3-allow (6 objects, 3 indexed)
            operator.ok("sources", "count", "s3docs");
            assertThat(operator.ok("coverage", "--json")).contains("\"source\":\"s3docs\"");
            assertThat(operator.ok("coverage")).containsPattern("s3docs\\s+6\\s.*50\\.0%");
            String shown = operator.ok("show", "s3docs/fixme.pdf");
            assertThat(shown).contains("s3://" + payloads + "/").doesNotContain("MISSING");
            assertThat(operator.ok("reproduce", "s3docs/fixme.pdf")).contains("same failure");

            // the source changes: one object gets good bytes (a new version), one is deleted; a drain re-fetches
            put(s3, docs, "docs/fixme.pdf", Files.readAllBytes(Corpus.file("c0048.pdf")));
            s3.deleteObject(b -> b.bucket(docs).key("docs/gone.pdf"));
            for (String fingerprint : fingerprints(db, "fixme.pdf", "gone.pdf")) {
                operator.ok("drain", "--fingerprint", fingerprint, "--limit", "10", "--rate", "20");
            }
            assertThat(disposition(db, "fixme.pdf")).isEqualTo("repaired_content_changed");
            assertThat(disposition(db, "gone.pdf")).isEqualTo("deleted_at_source");

            // erase: no byte of the document anywhere, whichever process stored it
            operator.ok("erase", "--source", "s3docs", "--doc-id", "marker.pdf");
            assertThat(disposition(db, "marker.pdf")).isEqualTo("erased");
            assertThat(objectsHolding(s3, marker, payloads, docs)).as("S3 objects (every version)").isEmpty();
            List<Path> everyFolder = new ArrayList<>(dataDirs);
            everyFolder.add(operatorDir);
            assertThat(filesHolding(everyFolder, marker)).as("files in the data folders").isEmpty();
            assertThat(tablesHolding(db, marker)).as("tables").isEmpty();

            // expire-payloads deletes the S3 objects of records last seen before the age
            String payloadUri = payloadUri(db, "b.pdf");
            assertThat(payloadUri).startsWith("s3://" + payloads + "/");
            Thread.sleep(1_500);
            operator.ok("expire-payloads", "--older-than", "1s");
            String key = URI.create(payloadUri).getPath().substring(1);
            assertThat(s3.listObjectVersions(b -> b.bucket(payloads).prefix(key)).versions()).isEmpty();

            for (ConsumerProcess c : consumers) {
                assertThat(c.terminate()).as("exit code after SIGTERM").isZero();
            }
        } finally {
            for (ConsumerProcess c : consumers) {
                c.close();
            }
        }
    }

    /** Operator commands as separate JVMs on their own data folder, with the consumers' settings. */
    private record Operator(String profile, Path dataDir, Map<String, String> props, Path log) {

        String ok(String... args) throws Exception {
            Path out = Files.createTempFile(dataDir, "command-", ".out");
            List<String> command = new ArrayList<>(List.of(args));
            command.addAll(List.of("--profile", profile, "--data-dir", dataDir.toString()));
            try (ConsumerProcess p = ConsumerProcess.command(command, props, Map.of(), out)) {
                int code = p.awaitExit(COMMAND_LIMIT);
                String output = Files.readString(out);
                Files.writeString(log, "\n$ " + String.join(" ", args) + "\n" + output,
                        java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.CREATE);
                assertThat(code).as(String.join(" ", args) + " exit code; output:\n" + output).isZero();
                return output;
            } finally {
                Files.deleteIfExists(out);
            }
        }
    }

    private static void put(S3Client s3, String bucket, String key, byte[] bytes) {
        s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
    }

    private static String workingOwner(Database db, String docId) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT owner FROM attempt_journal WHERE doc_id = ?"
                     + " AND closed_at IS NULL AND stage IN ('parse', 'chunk', 'embed')")) {
            s.setString(1, docId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    private static long searchable(Database db) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM documents WHERE state = 'searchable'");
    }

    private static long openRecords(Database db) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine WHERE disposition = 'open'");
    }

    private static List<String> fingerprints(Database db, String... docIds) throws Exception {
        List<String> found = new ArrayList<>();
        try (java.sql.Connection c = db.dataSource().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT DISTINCT error_fingerprint FROM quarantine"
                     + " WHERE doc_id = ANY (?)")) {
            s.setArray(1, c.createArrayOf("text", docIds));
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    found.add(r.getString(1));
                }
            }
        }
        return found;
    }

    private static String disposition(Database db, String docId) throws Exception {
        return column(db, "disposition", docId);
    }

    private static String payloadUri(Database db, String docId) throws Exception {
        return column(db, "payload_uri", docId);
    }

    private static String column(Database db, String column, String docId) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT " + column + " FROM quarantine WHERE doc_id = ?")) {
            s.setString(1, docId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    /** @return the buckets' objects, every version, whose bytes hold {@code marker} */
    private static List<String> objectsHolding(S3Client s3, String marker, String... buckets) {
        List<String> found = new ArrayList<>();
        for (String bucket : buckets) {
            for (ObjectVersion v : s3.listObjectVersionsPaginator(b -> b.bucket(bucket)).versions()) {
                if (bucket.equals(buckets[buckets.length - 1]) && v.key().equals("docs/marker.pdf")) {
                    continue; // the source's own object is the producer's to delete, not ours
                }
                byte[] bytes = s3.getObjectAsBytes(b -> b.bucket(bucket).key(v.key()).versionId(v.versionId())).asByteArray();
                if (new String(bytes, StandardCharsets.ISO_8859_1).contains(marker)) {
                    found.add("s3://" + bucket + "/" + v.key() + "?versionId=" + v.versionId());
                }
            }
        }
        return found;
    }

    private static List<Path> filesHolding(List<Path> folders, String marker) throws Exception {
        List<Path> found = new ArrayList<>();
        for (Path folder : folders) {
            try (Stream<Path> walk = Files.walk(folder)) {
                for (Path f : walk.filter(Files::isRegularFile).toList()) {
                    if (Files.size(f) < 64L << 20
                            && new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(marker)) {
                        found.add(f);
                    }
                }
            } catch (java.io.UncheckedIOException e) {
                // a work file deleted while walking
            }
        }
        return found;
    }

    /** @return the tables of the schema with a row whose text holds {@code marker} */
    private static List<String> tablesHolding(Database db, String marker) throws Exception {
        List<String> tables = new ArrayList<>();
        try (java.sql.Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")) {
            while (r.next()) {
                tables.add(r.getString(1));
            }
        }
        List<String> found = new ArrayList<>();
        for (String t : tables) {
            if (SqlCount.of(db.dataSource(), "SELECT count(*) FROM \"" + t + "\" t WHERE t::text LIKE ?", "%" + marker + "%") > 0) {
                found.add(t);
            }
        }
        return found;
    }

    /** How messages reach the three consumers: the profile, its settings, publishing, and when all listen. */
    private interface Transport extends AutoCloseable {

        String profile();

        Map<String, String> start() throws Exception;

        void publish(String source, String docId, URI uri) throws Exception;

        /** @return whether every one of {@code processes} consumer processes takes part */
        boolean listening(int processes) throws Exception;
    }

    /** RabbitMQ on a vhost of the test's own (competing consumers on one quorum queue). */
    private static final class RabbitTransport implements Transport {

        /** The profile's concurrent consumers per process ({@code ingest.from-uri} of application-rabbitmq.properties). */
        private static final int LISTENERS_PER_PROCESS = 2;
        private final String vhost;
        private Connection amqp;
        private Channel channel;
        private AutoCloseable share;

        RabbitTransport(String vhost) {
            this.vhost = vhost;
        }

        @Override
        public String profile() {
            return "rabbitmq";
        }

        @Override
        public Map<String, String> start() throws Exception {
            share = RabbitMqAppLock.share();
            RabbitMqBroker.ensureRunning();
            RabbitMqBroker.freshVhost(vhost);
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(uri());
            amqp = f.newConnection("production-mode-it");
            channel = amqp.createChannel();
            return Map.of("rabbitmq.uri", uri());
        }

        private String uri() {
            return "amqp://guest:guest@127.0.0.1:5672/" + vhost;
        }

        @Override
        public void publish(String source, String docId, URI uri) throws Exception {
            String body = new IngestMessage(source, docId, uri, null, null, null).toJson();
            channel.basicPublish("ingest", "ingest", new AMQP.BasicProperties.Builder().messageId(source + "/" + docId)
                    .deliveryMode(2).contentType("application/json").build(), body.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public boolean listening(int processes) {
            try (Channel ch = amqp.createChannel()) {
                return ch.consumerCount("ingest") >= (long) processes * LISTENERS_PER_PROCESS;
            } catch (Exception e) {
                return false; // the first consumer declares the queue
            }
        }

        @Override
        public void close() throws Exception {
            if (amqp != null) {
                amqp.close();
            }
            RabbitMqBroker.deleteVhost(vhost);
            if (share != null) {
                share.close();
            }
        }
    }

    /** Kafka (KRaft, in a child JVM): one consumer group over six partitions, the journal its only delivery count. */
    private static final class KafkaTransport implements Transport {

        private static final int PARTITIONS = 6;
        /** The profile's {@code ingest.consumers}. */
        private static final int CONSUMERS_PER_PROCESS = 3;
        private final KafkaFixture fixture = new KafkaFixture(PARTITIONS);
        private KafkaProducer<String, String> producer;

        @Override
        public String profile() {
            return "kafka";
        }

        @Override
        public Map<String, String> start() throws Exception {
            fixture.start();
            Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, fixture.broker().bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG, "all");
            producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
            // a killed consumer's partitions move after its session, the broker's smallest, not the 45 s default
            return fixture.externalConsumerProperties();
        }

        @Override
        public void publish(String source, String docId, URI uri) throws Exception {
            String body = new IngestMessage(source, docId, uri, null, null, null).toJson();
            producer.send(new ProducerRecord<>(KafkaFixture.TOPIC, docId, body)).get();
        }

        @Override
        public boolean listening(int processes) throws Exception {
            try (Admin admin = fixture.broker().admin()) {
                ConsumerGroupDescription group = admin.describeConsumerGroups(List.of("ingest-quarantine")).all()
                        .get(10, java.util.concurrent.TimeUnit.SECONDS).get("ingest-quarantine");
                // every process's consumers joined: ingest.consumers of application-kafka.properties each
                return group.members().size() >= processes * CONSUMERS_PER_PROCESS;
            } catch (java.util.concurrent.ExecutionException e) {
                return false;
            }
        }

        @Override
        public void close() throws Exception {
            if (producer != null) {
                producer.close();
            }
            fixture.close();
        }
    }

}
