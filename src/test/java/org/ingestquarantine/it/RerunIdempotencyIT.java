package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.ingestquarantine.operator.CoverageRow;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.SummaryChecks;
import org.ingestquarantine.testsupport.TestPipeline;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures ingesting the same folder again, by a new application on the same data, leaves indexed documents
 * untouched, adds one attempt to each existing quarantine record, re-indexes only a document whose
 * bytes changed, and closes the open record of a quarantined document once its fixed file is indexed.
 */
class RerunIdempotencyIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String SOURCE = "reports";
    private static final List<String> GOOD = List.of("a-good.pdf", "b-good.pdf");
    private static final List<String> BAD = List.of("c-not-pdf.pdf", "d-encrypted.pdf");

    @TempDir
    Path data;

    @TempDir
    Path sources;

    private Path folder;

    @BeforeEach
    void copyCorpusFiles() throws IOException {
        folder = Files.createDirectories(sources.resolve(SOURCE));
        Files.copy(Corpus.file("c0007.pdf"), folder.resolve("a-good.pdf"));
        Files.copy(Corpus.file("c0018.pdf"), folder.resolve("b-good.pdf"));
        Files.copy(Corpus.file("c0066.pdf"), folder.resolve("c-not-pdf.pdf"));
        Files.copy(Corpus.file("c0034.pdf"), folder.resolve("d-encrypted.pdf"));
    }

    @Test
    void shouldSettleGoodDocumentsAsUnchangedAndAddOneAttemptToBadOnesOnARerun() throws Exception {
        Snapshot first;
        Map<String, QuarantineRecord> firstRecords = new TreeMap<>();
        try (TestPipeline run = TestPipeline.start(data, Map.of())) {
            Map<String, String> outcomes = ingest(run);
            assertThat(outcomes).containsExactlyInAnyOrderEntriesOf(Map.of("a-good.pdf", "indexed",
                    "b-good.pdf", "indexed", "c-not-pdf.pdf", "quarantined", "d-encrypted.pdf", "quarantined"));
            first = Snapshot.of(run.dataSource());
            for (String docId : BAD) {
                firstRecords.put(docId, run.store().find(SOURCE, docId).orElseThrow());
            }
        }
        assertThat(first.documents()).containsOnlyKeys(GOOD);
        assertThat(first.quarantineRows()).isEqualTo(BAD.size());

        try (TestPipeline rerun = TestPipeline.start(data, Map.of())) {
            Map<String, String> outcomes = ingest(rerun);
            assertThat(outcomes).containsExactlyInAnyOrderEntriesOf(Map.of("a-good.pdf", "unchanged",
                    "b-good.pdf", "unchanged", "c-not-pdf.pdf", "quarantined", "d-encrypted.pdf", "quarantined"));
            Snapshot second = Snapshot.of(rerun.dataSource());
            assertThat(second.documents()).as("documents rows, indexed_at included, not rewritten")
                    .isEqualTo(first.documents());
            assertThat(second.chunks()).as("chunk rows not rewritten").isEqualTo(first.chunks());
            assertThat(second.quarantineRows()).as("no second record for a document").isEqualTo(BAD.size());
            for (String docId : BAD) {
                QuarantineRecord before = firstRecords.get(docId);
                QuarantineRecord after = rerun.store().find(SOURCE, docId).orElseThrow();
                assertThat(after.dlqId()).as("record of %s", docId).isEqualTo(before.dlqId());
                assertThat(after.attempts()).as("attempts of %s", docId).isEqualTo(before.attempts() + 1);
                assertThat(after.errorClass()).isEqualTo(before.errorClass());
                assertThat(after.reasonCode()).isEqualTo(before.reasonCode());
                List<QuarantineAttempt> history = rerun.store().attempts(after.dlqId());
                assertThat(history).extracting(QuarantineAttempt::attemptNo).containsExactly(1, 2);
                assertThat(history.get(0).deliveryKey()).isNotEqualTo(history.get(1).deliveryKey());
            }
        }
    }

    @Test
    void shouldReindexOnlyTheDocumentWhoseBytesChanged() throws Exception {
        Snapshot first;
        try (TestPipeline run = TestPipeline.start(data, Map.of())) {
            ingest(run);
            first = Snapshot.of(run.dataSource());
        }
        Path changed = folder.resolve("a-good.pdf");
        Files.copy(Corpus.file("c0047.pdf"), changed, StandardCopyOption.REPLACE_EXISTING);
        String newVersion = sha256(changed);
        assertThat(newVersion).isNotEqualTo(first.documents().get("a-good.pdf").sourceVersion());

        try (TestPipeline rerun = TestPipeline.start(data, Map.of())) {
            Map<String, String> outcomes = ingest(rerun);
            assertThat(outcomes).containsEntry("a-good.pdf", "indexed").containsEntry("b-good.pdf", "unchanged");
            Snapshot second = Snapshot.of(rerun.dataSource());

            DocumentRow before = first.documents().get("a-good.pdf");
            DocumentRow after = second.documents().get("a-good.pdf");
            assertThat(after.sourceVersion()).isEqualTo(newVersion);
            assertThat(after.indexedAt()).isAfter(before.indexedAt());
            assertThat(after.state()).isEqualTo("searchable");
            assertThat(second.chunksOf("a-good.pdf")).as("chunks of the new version").hasSize(after.chunkCount())
                    .doesNotContainAnyElementsOf(first.chunksOf("a-good.pdf"));

            assertThat(second.documents().get("b-good.pdf")).isEqualTo(first.documents().get("b-good.pdf"));
            assertThat(second.chunksOf("b-good.pdf")).isEqualTo(first.chunksOf("b-good.pdf"));
            assertThat(second.documents()).containsOnlyKeys(GOOD);
        }
    }

    @Test
    void shouldCloseTheOpenRecordOfADocumentIndexedAfterItsFileWasFixed() throws Exception {
        try (TestPipeline run = TestPipeline.start(data, Map.of())) {
            ingest(run);
        }
        // the producer fixed both files and published them again: a good PDF in place of the not-a-PDF, and one
        // in place of the encrypted one
        Files.copy(Corpus.file("c0047.pdf"), folder.resolve("c-not-pdf.pdf"), StandardCopyOption.REPLACE_EXISTING);
        Files.write(folder.resolve("d-encrypted.pdf"), TextPdf.of("the decrypted report, page one"));

        try (TestPipeline rerun = TestPipeline.start(data, Map.of())) {
            DataSource db = rerun.dataSource();
            try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement("INSERT INTO source_totals"
                    + " (source, documents, counted_at, counted_by) VALUES (?, 4, now(), 'test')")) {
                s.setString(1, SOURCE);
                s.executeUpdate();
            }
            Map<String, String> outcomes = ingest(rerun);
            assertThat(outcomes).containsExactlyInAnyOrderEntriesOf(Map.of("a-good.pdf", "unchanged",
                    "b-good.pdf", "unchanged", "c-not-pdf.pdf", "indexed", "d-encrypted.pdf", "indexed"));

            for (String docId : BAD) {
                QuarantineRecord r = rerun.store().find(SOURCE, docId).orElseThrow();
                assertThat(r.disposition()).as("record of %s: its bytes (the folder's version) changed", docId)
                        .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
                assertThat(r.closedAt()).as("closed_at of %s", docId).isNotNull();
                assertThat(r.attempts()).as("a close is no attempt").isEqualTo(1);
                assertThat(rerun.store().attempts(r.dlqId())).hasSize(1);
            }
            OperatorService operator = new OperatorService(db, rerun.store(), new LocalPayloadStore(data.resolve("x")),
                    Clock.systemUTC());
            CoverageRow coverage = operator.coverage().stream().filter(row -> row.source().equals(SOURCE))
                    .findFirst().orElseThrow();
            assertThat(List.of(coverage.total(), coverage.indexed(), coverage.openQuarantined(), coverage.unindexable()))
                    .as("each document counted once").containsExactly(4L, 4L, 0L, 0L);
            assertThat(coverage.coverage()).isEqualTo(1.0);
            assertThat(coverage.oldestOpenAge()).as("no open record left").isNull();
            assertThat(operator.overdue(Duration.ZERO).documents()).as("overdue: nothing open").isZero();
            SummaryChecks.assertSummariesMatchTheRecords(db, "after the fixed files were indexed");
        }
    }

    /** Publishes every file of the folder as the {@code ingest} command does, and waits for every outcome. */
    private Map<String, String> ingest(TestPipeline pipeline) throws IOException {
        Map<String, String> keys = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : files.sorted().toList()) {
                String docId = folder.relativize(file).toString();
                keys.put(pipeline.publish(new IngestMessage(SOURCE, docId, file.toUri(), null, null, null)), docId);
            }
        }
        Map<String, String> outcomes = new TreeMap<>();
        keys.forEach((key, docId) -> {
            outcomes.put(docId, pipeline.awaitOutcome(key, WAIT));
            assertThat(pipeline.deliveries(key)).as("deliveries of %s", docId).isEqualTo(1);
        });
        assertThat(pipeline.settlements()).as("settled once each").isEqualTo(keys.size());
        return outcomes;
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    /** One documents row as stored; {@code xmin} names the transaction that last wrote it. */
    record DocumentRow(String sourceVersion, OffsetDateTime indexedAt, int chunkCount, String state,
                       String xmin) {
    }

    /** A chunk row as stored; equal rows with equal {@code xmin} were not rewritten. */
    record ChunkRow(String docId, int seq, String textMd5, String xmin) {
    }

    /** The index and quarantine tables of source {@value #SOURCE} at one moment. */
    record Snapshot(Map<String, DocumentRow> documents, List<ChunkRow> chunks, long quarantineRows) {

        static Snapshot of(DataSource db) throws SQLException {
            Map<String, DocumentRow> documents = new TreeMap<>();
            List<ChunkRow> chunks = new ArrayList<>();
            long quarantineRows;
            try (Connection c = db.getConnection()) {
                try (PreparedStatement s = c.prepareStatement("SELECT doc_id, source_version, indexed_at, chunk_count,"
                        + " state, xmin::text FROM documents WHERE source = ?")) {
                    s.setString(1, SOURCE);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            documents.put(rs.getString(1), new DocumentRow(rs.getString(2),
                                    rs.getObject(3, OffsetDateTime.class), rs.getInt(4), rs.getString(5),
                                    rs.getString(6)));
                        }
                    }
                }
                try (PreparedStatement s = c.prepareStatement("SELECT doc_id, seq, md5(text), xmin::text FROM chunks"
                        + " WHERE source = ? ORDER BY doc_id, seq")) {
                    s.setString(1, SOURCE);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            chunks.add(new ChunkRow(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4)));
                        }
                    }
                }
                try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM quarantine WHERE source = ?")) {
                    s.setString(1, SOURCE);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        quarantineRows = rs.getLong(1);
                    }
                }
            }
            Snapshot snapshot = new Snapshot(documents, chunks, quarantineRows);
            documents.forEach((docId, row) -> assertThat(snapshot.chunksOf(docId))
                    .as("chunk rows of %s against its chunk_count", docId).hasSize(row.chunkCount()).isNotEmpty());
            return snapshot;
        }

        List<ChunkRow> chunksOf(String docId) {
            return chunks.stream().filter(c -> c.docId().equals(docId)).toList();
        }
    }
}
