package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ensures stats, cohorts, coverage, show and overdue answer as tables and as JSON on an external database and
 * on a data folder's embedded one, and that bad input or a database that is down gives one line on stderr, a
 * non-zero exit and no change.
 */
class OperatorCommandsIT extends PostgresTestBase {

    /** The URI the lease's second failure was fetched from, as its source admitted it. */
    private static final String LEASE_URI = "https://docs.example/contracts/2026/11/lease.pdf";

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path data;

    private QuarantineStore store;
    private QuarantineRecord lease;

    @BeforeEach
    void setUp() throws Exception {
        System.setProperty("db.mode", "external");
        System.setProperty("db.url", postgres.jdbcUrl());
        System.setProperty("db.user", postgres.user());
        System.setProperty("db.password", postgres.password());
        System.setProperty("sources.contracts.owner", "legal-ops");
        // the write path as the pipeline runs it: owners come from sources.<name>.owner when a record is created
        store = new QuarantineStore(dataSource(), new LocalPayloadStore(data.resolve("objects")),
                source -> java.util.Optional.ofNullable(System.getProperty("sources." + source + ".owner")),
                Clock.offset(Clock.systemUTC(), Duration.ofDays(-120)));
        Path pdf = Files.write(data.resolve("lease.pdf"), "%PDF-1.7 broken".getBytes(StandardCharsets.US_ASCII));
        lease = store.record(FailureEvidence.builder("contracts", "2026/11/lease.pdf")
                .errorClass(ErrorClass.AMBIGUOUS_PARSE).failure(new IllegalStateException("missing /Root"))
                .parserVersion("pdfbox-2.0.0+iq-parse-0").payload(pdf).build());
        store.record(FailureEvidence.builder("contracts", "2026/11/lease.pdf")
                .errorClass(ErrorClass.AMBIGUOUS_PARSE).failure(new IllegalStateException("missing /Root"))
                .parserVersion("pdfbox-2.0.0+iq-parse-0").payload(pdf).sourceUri(LEASE_URI).build());
        for (int i = 0; i < 3; i++) {
            store.record(FailureEvidence.builder("invoices", "inv-" + i).errorClass(ErrorClass.PERMANENT_INPUT)
                    .errorFingerprint("fp-not-pdf").reasonCode("not_pdf").parserVersion(ParserVersion.CURRENT).build());
        }
    }

    @AfterEach
    void clearProperties() {
        System.clearProperty("db.mode");
        System.clearProperty("db.url");
        System.clearProperty("db.user");
        System.clearProperty("db.password");
        System.clearProperty("sources.contracts.owner");
        System.clearProperty("db.connect-timeout-ms");
    }

    @Test
    void shouldListAPausedSourceAndResumeItOnce() throws Exception {
        new org.springframework.jdbc.core.JdbcTemplate(dataSource()).update("TRUNCATE storm_pause");
        new org.ingestquarantine.delivery.SourcePauses(dataSource(), Clock.systemUTC()).trip(
                new org.ingestquarantine.delivery.Storm("invoices", "fp-new", ErrorClass.PERMANENT_INPUT, "not_pdf", 18,
                        20, java.time.Instant.now()), "host/7", Duration.ofDays(30));

        Result list = run("storm", "list", "--data-dir", data.toString());
        assertThat(list.code).as(list.err).isZero();
        assertThat(list.out).containsPattern("invoices\\s+fp-new\\s+permanent_input/not_pdf\\s+18/20 90%")
                .contains("host/7", "1 sources paused", "storm resume --source S");
        Result resumed = run("storm", "resume", "--source", "invoices", "--data-dir", data.toString());
        assertThat(resumed.code).as(resumed.err).isZero();
        assertThat(resumed.out).contains("source 'invoices' resumed", "records --fingerprint fp-new --source invoices");
        Result again = run("storm", "resume", "--source", "invoices", "--data-dir", data.toString());
        assertThat(again.code).isEqualTo(2);
        assertThat(again.err).contains("'invoices' is not paused");
        JsonNode json = JSON.readTree(run("storm", "list", "--json", "--data-dir", data.toString()).out);
        assertThat(json.get("paused")).isEmpty();
        assertThat(json.at("/resumed/0/source").asText()).isEqualTo("invoices");
    }

    @Test
    void shouldCountRecordsAndDocumentsAsTableAndJson() throws Exception {
        Result table = run("stats", "--data-dir", data.toString());
        assertThat(table.code).isZero();
        assertThat(table.out).contains("source", "records", "documents")
                .containsPattern("contracts\\s+2\\s+1\\s+1").containsPattern("invoices\\s+3\\s+3\\s+3")
                .containsPattern("\\(all\\)\\s+5\\s+4\\s+4");

        JsonNode json = JSON.readTree(run("stats", "--json", "--data-dir", data.toString()).out);
        assertThat(json.at("/total/records").asLong()).isEqualTo(5);
        assertThat(json.at("/total/documents").asLong()).isEqualTo(4);
        assertThat(json.at("/sources/0/documents_by_disposition/open").asLong()).isEqualTo(1);
    }

    @Test
    void shouldListCohortsAndSayHowManyTheLimitCut() throws Exception {
        Result all = run("cohorts", "--data-dir", data.toString());
        assertThat(all.out).contains("running parser " + ParserVersion.CURRENT).contains("2 cohorts")
                .doesNotContain("not shown");
        assertThat(all.out.lines().filter(l -> l.startsWith("*"))).singleElement().asString()
                .contains("pdfbox-2.0.0+iq-parse-0", "ambiguous_parse", "java.lang.IllegalStateException: missing /Root");

        Result cut = run("cohorts", "--limit", "1", "--data-dir", data.toString());
        assertThat(cut.code).as(cut.err).isZero();
        assertThat(cut.out).contains("fp-not-pdf").contains("2 cohorts, 1 not shown (cut by --limit 1)");

        JsonNode json = JSON.readTree(run("cohorts", "--json", "--class", "permanent_input", "--data-dir",
                data.toString()).out);
        assertThat(json.get("total_cohorts").asInt()).isEqualTo(1);
        assertThat(json.at("/cohorts/0/stale_parser").asBoolean()).isFalse();
    }

    /**
     * cohorts marks the cohort of fingerprints given as they are (no algorithm version: before versioning) with ~ and
     * fp_version -, and fingerprints remap leaves them (no stack trace to recompute from), counted; the lease's
     * record, fingerprinted by the recorder, is of the running version.
     */
    @Test
    void shouldMarkCohortsOfAnOlderFingerprintAndCountWhatRemapCannotRecompute() throws Exception {
        Result cohorts = run("cohorts", "--data-dir", data.toString());
        assertThat(cohorts.out).contains("fingerprint algorithm " + ErrorFingerprint.VERSION + "; ~ = ");
        assertThat(cohorts.out.lines().filter(l -> l.contains("fp-not-pdf"))).singleElement().asString()
                .startsWith("~").containsPattern("fp-not-pdf\\s+-\\s+3");
        assertThat(cohorts.out.lines().filter(l -> l.contains("pdfbox-2.0.0+iq-parse-0"))).singleElement().asString()
                .startsWith("* ").containsPattern("[0-9a-f]{16}\\s+" + ErrorFingerprint.VERSION + "\\s+1\\s+2\\s");
        JsonNode json = JSON.readTree(run("cohorts", "--json", "--class", "permanent_input", "--data-dir",
                data.toString()).out);
        assertThat(json.at("/cohorts/0/older_fingerprint").asBoolean()).isTrue();
        assertThat(json.at("/cohorts/0/older_fingerprint_documents").asLong()).isEqualTo(3);
        assertThat(json.at("/cohorts/0/fingerprint_version").isNull()).isTrue();
        assertThat(json.get("running_fingerprint_version").asInt()).isEqualTo(ErrorFingerprint.VERSION);

        Result dry = run("fingerprints", "remap", "--dry-run", "--data-dir", data.toString());
        assertThat(dry.code).as(dry.err).isZero();
        assertThat(dry.out).contains("3 open records of an older one", "0 would move", "3 left as they are (no_stack_trace 3)",
                "dry run: nothing changed");
        JsonNode remapped = JSON.readTree(run("fingerprints", "remap", "--json", "--data-dir", data.toString()).out);
        assertThat(remapped.get("left_by").get("no_stack_trace").asLong()).isEqualTo(3);
        assertThat(remapped.get("moved").asLong()).isZero();
        assertThat(remapped.get("dry_run").asBoolean()).isFalse();
    }

    /**
     * erase of an indexed document that never failed: the command names the tombstone it left, coverage keeps the
     * document in its denominator, and show prints a tombstone holding no version of the content.
     */
    @Test
    void shouldLeaveATombstoneWhenErasingAnIndexedDocumentWithoutRecord() throws Exception {
        new org.ingestquarantine.ingest.SourceTotals(dataSource(), Clock.systemUTC()).record("contracts", 2, "folder-1", null);
        String sha256 = "ab".repeat(32);
        new org.ingestquarantine.ingest.DocumentIndex(dataSource(), 2).index(new org.ingestquarantine.ingest.IndexedDocument(
                "contracts", "indexed.pdf", sha256, java.time.Instant.parse("2026-01-01T00:00:00Z"), sha256, "p1", "c1",
                "e1", 1, List.of(new org.ingestquarantine.ingest.IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))));
        assertThat(JSON.readTree(run("coverage", "--json", "--data-dir", data.toString()).out)
                .at("/sources/0/coverage").asDouble()).isEqualTo(0.5);

        Result erased = run("erase", "--source", "contracts", "--doc-id", "indexed.pdf", "--data-dir", data.toString());

        assertThat(erased.code).as(erased.err).isZero();
        assertThat(erased.out).startsWith("contracts/indexed.pdf erased; tombstone ")
                .doesNotContain("from the index");
        JsonNode coverage = JSON.readTree(run("coverage", "--json", "--data-dir", data.toString()).out).at("/sources/0");
        assertThat(coverage.get("indexed").asLong()).isZero();
        assertThat(coverage.get("erased").asLong()).isEqualTo(1);
        assertThat(coverage.get("coverage").asDouble()).as("0 of 2, not 0 of 1").isZero();
        Result show = run("show", "contracts/indexed.pdf", "--json", "--data-dir", data.toString());
        assertThat(show.code).as(show.err).isZero();
        JsonNode record = JSON.readTree(show.out);
        assertThat(record.toString()).contains("\"erased\"", "legal-ops").doesNotContain(sha256);
        assertThat(run("show", "contracts/indexed.pdf", "--data-dir", data.toString()).out)
                .containsPattern("source_version\\s+- \\(erased\\)");
    }

    @Test
    void shouldShowCoveragePerSource() throws Exception {
        JsonNode json = JSON.readTree(run("coverage", "--json", "--data-dir", data.toString()).out);
        assertThat(json.get("sources")).hasSize(2);
        assertThat(json.at("/sources/0/source").asText()).isEqualTo("contracts");
        assertThat(json.at("/sources/0/open_quarantined").asLong()).isEqualTo(1);
        assertThat(json.at("/sources/0/coverage").isNull()).isTrue();
        assertThat(run("coverage", "--data-dir", data.toString()).out).containsPattern("contracts\\s+-\\s+-\\s+-\\s+0\\s+1\\s+0\\s+0\\s+0\\s+0\\s+-\\s+-\\s+120d");
    }

    /**
     * sources count lists a folder source's regular files (no link, nested folders too) and records them as its
     * listed total; sources set-total records a stated one; coverage then prints both with how they were obtained,
     * and the digits rounded down. Bad input is one line, exit 2, nothing written.
     */
    @Test
    void shouldListAndStateSourceTotals() throws Exception {
        Path docs = Files.createDirectories(data.resolve("inbox/2026"));
        Files.writeString(data.resolve("inbox/a.pdf"), "a");
        Files.writeString(docs.resolve("b.pdf"), "b");
        Files.writeString(docs.resolve("c.pdf"), "c");
        Files.createSymbolicLink(docs.resolve("link.pdf"), docs.resolve("b.pdf"));
        System.setProperty("sources.inbox.file-roots", data.resolve("inbox").toString());
        try {
            Result listed = run("sources", "count", "inbox", "--json", "--data-dir", data.toString());
            assertThat(listed.code).as(listed.err).isZero();
            JsonNode total = JSON.readTree(listed.out);
            assertThat(total.get("documents").asLong()).isEqualTo(3);
            assertThat(total.get("obtained_by").asText()).isEqualTo("listed");
            assertThat(run("sources", "count", "inbox", "--data-dir", data.toString()).out)
                    .startsWith("source 'inbox': total 3 documents, listed at ").contains(" by folder-1");

            Result stated = run("sources", "set-total", "invoices", "7", "--data-dir", data.toString());
            assertThat(stated.code).as(stated.err).isZero();
            assertThat(stated.out).contains("source 'invoices': total 7 documents, stated at ");
            // 3 open of 7 stated, none indexed: 0.0%; contracts has no total
            Result coverage = run("coverage", "--data-dir", data.toString());
            assertThat(coverage.out).containsPattern("inbox\\s+3\\s+listed\\s+\\S+\\s+0\\s+0\\s+0\\s+0\\s+0\\s+3\\s+3\\s+0\\.0%")
                    .containsPattern("invoices\\s+7\\s+stated\\s+\\S+\\s+0\\s+3\\s+0\\s+0\\s+0\\s+4\\s+7\\s+0\\.0%");

            Result unknown = run("sources", "set-total", "nosuch", "3", "--data-dir", data.toString());
            assertThat(unknown.code).isEqualTo(2);
            assertThat(unknown.err.strip()).isEqualTo("set-total: unknown source 'nosuch'; known sources: contracts,"
                    + " inbox, invoices");
            Result negative = run("sources", "set-total", "invoices", "-2", "--data-dir", data.toString());
            assertThat(negative.code).isEqualTo(2);
            assertThat(negative.err.strip()).isEqualTo("set-total: N is the documents the source holds, 0 or more,"
                    + " not -2; try 'ingest-quarantine sources set-total --help' for usage");
            Result notNumber = run("sources", "set-total", "invoices", "many", "--data-dir", data.toString());
            assertThat(notNumber.code).isEqualTo(2);
            assertThat(notNumber.err.lines()).hasSize(1);
            Result notListable = run("sources", "count", "contracts", "--data-dir", data.toString());
            assertThat(notListable.code).isEqualTo(2);
            assertThat(notListable.err.strip()).isEqualTo("count: source 'contracts' cannot be listed: this"
                    + " configuration gives it no sources.contracts.file-roots or .s3-allow; state its total instead (sources"
                    + " set-total contracts N)");
            Result noSubcommand = run("sources", "--data-dir", data.toString());
            assertThat(noSubcommand.code).isEqualTo(2);
            assertThat(noSubcommand.err.lines()).hasSize(1);
            JsonNode invoices = JSON.readTree(run("coverage", "--json", "--data-dir", data.toString()).out).at("/sources/2");
            assertThat(invoices.get("source").asText()).isEqualTo("invoices");
            assertThat(invoices.get("total").asLong()).as("nothing refused was written").isEqualTo(7);
        } finally {
            System.clearProperty("sources.inbox.file-roots");
        }
    }

    /**
     * sources purge-unconfigured lists the records of sources no operator named ("invoices": not configured here, no
     * total, no root) and changes nothing; with --confirm it moves them under _invalid_messages, attempts and error
     * kept, and the stats follow; with no source configured it is refused, nothing written.
     */
    @Test
    void shouldListThenMoveTheRecordsOfUnconfiguredSources() throws Exception {
        QuarantineRecord invoice = store.find("invoices", "inv-0").orElseThrow();
        Result listed = run("sources", "purge-unconfigured", "--data-dir", data.toString());
        assertThat(listed.code).as(listed.err).isZero();
        assertThat(listed.out).contains("invoices\t3").contains("1 unconfigured sources, 3 records; nothing changed")
                .doesNotContain("contracts");
        assertThat(store.find("invoices", "inv-0")).isPresent();

        System.clearProperty("sources.contracts.owner");
        Result unconfigured = run("sources", "purge-unconfigured", "--confirm", "--data-dir", data.toString());
        assertThat(unconfigured.code).isEqualTo(2);
        assertThat(unconfigured.err.lines()).hasSize(1);
        assertThat(unconfigured.err).contains("no source is configured here");
        assertThat(store.find("invoices", "inv-0")).as("nothing written").isPresent();
        System.setProperty("sources.contracts.owner", "legal-ops");

        JsonNode moved = JSON.readTree(run("sources", "purge-unconfigured", "--confirm", "--json", "--data-dir",
                data.toString()).out);
        assertThat(moved.get("moved").asInt()).isEqualTo(3);
        assertThat(moved.at("/sources/invoices").asLong()).isEqualTo(3);
        assertThat(store.find("invoices", "inv-0")).isEmpty();
        QuarantineRecord kept = store.find(org.ingestquarantine.pipeline.RecordKey.INVALID_MESSAGES_SOURCE,
                org.ingestquarantine.operator.UnconfiguredSources.PURGED_PREFIX + invoice.dlqId()).orElseThrow();
        assertThat(kept.dlqId()).isEqualTo(invoice.dlqId());
        assertThat(kept.reasonCode()).isEqualTo(invoice.reasonCode());
        assertThat(kept.attempts()).isEqualTo(invoice.attempts());
        assertThat(store.attempts(kept.dlqId())).hasSize(invoice.attempts());
        assertThat(run("stats", "--data-dir", data.toString()).out).containsPattern("_invalid_messages\\s+3\\s+3\\s+3")
                .containsPattern("contracts\\s+2\\s+1\\s+1").doesNotContain("invoices");
        assertThat(run("sources", "purge-unconfigured", "--data-dir", data.toString()).out)
                .contains("0 unconfigured sources, 0 records");
    }

    @Test
    void shouldShowOneRecordByIdOrName() throws Exception {
        Result byName = run("show", "contracts/2026/11/lease.pdf", "--data-dir", data.toString());
        assertThat(byName.code).isZero();
        assertThat(byName.out).contains(lease.dlqId(), "ambiguous_parse java.lang.IllegalStateException",
                "sha256 " + lease.payloadSha256());
        // the fixture's source gave no version: said in words, never a bare "null"
        assertThat(byName.out).contains("source_version").doesNotContainPattern("\\bnull\\b");
        assertThat(byName.out.lines().filter(l -> l.matches("\\s+[12]\\s+.*"))).hasSize(2);
        assertThat(byName.out).containsPattern("(?m)^source_uri\\s+" + java.util.regex.Pattern.quote(LEASE_URI) + "$");

        JsonNode json = JSON.readTree(run("show", lease.dlqId(), "--json", "--data-dir", data.toString()).out);
        assertThat(json.at("/record/doc_id").asText()).isEqualTo("2026/11/lease.pdf");
        assertThat(json.at("/record/source_uri").asText()).isEqualTo(LEASE_URI);
        assertThat(json.at("/attempts/0/source_uri").isNull()).as("the first attempt named none").isTrue();
        assertThat(json.at("/attempts/1/source_uri").asText()).isEqualTo(LEASE_URI);
        assertThat(json.at("/attempts/1/error_class").asText()).isEqualTo("ambiguous_parse");
        assertThat(json.get("payload_stored").asBoolean()).isTrue();
        assertThat(byName.out).containsPattern("(?m)^replays\\s+0 \\(no drain has replayed it\\)$");
        assertThat(json.at("/record/replay_count").asInt()).isZero();
        assertThat(json.at("/record/last_drain_run_id").isNull()).isTrue();
    }

    /** show --stack-trace: the stored trace's types and frames, its messages left out (they may quote the document). */
    @Test
    void shouldPrintARecordsStackTraceWithoutItsMessages() throws Exception {
        Result text = run("show", "contracts/2026/11/lease.pdf", "--stack-trace", "--data-dir", data.toString());

        assertThat(text.code).as(text.err).isZero();
        assertThat(text.out).startsWith("stack trace of " + lease.dlqId() + " (")
                .contains("\njava.lang.IllegalStateException: [message left out]\n\tat org.ingestquarantine.cli.OperatorCommandsIT.setUp(")
                .doesNotContain("missing /Root");
        JsonNode json = JSON.readTree(run("show", lease.dlqId(), "--stack-trace", "--json", "--data-dir", data.toString()).out);
        assertThat(json.get("stored").asBoolean()).isTrue();
        assertThat(json.get("stack_trace").asText()).startsWith("java.lang.IllegalStateException: [message left out]\n")
                .doesNotContain("missing /Root");
        Result none = run("show", "invoices/inv-0", "--stack-trace", "--data-dir", data.toString());
        assertThat(none.code).isZero();
        assertThat(none.out.strip()).matches("no stack trace for \\w{26}: none recorded");
    }

    @Test
    void shouldGroupOverdueRecordsByOwner() throws Exception {
        Result r = run("overdue", "--older-than", "90d", "--data-dir", data.toString());
        assertThat(r.code).isZero();
        assertThat(r.out).startsWith("4 open records first seen before").contains("legal-ops: 1 records")
                .contains(org.ingestquarantine.operator.OperatorService.UNOWNED + ": 3 records");
        assertThat(run("overdue", "--older-than", "200d", "--json", "--data-dir", data.toString()).out)
                .contains("\"documents\":0");
        Result all = run("overdue", "--older-than", "0s", "--data-dir", data.toString());
        assertThat(all.code).as(all.err).isZero();
        assertThat(all.out).as("0: every open record").startsWith("4 open records first seen before");
        assertThat(run("overdue", "--older-than", "-1d", "--data-dir", data.toString()).code).isEqualTo(2);
    }

    /**
     * An age of 0 deletes everything for expire-payloads and prune-journal: refused (exit 2) with one line saying
     * why, before the database starts (here it is down: an exit 1 would mean it was tried), and nothing changes;
     * overdue, which only reads, refuses only a negative age, in the same words.
     */
    @Test
    void shouldRefuseAZeroAgeWhereItWouldDeleteEverythingAndSayWhy() throws Exception {
        long before = rows();
        Path payload = Path.of(java.net.URI.create(lease.payloadUri()));
        assertThat(payload).exists();
        System.setProperty("db.url", "jdbc:postgresql://127.0.0.1:" + FreePort.find() + "/postgres");
        System.setProperty("db.connect-timeout-ms", "300");

        Result expireZero = run("expire-payloads", "--older-than", "0s", "--data-dir", data.toString());
        Result expireIso = run("expire-payloads", "--older-than", "PT0S", "--json", "--data-dir", data.toString());
        Result pruneZero = run("prune-journal", "--older-than", "0d", "--data-dir", data.toString());
        Result overdueNegative = run("overdue", "--older-than", "-P1D", "--data-dir", data.toString());

        for (Result r : new Result[] {expireZero, expireIso, pruneZero, overdueNegative}) {
            assertThat(r.code).as(r.err).isEqualTo(2);
            assertThat(r.err.strip()).doesNotContain("\n").doesNotContain("Exception").doesNotContain("PT");
            assertThat(r.out).isEmpty();
        }
        assertThat(expireZero.err.strip()).isEqualTo("expire-payloads: --older-than must be more than 0, was 0s: 0s would"
                + " expire every payload, even those of records seen a moment ago;"
                + " try 'ingest-quarantine expire-payloads --help' for usage");
        assertThat(expireIso.err).isEqualTo(expireZero.err);
        assertThat(pruneZero.err).startsWith("prune-journal: --older-than must be more than 0, was 0s: 0s would delete"
                + " every closed journal row, even those closed a moment ago");
        assertThat(overdueNegative.err).startsWith("overdue: --older-than must be 0 or more, was -1d 0h;");
        assertThat(run("expire-payloads", "--help").out.replaceAll("\\s+", " "))
                .contains("0 is refused: it would expire every payload");
        assertThat(payload).exists();
        assertThat(rows()).isEqualTo(before);
    }

    @Test
    void shouldReproduceFromTheStoredPayload() {
        Result r = run("reproduce", "contracts/2026/11/lease.pdf", "--data-dir", data.toString());
        assertThat(r.code).as(r.err).isZero();
        assertThat(r.out.strip()).startsWith("contracts/2026/11/lease.pdf: different failure (fingerprint ")
                .endsWith("recorded " + lease.errorFingerprint() + ")");
        Result unknown = run("reproduce", "contracts/none.pdf", "--data-dir", data.toString());
        assertThat(unknown.code).isEqualTo(2);
        assertThat(unknown.err).startsWith("reproduce: no quarantine record contracts/none.pdf");
    }

    @Test
    void shouldDisposeACohortAsUnindexable() throws Exception {
        Result r = run("dispose", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason", "not_a_pdf_vendor",
                "--owner", "billing", "--json", "--data-dir", data.toString());
        assertThat(r.code).as(r.err).isZero();
        assertThat(JSON.readTree(r.out).get("unindexable").asInt()).isEqualTo(3);
        assertThat(run("stats", "--source", "invoices", "--data-dir", data.toString()).out)
                .containsPattern("invoices\\s+3\\s+3\\s+0\\s+0\\s+0\\s+0\\s+3\\s+0");
    }

    /**
     * One team's owner never lands on another source's records: a cohort spanning two sources is refused without
     * --source (exit 2, both named, nothing changed), and --source narrows dispose to exactly that source.
     */
    @Test
    void shouldRefuseOneOwnerForACohortOfSeveralSourcesAndDisposeOneSourceWithSource() throws Exception {
        notPdfInContracts();
        String before = checksum();

        Result refused = run("dispose", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason", "vendor_format",
                "--owner", "billing", "--data-dir", data.toString());

        assertThat(refused.code).as(refused.err).isEqualTo(2);
        assertThat(refused.out).isEmpty();
        assertThat(refused.err.strip()).doesNotContain("\n").startsWith("dispose: --source is required: fingerprint fp-not-pdf"
                + " has open records in 2 sources (contracts, invoices)");
        assertThat(checksum()).as("nothing changed").isEqualTo(before);

        Result one = run("dispose", "--fingerprint", "fp-not-pdf", "--source", "invoices", "--unindexable", "--reason",
                "vendor_format", "--owner", "billing", "--json", "--data-dir", data.toString());

        assertThat(one.code).as(one.err).isZero();
        assertThat(JSON.readTree(one.out).get("unindexable").asInt()).isEqualTo(3);
        assertThat(ownerGroups("WHERE error_fingerprint = 'fp-not-pdf'"))
                .containsExactly("contracts open legal-ops 2", "invoices unindexable billing 3");
        assertThat(run("dispose", "--fingerprint", "fp-not-pdf", "--source", "nosuch", "--unindexable", "--reason",
                "x", "--owner", "t", "--data-dir", data.toString()).err).startsWith("dispose: unknown source 'nosuch'");
    }

    /** dispose --dry-run and drain --dry-run print the selection per source and change no row of any table. */
    @Test
    void shouldPrintTheSelectionOfADryRunAndChangeNothing() throws Exception {
        notPdfInContracts();
        String before = checksum();

        Result dispose = run("dispose", "--dry-run", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason",
                "vendor_format", "--owner", "billing", "--data-dir", data.toString());
        JsonNode disposeJson = JSON.readTree(run("dispose", "--dry-run", "--json", "--fingerprint", "fp-not-pdf",
                "--source", "contracts", "--unindexable", "--reason", "vendor_format", "--owner", "billing",
                "--data-dir", data.toString()).out);
        Result drain = run("drain", "--dry-run", "--fingerprint", "fp-not-pdf", "--limit", "4", "--rate", "2",
                "--data-dir", data.toString());
        JsonNode drainJson = JSON.readTree(run("drain", "--dry-run", "--json", "--fingerprint", "fp-not-pdf",
                "--source", "invoices", "--limit", "10", "--rate", "2", "--data-dir", data.toString()).out);

        assertThat(checksum()).as("every table byte for byte as before").isEqualTo(before);
        assertThat(dispose.code).as(dispose.err).isZero();
        assertThat(dispose.out).startsWith("dry run: nothing changed; dispose would move nothing (the cohort spans 2"
                + " sources").containsPattern("contracts\\s+2").containsPattern("invoices\\s+3");
        assertThat(disposeJson.get("records").asInt()).isEqualTo(2);
        assertThat(disposeJson.get("records_by_source").toString()).isEqualTo("{\"contracts\":2}");
        assertThat(disposeJson.get("refused").asBoolean()).isFalse();
        assertThat(drain.code).as(drain.err).isZero();
        // the oldest 4 of 5 (the invoices were recorded first); 8 requests 0.625 s apart (1 s / 2, 25% headroom)
        assertThat(drain.out).startsWith("dry run: nothing changed; drain would select 4 of 5 open records")
                .contains("about 8 source requests, 5s at 2.0/s (the whole cohort: 6.3s)")
                .containsPattern("contracts\\s+1").containsPattern("invoices\\s+3");
        assertThat(drainJson.get("cohort_documents").asInt()).isEqualTo(3);
        assertThat(drainJson.get("dlq_ids")).hasSize(3);
        assertThat(drainJson.get("selected_by_source").toString()).isEqualTo("{\"invoices\":3}");
    }

    /** records lists a fingerprint's records of every disposition, narrowed by --source and cut by --limit. */
    @Test
    void shouldListTheRecordsOfAFingerprint() throws Exception {
        notPdfInContracts();
        assertThat(run("dispose", "--fingerprint", "fp-not-pdf", "--source", "contracts", "--unindexable", "--reason",
                "vendor_format", "--owner", "legal-ops", "--data-dir", data.toString()).code).isZero();

        Result all = run("records", "--fingerprint", "fp-not-pdf", "--data-dir", data.toString());
        JsonNode contracts = JSON.readTree(run("records", "--json", "--fingerprint", "fp-not-pdf", "--source",
                "contracts", "--limit", "1", "--data-dir", data.toString()).out);

        assertThat(all.code).as(all.err).isZero();
        assertThat(all.out).contains("record", "doc_id", "disposition", "owner")
                .containsPattern("invoices\\s+inv-0\\s+permanent_input\\s+not_pdf\\s+1\\s+\\S+\\s+\\S+\\s+open")
                .containsPattern("contracts\\s+c-1\\s+permanent_input\\s+vendor_format\\s+1\\s+\\S+\\s+\\S+\\s+unindexable"
                        + "\\s+legal-ops").endsWith("5 records of fingerprint fp-not-pdf" + System.lineSeparator());
        assertThat(contracts.get("total").asInt()).isEqualTo(2);
        assertThat(contracts.get("cut").asInt()).isEqualTo(1);
        assertThat(contracts.at("/records/0/doc_id").asText()).isEqualTo("c-0");
        assertThat(contracts.at("/records/0/dlq_id").asText()).hasSize(26);
        assertThat(run("records", "--fingerprint", "fp-not-pdf", "--source", "nosuch", "--data-dir",
                data.toString()).code).isEqualTo(2);
        Result unknown = run("records", "--fingerprint", "deadbeef", "--data-dir", data.toString());
        assertThat(unknown.code).as(unknown.out).isEqualTo(2);
        assertThat(unknown.err.strip()).startsWith("records: --fingerprint deadbeef: no record has this fingerprint")
                .doesNotContain("\n");
    }

    /** attempts shows the journal rows of the record's (source, doc_id) only, oldest first, open ones marked. */
    @Test
    void shouldShowTheAttemptJournalOfARecord() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO attempt_journal (delivery_key, source, doc_id, delivery_count, started_at, stage,"
                    + " closed_at, outcome) VALUES"
                    + " ('q/m-1', 'invoices', 'inv-1', 1, '2026-11-01T10:00:00Z', 'parse', '2026-11-01T10:00:02Z', 'released'),"
                    + " ('q/m-1', 'invoices', 'inv-1', 2, '2026-11-01T10:05:00Z', 'fetch', NULL, NULL),"
                    + " ('q/m-2', 'invoices', 'inv-2', 1, '2026-11-01T10:00:00Z', 'parse', '2026-11-01T10:00:01Z', 'quarantined')");
        }

        Result r = run("attempts", "invoices/inv-1", "--data-dir", data.toString());
        JsonNode json = JSON.readTree(run("attempts", "--json", "invoices/inv-1", "--data-dir", data.toString()).out);

        assertThat(r.code).as(r.err).isZero();
        assertThat(r.out).contains("(invoices/inv-1): 2 journal rows")
                .containsPattern("1\\s+q/m-1\\s+2026-11-01T10:00:00Z\\s+parse\\s+2026-11-01T10:00:02Z\\s+released")
                .containsPattern("2\\s+q/m-1\\s+2026-11-01T10:05:00Z\\s+fetch\\s+- \\(not closed\\)")
                .doesNotContain("q/m-2");
        assertThat(json.get("deliveries")).hasSize(2);
        assertThat(json.at("/deliveries/0/delivery_count").asInt()).isEqualTo(1);
        assertThat(json.at("/deliveries/1/outcome").isNull()).isTrue();
        Result unknown = run("attempts", "invoices/none", "--data-dir", data.toString());
        assertThat(unknown.code).isEqualTo(2);
        assertThat(unknown.err).startsWith("attempts: no quarantine record invoices/none");
    }

    /**
     * sources sync-owners gives open records their source's configured owner, counted per source; a record an
     * operator disposed with --owner keeps it; a second run changes nothing.
     */
    @Test
    void shouldGiveOpenRecordsTheOwnerConfiguredLater() throws Exception {
        notPdfInContracts();
        store.record(FailureEvidence.builder("contracts", "d-0").errorClass(ErrorClass.PERMANENT_INPUT)
                .errorFingerprint("fp-vendor").reasonCode("not_pdf").parserVersion(ParserVersion.CURRENT).build());
        assertThat(run("dispose", "--fingerprint", "fp-vendor", "--unindexable", "--reason", "vendor_format", "--owner",
                "vendor-desk", "--data-dir", data.toString()).code).isZero();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE quarantine SET owner = 'old-team' WHERE source = 'contracts' AND doc_id = 'c-0'");
        }
        System.setProperty("sources.invoices.owner", "billing");
        try {
            Result r = run("sources", "sync-owners", "--data-dir", data.toString());
            JsonNode again = JSON.readTree(run("sources", "sync-owners", "--json", "--data-dir", data.toString()).out);

            assertThat(r.code).as(r.err).isZero();
            assertThat(r.out).contains("contracts\tlegal-ops\t1", "invoices\tbilling\t3")
                    .contains("4 open records given their source's configured owner (2 sources with an owner configured)");
            assertThat(again.get("changed").toString()).isEqualTo("{\"contracts\":0,\"invoices\":0}");
            assertThat(ownerGroups("")).containsExactly("contracts open legal-ops 3",
                    "contracts unindexable vendor-desk 1", "invoices open billing 3");
            assertThat(JSON.readTree(run("overdue", "--json", "--older-than", "0s", "--data-dir", data.toString()).out)
                    .at("/owners").toString()).as("the summaries follow").contains("\"billing\"")
                    .doesNotContain("old-team").doesNotContain(org.ingestquarantine.operator.OperatorService.UNOWNED);
        } finally {
            System.clearProperty("sources.invoices.owner");
        }
    }

    /** @return "source disposition owner count" per group of the records the clause selects, sorted */
    private static List<String> ownerGroups(String where) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT source, disposition, owner, count(*) FROM quarantine " + where
                     + " GROUP BY 1, 2, 3 ORDER BY 1, 2")) {
            List<String> groups = new ArrayList<>();
            while (rs.next()) {
                groups.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getLong(4));
            }
            return groups;
        }
    }

    /** Two open records of fp-not-pdf in contracts, recorded after the three invoices. */
    private void notPdfInContracts() {
        for (int i = 0; i < 2; i++) {
            store.record(FailureEvidence.builder("contracts", "c-" + i).errorClass(ErrorClass.PERMANENT_INPUT)
                    .errorFingerprint("fp-not-pdf").reasonCode("not_pdf").parserVersion(ParserVersion.CURRENT).build());
        }
    }

    /** @return a trail entry's action, actor, channel, records selected, status, counts and selection */
    private static String summary(JsonNode entry) {
        return String.join(" ", entry.get("action").asText(), entry.get("actor").asText(), entry.get("channel").asText(),
                entry.get("selected").asText(), entry.get("status").asText(), entry.get("outcome_counts").toString(),
                entry.get("selection").toString());
    }

    /** @return row counts and an md5 of every row of every table a dispose or a drain could write */
    private static String checksum() throws Exception {
        StringBuilder b = new StringBuilder();
        for (String table : new String[] {"quarantine", "quarantine_attempt", "quarantine_summary", "source_summary",
                "drain_runs", "drain_run_items", "attempt_journal", "documents", "chunks", "source_request_buckets"}) {
            try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text),"
                         + " '')) FROM " + table + " t")) {
                rs.next();
                b.append(table).append(' ').append(rs.getLong(1)).append(' ').append(rs.getString(2)).append('\n');
            }
        }
        return b.toString();
    }

    /** An owner too long for the store's summary key, or with control characters, is bad input, not an outage. */
    @Test
    void shouldRefuseAnOverlongOrUnprintableOwnerAsBadInput() throws Exception {
        long before = rows();
        for (String owner : new String[] {"o".repeat(3000), "team\u001b[31mred", "a\nb"}) {
            Result r = run("dispose", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason", "x", "--owner", owner,
                    "--data-dir", data.toString());
            assertThat(r.code).as(r.err).isEqualTo(2);
            assertThat(r.err.strip()).startsWith("dispose: --owner ").doesNotContain("PostgreSQL").doesNotContain("\n")
                    .doesNotContain("\u001b").doesNotContain("ooooo");
        }
        assertThat(run("dispose", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason", "r".repeat(201), "--owner",
                "team", "--data-dir", data.toString()).err).contains("--reason is 201 characters long; give at most 200");
        assertThat(rows()).isEqualTo(before);
    }

    @Test
    void shouldDrainFromTheSourceFolder() throws Exception {
        Path folder = Files.createDirectories(data.resolve("invoices"));
        Files.write(folder.resolve("inv-0"), "still not a PDF".getBytes(StandardCharsets.US_ASCII));
        System.setProperty("sources.invoices.base-uri", folder.toUri().toString());
        System.setProperty("sources.invoices.file-roots", folder.toString());
        try {
            Result r = run("drain", "--fingerprint", "fp-not-pdf", "--limit", "3", "--rate", "20", "--json",
                    "--data-dir", data.toString());
            assertThat(r.code).as(r.err).isZero();
            JsonNode report = JSON.readTree(r.out);
            assertThat(report.at("/outcomes/deleted_at_source").asInt()).isEqualTo(2);
            assertThat(report.get("selected").asInt()).isEqualTo(3);
            assertThat(report.get("source_requests").asInt()).isEqualTo(2 + 2);
            assertThat(report.get("outcomes").fieldNames()).toIterable().anyMatch(k -> k.startsWith("still_failing:"));
            // the replayed record's history names this run, in show and its JSON
            Result shown = run("show", "invoices/inv-0", "--data-dir", data.toString());
            assertThat(shown.out).containsPattern("(?m)^replays\\s+1, last \\S+ by drain run "
                    + report.get("run_id").asText() + "$");
            JsonNode record = JSON.readTree(run("show", "invoices/inv-0", "--json", "--data-dir", data.toString()).out)
                    .get("record");
            assertThat(record.get("replay_count").asInt()).isEqualTo(1);
            assertThat(record.get("last_drain_run_id").asText()).isEqualTo(report.get("run_id").asText());
            assertThat(record.get("last_replayed_at").isTextual()).isTrue();
        } finally {
            System.clearProperty("sources.invoices.base-uri");
            System.clearProperty("sources.invoices.file-roots");
        }
    }

    /**
     * A dispose and a drain from the command line each leave one trail entry, which actions lists newest first (as
     * a table and as JSON): who (--actor, else the user running the command, also the drain run's started_by), the
     * channel cli, the exact selection, the records selected, the counts. A refused dispose leaves none.
     */
    @Test
    void shouldRecordEveryDisposeAndDrainInTheActionsTrail() throws Exception {
        notPdfInContracts();
        Path folder = Files.createDirectories(data.resolve("invoices"));
        System.setProperty("sources.invoices.base-uri", folder.toUri().toString());
        System.setProperty("sources.invoices.file-roots", folder.toString());
        try {
            assertThat(run("dispose", "--fingerprint", "fp-none", "--unindexable", "--reason", "r", "--owner", "o",
                    "--data-dir", data.toString()).code).isEqualTo(2);
            assertThat(run("actions", "--data-dir", data.toString()).out.strip())
                    .isEqualTo("no action recorded yet (dispose and drain record theirs)");
            Result disposed = run("dispose", "--fingerprint", "fp-not-pdf", "--source", "contracts", "--class",
                    "permanent_input", "--unindexable", "--reason", "not_a_pdf_vendor", "--owner", "legal-ops",
                    "--actor", "ops-alice", "--json", "--data-dir", data.toString());
            assertThat(disposed.code).as(disposed.err).isZero();
            Result drained = run("drain", "--fingerprint", "fp-not-pdf", "--source", "invoices", "--limit", "2",
                    "--rate", "20", "--json", "--data-dir", data.toString());
            assertThat(drained.code).as(drained.err).isZero();

            JsonNode trail = JSON.readTree(run("actions", "--json", "--data-dir", data.toString()).out).get("actions");
            assertThat(trail).hasSize(2);
            assertThat(trail).extracting(OperatorCommandsIT::summary).containsExactly(
                    "drain " + System.getProperty("user.name") + " cli 2 finished {\"deleted_at_source\":2} {\"fingerprint\":"
                            + "\"fp-not-pdf\",\"parser_version\":null,\"error_class\":null,\"source\":\"invoices\",\"limit\":2}",
                    "dispose ops-alice cli 2 finished {\"unindexable\":2} {\"fingerprint\":\"fp-not-pdf\",\"parser_version\""
                            + ":null,\"error_class\":\"permanent_input\",\"source\":\"contracts\",\"limit\":null}");
            assertThat(trail.get(0).get("drain_run_id").asText()).isEqualTo(JSON.readTree(drained.out).get("run_id").asText());
            assertThat(trail.get(1).get("reason_code").asText()).isEqualTo("not_a_pdf_vendor");
            assertThat(trail.get(1).get("action_id").asText()).isEqualTo(JSON.readTree(disposed.out).get("action_id").asText());

            Result table = run("actions", "--limit", "1", "--data-dir", data.toString());
            assertThat(table.code).as(table.err).isZero();
            assertThat(table.out.lines()).hasSize(2);
            assertThat(table.out).containsPattern(System.getProperty("user.name") + "\\s+cli\\s+drain\\s+fp-not-pdf\\s+-\\s+-"
                    + "\\s+invoices\\s+2\\s+2\\s+finished\\s+deleted_at_source=2");
            try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT started_by FROM drain_runs")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo(System.getProperty("user.name"));
            }
            assertThat(run("dispose", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason", "r", "--owner", "o",
                    "--actor", " ", "--data-dir", data.toString()).err).startsWith("dispose: --actor is required");
        } finally {
            System.clearProperty("sources.invoices.base-uri");
            System.clearProperty("sources.invoices.file-roots");
        }
    }

    /**
     * A folder an ingest recorded as its source's root (table source_roots), deleted since: the drain says the
     * folder is gone, naming it, rather than calling the source unknown; and a run that attempted none of its
     * selection exits non-zero with one line on stderr.
     */
    @Test
    void shouldSayTheRecordedFolderIsGoneAndExitNonZeroWhenNothingWasDrained() throws Exception {
        Path folder = Files.createDirectories(data.resolve("invoices-folder"));
        new org.ingestquarantine.ingest.SourceRoots(dataSource(), Clock.systemUTC())
                .record("invoices", folder.toAbsolutePath(), org.ingestquarantine.ingest.SourceRoots.INGEST_COMMAND);
        Files.delete(folder);
        long before = rows();

        Result r = run("drain", "--fingerprint", "fp-not-pdf", "--limit", "3", "--rate", "20", "--json",
                "--data-dir", data.toString());

        assertThat(r.code).as(r.err).isEqualTo(DrainCommand.NOTHING_ATTEMPTED_EXIT).isNotZero();
        JsonNode report = JSON.readTree(r.out);
        assertThat(report.at("/outcomes/not_attempted:source_folder_missing").asInt()).isEqualTo(3);
        assertThat(report.get("outcomes").size()).isEqualTo(1);
        assertThat(r.err.strip()).doesNotContain("\n").startsWith("drain: nothing drained: all 3 selected records"
                + " were not attempted (source_folder_missing): the folder " + folder.toAbsolutePath())
                .contains("no longer exists");
        assertThat(rows()).as("records left exactly as they were").isEqualTo(before);
        assertThat(run("drain", "--help").out).contains("Exit codes:", DrainCommand.NOTHING_ATTEMPTED_EXIT
                + "   nothing was drained");
    }

    @ParameterizedTest
    @ValueSource(strings = {"stats", "cohorts", "coverage", "show", "overdue", "reproduce", "drain", "dispose", "records",
            "attempts", "actions",
            "expire-payloads", "erase", "prune-journal", "serve"})
    void shouldExplainEveryCommandWithHelp(String command) {
        Result r = run(command, "--help");
        assertThat(r.code).isZero();
        assertThat(r.out).contains("Usage: ingest-quarantine " + command, "--json", "--data-dir", "--profile");
    }

    @Test
    void shouldRefuseUnknownRecordsWithOneLineAndChangeNothing() throws Exception {
        long before = rows();
        Result unknownId = run("show", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--data-dir", data.toString());
        Result unknownName = run("show", "contracts/missing.pdf", "--data-dir", data.toString());
        Result malformed = run("show", "nonsense", "--data-dir", data.toString());
        Result badClass = run("cohorts", "--class", "flaky", "--data-dir", data.toString());
        Result badLimit = run("cohorts", "--limit", "0", "--data-dir", data.toString());
        Result unknownFingerprint = run("dispose", "--fingerprint", "fp-none", "--unindexable", "--reason", "x",
                "--owner", "team", "--data-dir", data.toString());
        Result zeroRate = run("drain", "--fingerprint", "fp-not-pdf", "--limit", "5", "--rate", "0", "--data-dir",
                data.toString());
        Result negativeRate = run("drain", "--fingerprint", "fp-not-pdf", "--limit", "5", "--rate", "-1", "--data-dir",
                data.toString());
        long drainStarted = System.nanoTime();
        Result drainUnknown = run("drain", "--fingerprint", "fp-none", "--limit", "5", "--rate", "5", "--data-dir",
                data.toString());
        Duration drainRefusal = Duration.ofNanos(System.nanoTime() - drainStarted);
        Result nothingToErase = run("erase", "--source", "contracts", "--doc-id", "none.pdf", "--data-dir", data.toString());

        for (Result r : new Result[] {unknownId, unknownName, malformed, badClass, badLimit, unknownFingerprint,
                nothingToErase, zeroRate, negativeRate, drainUnknown}) {
            assertThat(r.code).isEqualTo(2);
            assertThat(r.err.strip()).doesNotContain("\n").doesNotContain("Exception").isNotEmpty();
            assertThat(r.out).isEmpty();
        }
        assertThat(unknownId.err).startsWith("show: no quarantine record 01ARZ3NDEKTSV4RRFFQ69G5FAV");
        assertThat(zeroRate.err).startsWith("drain: --rate must be a positive number")
                .contains("try 'ingest-quarantine drain --help' for usage");
        assertThat(drainUnknown.err).startsWith("drain: no open record has fingerprint fp-none");
        // refused from one indexed count, before the parse workers start and the model loads (seconds)
        assertThat(drainRefusal).as("an unknown fingerprint is reported at once").isLessThan(Duration.ofSeconds(2));
        assertThat(rows()).isEqualTo(before);
    }

    /**
     * A mistyped --source is a name that matches nothing (exit 2, one line naming it and the known sources), in
     * every command that filters by source, not an all-zero answer; a configured source with no rows yet answers
     * zeros.
     */
    @Test
    void shouldRefuseASourceThatIsNeitherConfiguredNorInTheData() throws Exception {
        System.setProperty("sources.payroll.owner", "hr-ops");
        try {
            for (String command : new String[] {"stats", "cohorts"}) {
                Result r = run(command, "--source", "nosuch", "--data-dir", data.toString());
                assertThat(r.code).as(command + ": " + r.err).isEqualTo(2);
                assertThat(r.out).isEmpty();
                assertThat(r.err.strip()).doesNotContain("\n")
                        .startsWith(command + ": unknown source 'nosuch'; known sources: ")
                        .contains("contracts", "invoices", "payroll");
                Result known = run(command, "--source", "invoices", "--data-dir", data.toString());
                assertThat(known.code).as(known.err).isZero();
                Result configured = run(command, "--source", "payroll", "--data-dir", data.toString());
                assertThat(configured.code).as(configured.err).isZero();
            }
            assertThat(run("stats", "--source", "payroll", "--data-dir", data.toString()).out)
                    .containsPattern("payroll\\s+0\\s+0|\\(all\\)\\s+0\\s+0");
        } finally {
            System.clearProperty("sources.payroll.owner");
        }
    }

    /**
     * A --data-dir that is a regular file is a data folder that cannot be used: exit 1 with one line, as a folder
     * holding no database is, on the embedded database and on an external one (the payloads are kept there too),
     * and the file is left as it was.
     */
    @ParameterizedTest
    @ValueSource(strings = {"stats", "cohorts", "coverage", "show contracts/2026/11/lease.pdf", "overdue",
            "reproduce contracts/2026/11/lease.pdf", "drain --fingerprint fp-not-pdf --limit 1 --rate 1",
            "dispose --fingerprint fp-not-pdf --unindexable --reason x --owner team", "expire-payloads",
            "erase --source invoices --doc-id inv-0", "prune-journal", "serve --port 0", "seed-demo"})
    void shouldRefuseADataDirThatIsAFileWithExitOne(String commandLine) throws Exception {
        Path file = Files.writeString(data.resolve("not-a-folder.txt"), "a file");
        long before = rows();
        String command = commandLine.split(" ")[0];
        List<String> args = new ArrayList<>(List.of(commandLine.split(" ")));
        args.addAll(List.of("--data-dir", file.toString()));

        Result external = run(args.toArray(String[]::new));
        System.clearProperty("db.mode");
        System.clearProperty("db.url");
        Result embedded = run(args.toArray(String[]::new));

        for (Result r : new Result[] {external, embedded}) {
            assertThat(r.code).as(r.err).isEqualTo(1);
            assertThat(r.err.strip()).startsWith(command + ": no data folder " + file.toAbsolutePath()
                    + " (it is a file, not a folder; pass ").doesNotContain("\n").doesNotContain("Exception");
            assertThat(r.out).isEmpty();
        }
        assertThat(Files.readString(file)).isEqualTo("a file");
        assertThat(rows()).isEqualTo(before);
    }

    @Test
    void shouldNotServeTheApiWithoutAToken() {
        Result r = run("serve", "--port", "0", "--data-dir", data.toString());
        assertThat(r.code).isEqualTo(1);
        assertThat(r.err.strip()).startsWith("serve: operator.api-token is not set").doesNotContain("\n");
    }

    @Test
    void shouldNotServeTheApiWithATokenShorterThanTheLeastLength() {
        System.setProperty("operator.api-token", "x");
        try {
            Result r = run("serve", "--port", "0", "--data-dir", data.toString());
            assertThat(r.code).isEqualTo(1);
            assertThat(r.err.strip()).startsWith("serve: operator.api-token is too short (1 characters); set one of at"
                    + " least 16 (operator.api-token-min-chars)").doesNotContain("\n");
        } finally {
            System.clearProperty("operator.api-token");
        }
    }

    @Test
    void shouldSayInOneLineWhenTheDatabaseIsDown() throws Exception {
        long before = rows();
        System.setProperty("db.url", "jdbc:postgresql://127.0.0.1:" + FreePort.find() + "/postgres");
        System.setProperty("db.connect-timeout-ms", "300"); // each command gives up quickly
        // a question, a record by id, and each command that writes
        for (String[] command : new String[][] {{"stats"}, {"show", lease.dlqId()}, {"reproduce", lease.dlqId()},
                {"drain", "--fingerprint", "fp-not-pdf", "--limit", "5", "--rate", "5"},
                {"dispose", "--fingerprint", "fp-not-pdf", "--unindexable", "--reason", "x", "--owner", "team"},
                {"erase", "--source", "invoices", "--doc-id", "inv-0"}, {"expire-payloads"}}) {
            List<String> args = new ArrayList<>(List.of(command));
            args.addAll(List.of("--data-dir", data.toString()));
            Result r = run(args.toArray(String[]::new));
            assertThat(r.code).as(command[0]).isEqualTo(1);
            assertThat(r.err.strip()).as(command[0]).startsWith(command[0] + ": PostgreSQL at jdbc:postgresql://127.0.0.1:")
                    .contains("is unreachable").doesNotContain("\n");
            assertThat(r.out).as(command[0]).isEmpty();
        }
        assertThat(rows()).as("nothing changed").isEqualTo(before);
        System.clearProperty("db.connect-timeout-ms");
    }

    @Test
    void shouldAnswerOnTheEmbeddedDatabaseOfADataFolder(@TempDir Path fresh) throws Exception {
        System.clearProperty("db.mode");
        System.clearProperty("db.url");
        // a data folder whose pipeline has run once (its database created, stopped since), nothing quarantined
        try (var pg = org.ingestquarantine.db.EmbeddedPostgresService.start(fresh.resolve("postgres"), 0)) {
            assertThat(pg.isRunning()).isTrue();
        }
        Result r = run("stats", "--json", "--data-dir", fresh.toString());
        assertThat(r.code).as(r.err).isZero();
        assertThat(JSON.readTree(r.out).at("/total/records").asLong()).isZero();
        assertThat(fresh.resolve("postgres/PG_VERSION")).exists();
    }

    private static long rows() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM quarantine) * 1000"
                     + " + (SELECT count(*) FROM quarantine_attempt) + (SELECT count(*) FROM quarantine WHERE owner IS NOT NULL) * 1000000")) {
            rs.next();
            return rs.getLong(1);
        }
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
