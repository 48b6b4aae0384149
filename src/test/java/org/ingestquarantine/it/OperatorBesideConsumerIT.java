package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.EmbeddedLogin;
import org.ingestquarantine.testsupport.FreePort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Ensures operators work beside {@code run --profile embedded}, every part a real process: while the consumer
 * holds the data folder and consumes, {@code stats}, {@code cohorts} and {@code serve}'s API answer from its
 * database (no second PostgreSQL, figures equal to the database's own counts); a second {@code run} on the folder
 * is still refused; a SIGTERM stops the consumer cleanly with {@code serve} connected (its PostgreSQL stopped, serve
 * ending with one line); and after a consumer killed with SIGKILL, whose notice and PostgreSQL it leaves behind, an
 * operator command does not use them but takes the folder and starts its own database, as on an idle folder.
 */
class OperatorBesideConsumerIT {

    private static final Duration WAIT = Duration.ofSeconds(180);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "operator-beside-token";
    private static final List<String> GOOD = List.of("c0007.pdf", "c0018.pdf", "c0048.pdf");
    private static final List<String> NOT_PDF = List.of("notes-1.pdf", "notes-2.pdf");

    @TempDir
    Path tmp;

    private Path log;
    private final List<Cli> started = new ArrayList<>();

    @AfterEach
    void stopCommands() {
        started.forEach(cli -> cli.process.destroyForcibly());
    }

    @Test
    void shouldAnswerBesideARunningConsumerAndNotUseItsDatabaseOnceKilled() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path docs = Files.createDirectories(tmp.resolve("docs"));
        for (String name : GOOD) {
            Files.copy(Corpus.file(name), docs.resolve(name));
        }
        for (String name : NOT_PDF) {
            Files.writeString(docs.resolve(name), "plain text, not a PDF");
        }
        log = Files.createDirectories(Path.of("target")).resolve("operator-beside-it.log");
        int sqsPort = FreePort.find();
        int dbPort = FreePort.find();
        String dbUrl = "jdbc:postgresql://localhost:" + dbPort + "/postgres";

        try (ConsumerProcess consumer = start(data, docs, sqsPort, dbPort)) {
            try (SqsClient sqs = sqs(sqsPort)) {
                for (String name : GOOD) {
                    publish(sqs, docs, name);
                }
                for (String name : NOT_PDF) {
                    publish(sqs, docs, name);
                }
            }
            // while it consumes: answers, from its database
            Cli busy = Cli.run(log, 60, "stats", "--json", "--data-dir", data.toString());
            assertThat(busy.exit).as("stats while consuming: %s", busy.err).isZero();
            report("stats beside a consuming run", busy.took);

            Awaitility.await("every document settled").atMost(WAIT).pollInterval(Duration.ofMillis(500))
                    .until(() -> count(data, dbUrl, "SELECT count(*) FROM documents WHERE state = 'searchable'") == GOOD.size()
                            && count(data, dbUrl, "SELECT count(*) FROM quarantine") == NOT_PDF.size());

            Cli stats = Cli.run(log, 60, "stats", "--json", "--data-dir", data.toString());
            assertThat(stats.exit).as(stats.err).isZero();
            report("stats beside an idle run", stats.took);
            JsonNode total = JSON.readTree(stats.out).at("/total");
            assertThat(total.get("documents").asLong()).isEqualTo(count(data, dbUrl, "SELECT count(*) FROM quarantine"))
                    .isEqualTo(NOT_PDF.size());
            assertThat(total.get("records").asLong()).isEqualTo(count(data, dbUrl, "SELECT count(*) FROM quarantine_attempt"));

            Cli cohorts = Cli.run(log, 60, "cohorts", "--json", "--data-dir", data.toString());
            assertThat(cohorts.exit).as(cohorts.err).isZero();
            JsonNode c = JSON.readTree(cohorts.out);
            assertThat(c.get("total_cohorts").asLong()).isEqualTo(count(data, dbUrl, "SELECT count(*) FROM (SELECT DISTINCT"
                    + " parser_version, error_class, error_fingerprint FROM quarantine WHERE disposition = 'open') c"));
            assertThat(c.at("/cohorts/0/documents").asLong()).isEqualTo(NOT_PDF.size());

            // the page's API, served by another process beside the consumer
            int apiPort = FreePort.find();
            Cli serve = Cli.start(log, List.of("serve", "--port", Integer.toString(apiPort), "--data-dir",
                    data.toString()), Map.of("operator.api-token", TOKEN));
            started.add(serve);
            Awaitility.await("serve listening").atMost(WAIT).until(() -> {
                assertThat(serve.process.isAlive()).as("serve alive: %s", serve.err()).isTrue();
                return serve.out().contains("serving the operator page");
            });
            HttpResponse<String> api = get(apiPort, "/api/stats");
            assertThat(api.statusCode()).as(api.body()).isEqualTo(200);
            assertThat(JSON.readTree(api.body()).at("/total")).isEqualTo(total);
            assertThat(get(apiPort, "/").statusCode()).isEqualTo(200);

            // a second consumer on the folder: refused, as ever
            Cli second = Cli.run(log, 120, List.of("run", "--profile", "embedded", "--data-dir", data.toString()),
                    consumerProperties(docs, FreePort.find(), FreePort.find()));
            assertThat(second.exit).as("second run: %s", second.err).isEqualTo(1);
            assertThat(second.out + second.err).contains("is in use by another ingest-quarantine process");

            // SIGTERM with serve connected: the consumer stops its PostgreSQL all the same, and serve says so
            long sigterm = System.nanoTime();
            assertThat(consumer.terminate()).as("consumer's exit after SIGTERM").isZero();
            report("run's stop after SIGTERM, serve connected", Duration.ofNanos(System.nanoTime() - sigterm));
            assertThat(data.resolve("postgres").resolve("postmaster.pid")).as("PostgreSQL stopped by run").doesNotExist();
            assertThat(serve.process.waitFor(30, TimeUnit.SECONDS)).as("serve ended").isTrue();
            assertThat(serve.process.exitValue()).isEqualTo(1);
            assertThat(serve.err()).contains("stopped, and its database with it");
        }

        // killed with SIGKILL: its notice and its PostgreSQL stay behind; an operator uses neither
        try (ConsumerProcess consumer = start(data, docs, sqsPort, dbPort)) {
            assertThat(data.resolve(".database")).exists();
            consumer.kill9();
        }
        assertThat(count(data, dbUrl, "SELECT count(*) FROM quarantine")).as("the killed run's PostgreSQL, left running")
                .isEqualTo(NOT_PDF.size());
        Cli after = Cli.run(log, 120, "stats", "--json", "--data-dir", data.toString());
        assertThat(after.exit).as(after.err).isZero();
        report("stats on an idle folder (own PostgreSQL)", after.took);
        assertThat(after.err).as("the orphan stopped, its own database started")
                .contains("stopping the embedded PostgreSQL");
        assertThat(JSON.readTree(after.out).at("/total/documents").asLong()).isEqualTo(NOT_PDF.size());
        assertThat(data.resolve(".database")).as("the operator's own notice, removed when it stopped").doesNotExist();
        assertThat(data.resolve("postgres").resolve("postmaster.pid")).doesNotExist();
    }

    private ConsumerProcess start(Path data, Path docs, int sqsPort, int dbPort) throws Exception {
        long offset = Files.exists(log) ? Files.size(log) : 0;
        ConsumerProcess consumer = ConsumerProcess.start("embedded", data, consumerProperties(docs, sqsPort, dbPort),
                Map.of(), log);
        Awaitility.await("run consuming").atMost(WAIT).until(() -> {
            assertThat(consumer.isAlive()).as("consumer alive (see %s)", log).isTrue();
            byte[] all = Files.readAllBytes(log);
            return new String(all, (int) offset, all.length - (int) offset, StandardCharsets.UTF_8).contains("consuming (");
        });
        return consumer;
    }

    private static Map<String, String> consumerProperties(Path docs, int sqsPort, int dbPort) {
        Map<String, String> p = new HashMap<>();
        p.put("sqs.port", Integer.toString(sqsPort));
        p.put("db.port", Integer.toString(dbPort));
        p.put("parse.pool-size", "1");
        p.put("sources.docs.file-roots", docs.toString());
        p.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        return p;
    }

    private static void report(String what, Duration took) {
        System.out.printf("OperatorBesideConsumerIT: %s took %d ms%n", what, took.toMillis());
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** @return the answer to a count from the data folder's embedded database, as its application role; -1 until it answers */
    private static long count(Path data, String url, String sql) throws Exception {
        try (var c = java.sql.DriverManager.getConnection(url, org.ingestquarantine.db.EmbeddedPostgresService.USER,
                EmbeddedLogin.appPassword(data));
             var rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException notYet) {
            return -1;
        }
    }

    private static SqsClient sqs(int port) {
        return SqsClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://127.0.0.1:" + port))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build();
    }

    private static void publish(SqsClient sqs, Path docs, String name) {
        String url = sqs.getQueueUrl(b -> b.queueName("ingest")).queueUrl();
        String body = new IngestMessage("docs", name, docs.resolve(name).toUri(), null, null, null).toJson();
        sqs.sendMessage(b -> b.queueUrl(url).messageBody(body));
    }

    /** A command of the launcher as its own JVM, stdout and stderr kept apart in files. */
    private static final class Cli {

        final Process process;
        final Path outFile;
        final Path errFile;
        int exit;
        String out;
        String err;
        Duration took;

        private Cli(Process process, Path outFile, Path errFile) {
            this.process = process;
            this.outFile = outFile;
            this.errFile = errFile;
        }

        static Cli run(Path log, int limitSeconds, String... args) throws Exception {
            return run(log, limitSeconds, List.of(args), Map.of());
        }

        static Cli run(Path log, int limitSeconds, List<String> args, Map<String, String> properties) throws Exception {
            long began = System.nanoTime();
            Cli cli = start(log, args, properties);
            if (!cli.process.waitFor(limitSeconds, TimeUnit.SECONDS)) {
                cli.process.destroyForcibly();
                throw new AssertionError(args + " ran longer than " + limitSeconds + " s: " + cli.err());
            }
            cli.took = Duration.ofNanos(System.nanoTime() - began);
            cli.exit = cli.process.exitValue();
            cli.out = cli.out();
            cli.err = cli.err();
            Files.writeString(log, args + " -> " + cli.exit + "\n" + cli.err, StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.CREATE);
            return cli;
        }

        static Cli start(Path log, List<String> args, Map<String, String> properties) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.ingestquarantine.cli.IngestQuarantineCli"));
            cmd.addAll(args);
            Path outFile = Files.createTempFile("cli-", ".out");
            Path errFile = Files.createTempFile("cli-", ".err");
            Process p = new ProcessBuilder(cmd).redirectOutput(outFile.toFile()).redirectError(errFile.toFile()).start();
            return new Cli(p, outFile, errFile);
        }

        String out() throws IOException {
            return Files.readString(outFile);
        }

        String err() throws IOException {
            return Files.readString(errFile);
        }
    }
}
