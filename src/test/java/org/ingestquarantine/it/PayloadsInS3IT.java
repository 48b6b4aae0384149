package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.cli.IngestQuarantineCli;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.S3Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectVersion;

/**
 * The production layout with payloads in S3: two {@code ingest} processes, each on its own data folder, one external
 * PostgreSQL, {@code payload.store=s3} on a versioned bucket of the real S3-compatible server on loopback. Each
 * quarantines a bad PDF; then an operator on a third data folder finds the payload and trace ({@code show}), gets the
 * same failure from the stored bytes ({@code reproduce}), erases one document, after which no version of any
 * object in the bucket holds its bytes, and expires the other's payload in the bucket ({@code expire-payloads}). An operator configured for the local store is told, in one line, which store
 * and setting would reach the object.
 */
class PayloadsInS3IT {

    private static final Duration LIMIT = Duration.ofMinutes(5);
    private static final S3Server S3 = S3Server.shared();

    @TempDir
    Path tmp;

    private final List<String> setProperties = new ArrayList<>();

    @AfterEach
    void clearProperties() {
        setProperties.forEach(System::clearProperty);
    }

    @Test
    void shouldReachEvidenceInS3FromAnyDataFolderAndEraseEveryVersion() throws Exception {
        String bucket = S3.createVersionedBucket("iq-payloads");
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0)) {
            Map<String, String> props = new HashMap<>(S3.properties());
            props.putAll(Map.of("db.mode", "external", "db.url", pg.jdbcUrl(), "db.user", pg.user(),
                    "db.password", pg.password(), "payload.store", "s3", "payload.s3.bucket", bucket,
                    "payload.s3.prefix", "evidence"));
            Path truncated = folderWith("contracts", "08-truncated.pdf");
            Path html = folderWith("invoices", "09-not-pdf-html.pdf");
            try (ConsumerProcess a = ingest(truncated, "a", props); ConsumerProcess b = ingest(html, "b", props)) {
                assertThat(a.awaitExit(LIMIT)).as("ingest a; log %s", tmp.resolve("a.log")).isZero();
                assertThat(b.awaitExit(LIMIT)).as("ingest b; log %s", tmp.resolve("b.log")).isZero();
            }
            byte[] pdf = Files.readAllBytes(truncated.resolve("08-truncated.pdf"));
            assertThat(Files.exists(tmp.resolve("a").resolve("objects"))).as("nothing stored locally").isFalse();

            // an operator configured for the local store is told where the objects are, and which settings reach them
            props.forEach((k, v) -> {
                if (!k.startsWith("payload.")) {
                    set(k, v);
                }
            });
            Path op = Files.createDirectories(tmp.resolve("op"));
            Result local = run("show", "contracts/08-truncated.pdf", "--data-dir", op.toString());
            assertThat(local.code).as(local.err).isZero();
            assertThat(local.out).contains("NOT READABLE HERE: payload s3://" + bucket + "/evidence/")
                    .contains("this process has payload.store=local: set payload.store=s3 and payload.s3.bucket="
                            + bucket);
            Result localReproduce = run("reproduce", "contracts/08-truncated.pdf", "--data-dir", op.toString());
            assertThat(localReproduce.code).isEqualTo(1);
            assertThat(localReproduce.err.strip()).startsWith("reproduce: payload s3://" + bucket + "/evidence/")
                    .endsWith("set payload.store=s3 and payload.s3.bucket=" + bucket).doesNotContain("\n");

            for (String[] command : new String[][] {{"erase", "--source", "contracts", "--doc-id", "08-truncated.pdf"},
                    {"expire-payloads", "--older-than", "1s"}}) {
                Thread.sleep(1100); // expire-payloads: both records are older than 1 s
                List<String> args = new ArrayList<>(List.of(command));
                args.addAll(List.of("--data-dir", op.toString()));
                Result refused = run(args.toArray(String[]::new));
                assertThat(refused.code).as(command[0]).isEqualTo(1);
                assertThat(refused.err.strip()).as(command[0]).startsWith(command[0] + ": payload s3://" + bucket)
                        .endsWith("set payload.store=s3 and payload.s3.bucket=" + bucket).doesNotContain("\n");
            }
            assertThat(run("show", "contracts/08-truncated.pdf", "--data-dir", op.toString()).out)
                    .as("not erased where the bytes could not be reached").contains("disposition     open");

            // the same operator with the S3 settings: everything is where the records say
            props.forEach(this::set);
            for (String doc : new String[] {"contracts/08-truncated.pdf", "invoices/09-not-pdf-html.pdf"}) {
                Result show = run("show", doc, "--data-dir", op.toString());
                assertThat(show.code).as(show.err).isZero();
                assertThat(show.out).contains("s3://" + bucket + "/evidence/").doesNotContain("MISSING")
                        .doesNotContain("NOT READABLE");
            }
            Result reproduce = run("reproduce", "contracts/08-truncated.pdf", "--data-dir", op.toString());
            assertThat(reproduce.code).as(reproduce.err).isZero();
            assertThat(reproduce.out).startsWith("contracts/08-truncated.pdf: same failure (fingerprint ");

            assertThat(versionsHolding(bucket, pdf)).as("the payload before erasure").isNotEmpty();
            Result erase = run("erase", "--source", "contracts", "--doc-id", "08-truncated.pdf", "--data-dir",
                    op.toString());
            assertThat(erase.code).as(erase.err).isZero();
            assertThat(versionsHolding(bucket, pdf)).as("versions holding the erased bytes").isEmpty();
            Result after = run("show", "contracts/08-truncated.pdf", "--data-dir", op.toString());
            assertThat(after.out).contains("none (never fetched, expired or erased)");
            // the other process's evidence is untouched
            Result other = run("show", "invoices/09-not-pdf-html.pdf", "--data-dir", op.toString());
            assertThat(other.out).doesNotContain("MISSING").doesNotContain("NOT READABLE");

            // expire-payloads deletes where the object lives too
            byte[] page = Files.readAllBytes(html.resolve("09-not-pdf-html.pdf"));
            assertThat(versionsHolding(bucket, page)).isNotEmpty();
            Thread.sleep(1100);
            Result expire = run("expire-payloads", "--older-than", "1s", "--data-dir", op.toString());
            assertThat(expire.code).as(expire.err).isZero();
            assertThat(expire.out).startsWith("1 payloads expired");
            assertThat(versionsHolding(bucket, page)).as("versions holding the expired bytes").isEmpty();
        }
    }

    private Path folderWith(String name, String sample) throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("docs").resolve(name));
        Files.copy(Path.of("samples", "pdfs", sample), folder.resolve(sample));
        return folder;
    }

    private ConsumerProcess ingest(Path folder, String dataDir, Map<String, String> props) throws Exception {
        return ConsumerProcess.command(List.of("ingest", folder.toString(), "--data-dir", tmp.resolve(dataDir).toString()),
                props, Map.of(), tmp.resolve(dataDir + ".log"));
    }

    /** @return every version (of every key) in the bucket whose bytes are {@code content} */
    private static List<String> versionsHolding(String bucket, byte[] content) {
        List<String> found = new ArrayList<>();
        try (S3Client raw = S3.client()) {
            for (ObjectVersion v : raw.listObjectVersionsPaginator(b -> b.bucket(bucket)).versions()) {
                byte[] bytes = raw.getObjectAsBytes(b -> b.bucket(bucket).key(v.key()).versionId(v.versionId()))
                        .asByteArray();
                if (Arrays.equals(bytes, content)) {
                    found.add(v.key() + "@" + v.versionId());
                }
            }
        }
        return found;
    }

    private void set(String key, String value) {
        System.setProperty(key, value);
        setProperties.add(key);
    }

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = IngestQuarantineCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
