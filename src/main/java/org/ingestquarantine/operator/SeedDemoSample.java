package org.ingestquarantine.operator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.ingestquarantine.quarantine.PayloadStore;
import org.ingestquarantine.quarantine.StoredObject;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * seed-demo's drainable sample: the oldest open records of a cohort (the ones a canary drain selects first) get a
 * payload in the payload store and a file in a local folder source, {@code <root>/<source>/<doc_id>}, recorded as
 * the source's root ({@code source_roots}, as {@code ingest <folder>} records one) and its base URI, so
 * {@code reproduce} parses their payloads and {@code drain} re-fetches them with no configuration.
 *
 * <p>What the source serves now is seed 003's canary, in the configured shares, spread over the oldest-first order
 * so a canary of any size meets each: the same bytes as the payload, a PDF the running parser reads (closes
 * {@code repaired_parser_fixed}); other bytes than the payload (closes {@code repaired_content_changed}); no file
 * (closes {@code deleted_at_source}); and, for the rest, bytes that are no PDF, as the payload was (stays failing).
 */
public final class SeedDemoSample {

    /** Who recorded the sample's folder as its source's root ({@code source_roots.configured_by}). */
    static final String CONFIGURED_BY = "seed-demo";

    private static final String SOURCE_ROOT = OperatorSql.load("seed-source-root.sql");

    private final PayloadStore payloads;
    private final Path root;
    private final int documents;
    private final List<Integer> outcomeSharesPercent;

    /**
     * @param payloads where the payloads go
     * @param root the folder the sources' folders go under (e.g. {@code <data-dir>/seed-demo})
     * @param documents records in the sample, 0 or more
     * @param outcomeSharesPercent shares of the sample, percent, of: the same bytes, other bytes, no file (the rest
     *     keeps failing); summing to 100 or less
     */
    public SeedDemoSample(PayloadStore payloads, Path root, int documents, List<Integer> outcomeSharesPercent) {
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.root = root.toAbsolutePath().normalize();
        this.documents = documents;
        this.outcomeSharesPercent = List.copyOf(outcomeSharesPercent);
        if (documents < 0 || outcomeSharesPercent.size() != 3
                || outcomeSharesPercent.stream().anyMatch(p -> p < 0)
                || outcomeSharesPercent.stream().mapToInt(Integer::intValue).sum() > 100) {
            throw new IllegalStateException("seed-demo.sample-documents must be 0 or more and"
                    + " seed-demo.sample-outcomes-percent three shares (same bytes, other bytes, gone) summing to 100"
                    + " or less, e.g. 71,6,4");
        }
    }

    /**
     * @param settings the properties {@code seed-demo.sample-documents} and {@code seed-demo.sample-outcomes-percent}
     * @param payloads where the payloads go
     * @param root the folder the sources' folders go under
     * @return the sample they shape
     * @throws IllegalStateException if a property is missing or malformed
     */
    public static SeedDemoSample fromSettings(org.ingestquarantine.pipeline.Settings settings, PayloadStore payloads,
                                              Path root) {
        List<Integer> shares;
        try {
            shares = java.util.Arrays.stream(settings.required("seed-demo.sample-outcomes-percent").split(","))
                    .map(String::trim).map(Integer::valueOf).toList();
        } catch (NumberFormatException e) {
            throw new IllegalStateException("seed-demo.sample-outcomes-percent must be whole percents separated by"
                    + " commas, e.g. 71,6,4");
        }
        return new SeedDemoSample(payloads, root, (int) settings.requiredNumber("seed-demo.sample-documents"), shares);
    }

    /** @return where the sources' folders go */
    public Path root() {
        return root;
    }

    /**
     * Writes the sample into the seeding transaction (the records must be there) and the files beside it.
     *
     * @param jdbc a template whose statements run in the seeding transaction, after the records and the source totals
     * @param fingerprint the cohort's fingerprint
     * @param parserVersion the cohort's parser version
     * @throws org.springframework.dao.DataAccessException if the database fails
     * @throws UncheckedIOException if a payload or a file cannot be written
     */
    void write(JdbcTemplate jdbc, String fingerprint, String parserVersion) {
        record Row(String dlqId, String source, String docId) {
        }
        List<Row> rows = jdbc.query("SELECT dlq_id, source, doc_id FROM quarantine"
                + " WHERE disposition = 'open' AND error_fingerprint = ? AND parser_version = ?"
                + " ORDER BY first_seen_at, dlq_id LIMIT ?", (rs, n) -> new Row(rs.getString(1), rs.getString(2),
                rs.getString(3)), fingerprint, parserVersion, documents);
        Set<String> sources = new TreeSet<>();
        List<Object[]> updates = new ArrayList<>();
        for (int j = 0; j < rows.size(); j++) {
            Row r = rows.get(j);
            Path folder = root.resolve(r.source());
            Path file = folder.resolve(r.docId()).normalize();
            int outcome = outcome(j);
            byte[] payload = outcome == 3 ? notAPdf(r.docId()) : pdf(r.source() + " " + r.docId() + " as first fetched");
            try {
                Files.createDirectories(file.getParent());
                switch (outcome) {
                    case 0, 3 -> Files.write(file, payload);
                    case 1 -> Files.write(file, pdf(r.source() + " " + r.docId() + " as revised since"));
                    default -> Files.deleteIfExists(file);
                }
                StoredObject stored = payloads.put(payload);
                // a folder's source version is its content's sha256
                updates.add(new Object[] {stored.uri(), stored.sha256(), stored.bytes(), stored.sha256(),
                        file.toUri().toString(), r.dlqId()});
            } catch (IOException e) {
                throw new UncheckedIOException("seed-demo could not write its sample under " + root + " or into"
                        + " the payload store (" + e.getMessage() + "); nothing was committed", e);
            }
            sources.add(r.source());
        }
        jdbc.batchUpdate("UPDATE quarantine SET payload_uri = ?, payload_sha256 = ?, payload_bytes = ?,"
                + " source_version = ?, source_uri = ? WHERE dlq_id = ?", updates);
        List<Object[]> roots = new ArrayList<>();
        List<Object[]> totals = new ArrayList<>();
        for (String source : sources) {
            Path folder = root.resolve(source);
            roots.add(new Object[] {source, folder.toString(), CONFIGURED_BY});
            totals.add(new Object[] {folder.toUri().toString(), source});
        }
        jdbc.batchUpdate(SOURCE_ROOT, roots);
        jdbc.batchUpdate("UPDATE source_totals SET base_uri = ? WHERE source = ?", totals);
    }

    /** @return 0 same bytes, 1 other bytes, 2 gone, 3 still failing, for the j-th oldest record */
    private int outcome(int j) {
        int position = (int) ((j * 37L) % 100); // spreads each share over the oldest-first order
        int bound = 0;
        for (int k = 0; k < outcomeSharesPercent.size(); k++) {
            bound += outcomeSharesPercent.get(k);
            if (position < bound) {
                return k;
            }
        }
        return 3;
    }

    private static byte[] notAPdf(String docId) {
        return ("%PDF-1.7\nseed-demo: a truncated file, no objects (" + docId + ")\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** @return a one-page PDF with a text layer holding {@code line} (ASCII) */
    private static byte[] pdf(String line) {
        try (PDDocument document = new PDDocument()) {
            PDPage page = new PDPage(PDRectangle.LETTER);
            document.addPage(page);
            try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                content.beginText();
                content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 11);
                content.newLineAtOffset(72, 720);
                content.showText("seed-demo contract " + line);
                content.endText();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            document.save(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
