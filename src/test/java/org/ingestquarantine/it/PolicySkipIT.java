package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.ingestquarantine.broker.sqs.EmbeddedSqsServer;
import org.ingestquarantine.broker.sqs.SqsQueues;
import org.ingestquarantine.cli.IngestQuarantineCli;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.IngestRun;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.SkipByPageCount;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Issue 22 on a real broker (the embedded profile's ElasticMQ, through {@code ingest <folder>} in its own JVM): a copy
 * of {@code routes/} with the routes guide's "skip by page count" filter as written and a {@code stop} that skips
 * every outcome. One outcome per message; the summary's counts are the journal's; no attempt is left open (the
 * abandoned one was closed before its acknowledgement, and nothing is left on the queue); exit code 3 for the
 * abandoned delivery; coverage leaves the skipped document out of the denominator (the default).
 */
class PolicySkipIT {

    @TempDir
    Path tmp;

    @Test
    void shouldCountSkippedAndAbandonedDeliveriesAsTheJournalDoes() throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("docs"));
        Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"), folder.resolve("small.pdf"));
        Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"), folder.resolve("stopped.pdf"));
        LongPdf.write(folder.resolve("long.pdf"), 8);
        Path data = tmp.resolve("data");
        IngestRun run = IngestRun.of(SkipByPageCount.editedRoutes(tmp), folder, "docs", data, "policy-skip-ingest.log");
        String output = run.output();
        assertThat(run.exitCode()).as("exit code with an abandoned delivery; output:%n%s", output).isEqualTo(3);
        assertThat(output).contains("WARN  AbandonedDelivery - docs/stopped.pdf abandoned: the delivery ended in stage fetch");
        JsonNode summary = run.summary();
        assertThat(summary.get("documents").asInt()).isEqualTo(3);
        assertThat(summary.get("indexed").asInt()).isEqualTo(1);
        assertThat(summary.at("/skipped/over-max-pages").asInt()).as("summary %s", summary).isEqualTo(1);
        assertThat(summary.get("abandoned")).hasSize(1).first().extracting(JsonNode::asText).isEqualTo("stopped.pdf");
        assertThat(summary.get("unsettled")).isEmpty();

        try (IngestRun.SavedDatabase db = run.database()) {
            DataSource ds = db.dataSource();
            db.assertOneClosedAttemptPerMessage(summary);
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM attempt_journal WHERE doc_id = 'long.pdf'"
                    + " AND outcome = 'skipped_by_policy' AND stage = 'parse'")).isEqualTo(1);
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM attempt_journal WHERE doc_id = 'stopped.pdf'"
                    + " AND outcome = 'abandoned'")).isEqualTo(summary.get("abandoned").size());
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM skipped_documents WHERE source = 'docs'"
                    + " AND doc_id = 'long.pdf' AND reason = 'over-max-pages' AND payload_sha256 ~ '^[0-9a-f]{64}$'"))
                    .as("the skip, recorded with its bytes' digest").isEqualTo(1);
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM quarantine")).isZero();
        }
        assertThat(queued(data)).as("messages left on the queue").isZero();

        JsonNode coverage = cli("coverage", "--json", "--data-dir", data.toString()).at("/sources/0");
        assertThat(coverage.get("skipped").asLong()).as("coverage %s", coverage).isEqualTo(1);
        assertThat(coverage.get("unseen").asLong()).as("the abandoned document").isEqualTo(1);
        assertThat(coverage.get("coverage").asDouble()).as("1 indexed of 2: the skipped one left out").isEqualTo(0.5);
    }

    private static JsonNode cli(String... args) throws Exception {
        StringWriter out = new StringWriter();
        assertThat(new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(out)).execute(args)).isZero();
        return new ObjectMapper().readTree(out.toString());
    }

    /** @return messages on the data folder's embedded queue (visible, in flight, delayed), read with ingest gone */
    private static long queued(Path data) throws Exception {
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(FreePort.find(), data.resolve("sqs"));
             SqsClient sqs = SqsClient.builder().region(Region.US_EAST_1)
                     .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build()) {
            String url = SqsQueues.create(sqs, Path.of("broker-configs", "sqs"), "ingest");
            return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages",
                            "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"))
                    .attributesAsStrings().values().stream().mapToLong(Long::parseLong).sum();
        }
    }
}
