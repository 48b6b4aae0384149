package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.ingestquarantine.broker.sqs.EmbeddedSqsServer;
import org.ingestquarantine.broker.sqs.SqsQueues;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.ingest.RawHttpServer;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Ensures SIGTERM stops {@code ingest-quarantine run} (embedded profile, its queue kept in the data folder)
 * without losing or condemning what it was working on: a fetch stalled at its source is cut short and
 * released at once (exit within 10 s), no new delivery starts after the signal, a slow document that cannot
 * finish within {@code camel.main.shutdown-timeout} is released (its attempt closed, not a death), and two
 * such restarts in a row leave it to be indexed by the third run, never quarantined. Sources are counted from outside, at a
 * local HTTP server that logs every request.
 */
class ShutdownIT {

    private static final Duration WAIT = Duration.ofSeconds(180);
    /** The shutdown timeout the slow document's runs get, seconds. */
    private static final int SHUTDOWN_TIMEOUT_S = 5;
    /**
     * What a stop may take beyond the shutdown timeout, seconds: the parser, the broker and the database stop
     * after it (a few seconds on a quiet machine; 18 s was seen at load 13-18). The bound is there to catch a
     * stop that takes minutes (new deliveries started after the signal), not to time a quiet machine.
     */
    private static final int STOP_MARGIN_S = 25;

    @TempDir
    Path tmp;

    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Path> files = new ConcurrentHashMap<>();
    private RawHttpServer source;
    private EmbeddedPostgresService pg;
    private Database db;
    private Path log;

    /** One request the source saw: method, path, and when (System.nanoTime of this JVM). */
    private record Request(String method, String path, long at) {
    }

    @BeforeEach
    void startSourceAndDatabase() throws Exception {
        log = Files.createDirectories(Path.of("target")).resolve("shutdown-it.log");
        source = new RawHttpServer((head, s, out) -> {
            String[] line = head.split(" ", 3);
            String method = line[0];
            String path = line.length > 1 ? line[1] : "";
            requests.add(new Request(method, path, System.nanoTime()));
            if (path.equals("/stall.pdf")) {
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: 100000\r\n\r\n");
                if (method.equals("GET")) {
                    RawHttpServer.write(out, "%PDF-1.4\n" + "x".repeat(91));
                    Thread.sleep(120_000);
                }
                return;
            }
            Path file = files.get(path);
            if (file == null) {
                RawHttpServer.write(out, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                return;
            }
            byte[] bytes = Files.readAllBytes(file);
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: " + bytes.length
                    + "\r\nConnection: close\r\n\r\n");
            if (method.equals("GET")) {
                out.write(bytes);
            }
        });
        pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
        db = Database.open(pg.jdbcUrl(), pg.user(), pg.password());
    }

    @AfterEach
    void stop() throws Exception {
        db.close();
        pg.close();
        source.close();
    }

    @Test
    void shouldExitWithinTenSecondsOfSigtermDuringAStalledFetch() throws Exception {
        stallAndTerminate();
    }

    /** The released message is still in the saved embedded queue after the exit. */
    @Test
    void shouldKeepTheMessageOfAFetchCutShortBySigterm() throws Exception {
        Path data = stallAndTerminate();
        assertThat(queued(data)).as("messages left in the embedded queue").isEqualTo(1);
    }

    /** A real run whose only document stalls after 100 bytes, stopped by SIGTERM; @return its data folder */
    private Path stallAndTerminate() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data-stall"));
        int sqsPort = FreePort.find();
        // the shipped shutdown timeout and idle timeout (90 s, 30 s): neither may hold the stop up
        try (ConsumerProcess consumer = start(data, sqsPort, Map.of())) {
            String key;
            try (SqsClient sqs = sqs(sqsPort)) {
                key = "sqs:" + publish(sqs, "stall.pdf");
            }
            Awaitility.await().atMost(WAIT).until(() -> seen("GET", "/stall.pdf") == 1);
            Thread.sleep(1_000);
            long start = System.nanoTime();
            int exit = consumer.terminate();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(exit).as("exit code after SIGTERM").isZero();
            assertThat(took).as("from SIGTERM to exit").isLessThan(Duration.ofSeconds(10));

            // its attempt is closed as released (no death), nothing is quarantined
            assertThat(outcomes(key)).containsExactly("released");
            assertThat(openAttempts()).isZero();
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine")).isZero();
        }
        return data;
    }

    @Test
    void shouldStartNothingAfterSigtermReleaseSlowDocumentsAndIndexThemAfterTwoRestarts() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data-slow"));
        Path longPdf = LongPdf.write(tmp.resolve("slow.pdf"), 200);
        files.put("/slow1.pdf", longPdf);
        files.put("/slow2.pdf", longPdf);
        files.put("/b1.pdf", Corpus.file("c0007.pdf"));
        files.put("/b2.pdf", Corpus.file("c0018.pdf"));
        files.put("/b3.pdf", Corpus.file("c0048.pdf"));
        int sqsPort = FreePort.find();
        Map<String, String> timeout = Map.of("camel.main.shutdown-timeout", Integer.toString(SHUTDOWN_TIMEOUT_S));
        List<String> slowKeys = new java.util.ArrayList<>();

        for (int run = 1; run <= 2; run++) {
            try (ConsumerProcess consumer = start(data, sqsPort, timeout)) {
                if (run == 1) {
                    try (SqsClient sqs = sqs(sqsPort)) {
                        slowKeys.add("sqs:" + publish(sqs, "slow1.pdf"));
                        slowKeys.add("sqs:" + publish(sqs, "slow2.pdf"));
                        awaitWorking(slowKeys);
                        // both consumers are busy: these wait on the queue
                        for (String b : new String[] {"b1.pdf", "b2.pdf", "b3.pdf"}) {
                            publish(sqs, b);
                        }
                    }
                } else {
                    awaitWorking(slowKeys);
                }
                awaitQuiet(Duration.ofSeconds(2));
                int before = requests.size();
                long sigterm = System.nanoTime();
                int exit = consumer.terminate();
                Duration took = Duration.ofNanos(System.nanoTime() - sigterm);

                assertThat(exit).as("exit code after SIGTERM, run %d", run).isZero();
                assertThat(took).as("from SIGTERM to exit, run %d", run)
                        .isLessThan(Duration.ofSeconds(SHUTDOWN_TIMEOUT_S + STOP_MARGIN_S));
                assertThat(requests.subList(before, requests.size())).as("source requests after SIGTERM, run %d", run)
                        .isEmpty();
                if (run == 1) {
                    assertThat(requests).as("requests for the documents queued behind the busy consumers")
                            .noneMatch(r -> r.path().startsWith("/b"));
                }
                assertThat(openAttempts()).as("attempts left open, run %d", run).isZero();
                for (String key : slowKeys) {
                    assertThat(outcomes(key)).as("a slow document's attempts after run %d", run)
                            .hasSize(run).containsOnly("released");
                }
                assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine")).isZero();
            }
        }

        try (ConsumerProcess consumer = start(data, sqsPort, timeout)) {
            Awaitility.await().atMost(WAIT.multipliedBy(2)).until(() -> searchable() == 5);
            // indexed is committed before the message is deleted: wait for the deletes, read at the live broker
            Awaitility.await("every message acknowledged").atMost(WAIT).until(() -> depth(sqsPort) == 0);
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine")).as("quarantine rows").isZero();
            for (String key : slowKeys) {
                assertThat(outcomes(key)).containsExactly("released", "released", "indexed");
            }
            assertThat(consumer.terminate()).isZero();
        }
        assertThat(openAttempts()).isZero();
        assertThat(queued(data)).as("messages left in the embedded queue").isZero();
    }

    /**
     * {@code ingest <folder>} on the embedded default (PostgreSQL and SQS in the data folder, no external
     * service), stopped by SIGTERM or SIGINT (Ctrl-C) while its slow document is past its fetch: it exits within
     * the shutdown timeout (plus the stop of the parser, the broker and the database), prints its summary naming
     * the document unsettled, leaves no attempt open (the one it ran closed released, nothing quarantined), stops
     * its PostgreSQL itself (no server left behind) and keeps the message in the saved queue for the next run.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void shouldStopIngestInOrderOnASignal(String signal) throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data-ingest"));
        Path folder = Files.createDirectories(tmp.resolve("docs"));
        LongPdf.write(folder.resolve("slow.pdf"), 200);
        int dbPort = FreePort.find();
        Map<String, String> p = new HashMap<>();
        p.put("db.port", Integer.toString(dbPort));
        p.put("sqs.port", Integer.toString(FreePort.find()));
        p.put("parse.pool-size", "1");
        p.put("camel.main.shutdown-timeout", Integer.toString(SHUTDOWN_TIMEOUT_S));
        p.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        long offset = Files.exists(log) ? Files.size(log) : 0;
        try (ConsumerProcess ingest = ConsumerProcess.command(List.of("ingest", folder.toString(), "--source", "docs",
                "--data-dir", data.toString()), p, Map.of(), log)) {
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
                assertThat(ingest.isAlive()).as("ingest alive (see %s)", log).isTrue();
                return working(data, dbPort);
            });
            long sent = System.nanoTime();
            int exit = signal.equals("INT") ? ingest.interrupt() : ingest.terminate();
            Duration took = Duration.ofNanos(System.nanoTime() - sent);
            String out = logSince(offset);

            assertThat(exit).as("exit code with a document unsettled (see %s)", log).isEqualTo(3);
            assertThat(took).as("from SIG%s to exit", signal).isLessThan(Duration.ofSeconds(SHUTDOWN_TIMEOUT_S + STOP_MARGIN_S));
            assertThat(out).as("the summary").contains("documents     1").contains("UNSETTLED     1: [slow.pdf]");
            assertThat(data.resolve("postgres").resolve("postmaster.pid")).as("PostgreSQL stopped by ingest").doesNotExist();
        }
        try (EmbeddedPostgresService saved = EmbeddedPostgresService.start(data.resolve("postgres"), 0);
             Database savedDb = Database.open(saved.jdbcUrl(), saved.user(), saved.password())) {
            assertThat(SqlCount.of(savedDb.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open").isZero();
            assertThat(SqlCount.of(savedDb.dataSource(), "SELECT count(*) FROM attempt_journal WHERE doc_id = 'slow.pdf'"
                    + " AND outcome = 'released'")).as("the slow document's attempt, released").isEqualTo(1);
            assertThat(SqlCount.of(savedDb.dataSource(), "SELECT count(*) FROM quarantine")).isZero();
        }
        assertThat(queued(data)).as("messages left in the embedded queue").isEqualTo(1);
    }

    /** @return whether the ingest child's database (on {@code dbPort}) has an open attempt past its fetch */
    private static boolean working(Path data, int dbPort) {
        try (var c = java.sql.DriverManager.getConnection("jdbc:postgresql://localhost:" + dbPort + "/postgres",
                EmbeddedPostgresService.USER, org.ingestquarantine.testsupport.EmbeddedLogin.appPassword(data));
             var rs = c.createStatement().executeQuery("SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"
                     + " AND stage IN ('parse', 'chunk', 'embed', 'index')")) {
            return rs.next() && rs.getLong(1) == 1;
        } catch (java.sql.SQLException notYet) {
            return false;
        }
    }

    private ConsumerProcess start(Path data, int sqsPort, Map<String, String> extra) throws Exception {
        Map<String, String> p = new HashMap<>();
        p.put("sqs.port", Integer.toString(sqsPort));
        p.put("db.mode", "external");
        p.put("db.url", pg.jdbcUrl());
        p.put("db.user", pg.user());
        p.put("db.password", pg.password());
        p.put("parse.pool-size", "1");
        // two consumers, whatever the profile's default: the slow-document test keeps exactly both busy
        p.put("ingest.consumers", "2");
        p.put("sources.web.http-allow", "http://127.0.0.1:" + source.port());
        p.put("sources.web.http-allow-private", "true");
        p.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        p.putAll(extra);
        long offset = Files.exists(log) ? Files.size(log) : 0;
        ConsumerProcess consumer = ConsumerProcess.start("embedded", data, p, Map.of(), log);
        Awaitility.await().atMost(WAIT).until(() -> {
            assertThat(consumer.isAlive()).as("consumer alive (see %s)", log).isTrue();
            return logSince(offset).contains("consuming (");
        });
        return consumer;
    }

    private String logSince(long offset) throws IOException {
        byte[] all = Files.readAllBytes(log);
        return new String(all, (int) Math.min(offset, all.length), (int) Math.max(0, all.length - offset),
                StandardCharsets.UTF_8);
    }

    private static SqsClient sqs(int port) {
        return SqsClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://127.0.0.1:" + port))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build();
    }

    private String publish(SqsClient sqs, String name) {
        String url = sqs.getQueueUrl(b -> b.queueName("ingest")).queueUrl();
        String body = new IngestMessage("web", name, URI.create("http://127.0.0.1:" + source.port() + "/" + name),
                null, null, null).toJson();
        return sqs.sendMessage(b -> b.queueUrl(url).messageBody(body)).messageId();
    }

    /** @return messages on the data folder's embedded queue (visible, in flight, delayed), read with the consumer gone */
    /** @return messages in the running consumer's queue (visible, in flight or delayed) */
    private static long depth(int sqsPort) {
        try (SqsClient sqs = sqs(sqsPort)) {
            String url = sqs.getQueueUrl(b -> b.queueName("ingest")).queueUrl();
            return depth(sqs, url);
        }
    }

    private static long depth(SqsClient sqs, String url) {
        return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages",
                        "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"))
                .attributesAsStrings().values().stream().mapToLong(Long::parseLong).sum();
    }

    private static long queued(Path data) throws Exception {
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(FreePort.find(), data.resolve("sqs"));
             SqsClient sqs = sqs(server.port())) {
            String url = SqsQueues.create(sqs, Path.of("broker-configs", "sqs"), "ingest");
            return depth(sqs, url);
        }
    }

    private long seen(String method, String path) {
        return requests.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).count();
    }

    /** Waits until the source has seen no request for {@code quiet}. */
    private void awaitQuiet(Duration quiet) {
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> requests.isEmpty()
                || System.nanoTime() - requests.get(requests.size() - 1).at() > quiet.toNanos());
    }

    /** Waits until every key has an open attempt past its fetch (parsing, chunking, embedding or indexing). */
    private void awaitWorking(List<String> keys) {
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            for (String key : keys) {
                if (SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?"
                        + " AND closed_at IS NULL AND stage IN ('parse', 'chunk', 'embed', 'index')", key) != 1) {
                    return false;
                }
            }
            return true;
        });
    }

    private List<String> outcomes(String key) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (var c = db.dataSource().getConnection();
             var s = c.prepareStatement("SELECT coalesce(outcome, 'open') FROM attempt_journal WHERE delivery_key = ?"
                     + " ORDER BY started_at, attempt_id")) {
            s.setString(1, key);
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private long openAttempts() throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL");
    }

    private long searchable() throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM documents WHERE source = 'web' AND state = 'searchable'");
    }
}
