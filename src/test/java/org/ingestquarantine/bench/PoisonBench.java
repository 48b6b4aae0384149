package org.ingestquarantine.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.delivery.SettledOutcomes;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.pipeline.IngestMessage;

/**
 * Benchmark (bench/broker-bench poison): the whole product, with its real document work (fetch from a folder
 * source, PDFBox in the worker JVMs, chunking, the in-process MiniLM embedding, the index write), on real
 * documents, with 0% poison against 1% poison, on one application per broker.
 *
 * <p>Documents: the {@value #GOOD_FILES} first files (by name) that the corpus manifest ({@code MANIFEST.tsv})
 * says are {@code good}, expected {@code indexed}, opened by PDFBox ({@code ok}), at most
 * {@value #MAX_GOOD_BYTES} bytes and {@value #MAX_GOOD_PAGES} pages, copied into a temporary folder that is
 * the source's one root. Poison, made in the same folder: not-PDF bytes (the corpus's first
 * {@code not_pdf} file of 1 KiB or more: permanent_input, 0 retries) and a truncated PDF (the first half of the
 * first of those good files with {@value #TRUNCATED_MIN_PAGES} pages or more, c0031 in the shared corpus, which
 * PDFBox cannot load: ambiguous_parse, 1 retry; a short cut of a one-page file often still loads, then as
 * no_text_layer), alternating. Every message has its own doc id, so no copy is skipped as unchanged.
 *
 * <p>A round publishes {@code messages} messages, the good ones cycling over the files, with
 * {@code round(messages / 100)} (at least 1) poison messages spread evenly among them in the 1% round and none in
 * the 0% round; good-document throughput is good documents / seconds from the first publish to the last good
 * document's outcome. For each poison document the bench counts its deliveries twice, from the attempt journal
 * (its rows) and from its quarantine record (the attempt history's highest delivery count), and compares them
 * with its class's retries + 1 ({@link RedeliveryPolicies}, from application.properties), and prints the longest
 * time from one of its attempts' close (a release closes before its back-off) to the next one's start. After one unmeasured
 * warm-up round of the same size, repetitions alternate which round goes first; ratio 1%/0% per repetition.
 *
 * <p>Arguments (after {@code poison}): brokers (default {@code sqs}, the embedded profile), messages per round
 * (default 400), repetitions (default 3), corpus folder (default {@code ../shared/corpus}).
 */
final class PoisonBench {

    static final int GOOD_FILES = 20;
    static final long MAX_GOOD_BYTES = 200_000;
    static final int MAX_GOOD_PAGES = 20;
    static final int TRUNCATED_MIN_PAGES = 3;
    private static final String SOURCE = "bench";
    private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(10);

    private PoisonBench() {
    }

    static void run(String[] args) throws Exception {
        List<String> brokers = List.of((args.length > 0 ? args[0] : "sqs").split(","));
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path corpus = Path.of(args.length > 3 ? args[3] : "../shared/corpus").toAbsolutePath().normalize();
        System.out.printf(Locale.ROOT, "broker-bench poison: %d messages per round, %d repetitions, load %.1f%n",
                messages, reps, BrokerBench.loadAverage());
        List<String> summary = new ArrayList<>();
        for (String broker : brokers) {
            summary.add(bench(broker.trim(), messages, reps, corpus));
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "poison run, %d messages per round, %d repetitions, median (min-max); load at"
                + " end %.1f%n", messages, reps, BrokerBench.loadAverage());
        summary.forEach(System.out::println);
    }

    /** One file of the folder source and whether it is poison. */
    private record Doc(String file, boolean poison) {
    }

    private static String bench(String broker, int messages, int reps, Path corpus) throws Exception {
        Path work = Files.createTempDirectory("poison-bench-" + broker);
        Path folder = Files.createDirectories(work.resolve("docs"));
        List<String> good = goodFiles(corpus, folder);
        List<String> poison = poisonFiles(corpus, folder, good);
        System.out.println(broker + ": good files " + good + "; poison files " + poison);
        Map<String, String> p = new HashMap<>();
        p.put(SourceAccess.PREFIX + SOURCE + ".file-roots", folder.toString());
        BrokerBench.BrokerUnderTest b = BrokerBench.prepare(broker, p);
        try (AutoCloseable teardown = b.teardown();
             PipelineApp app = PipelineApp.start(b.profile(), work.resolve("data"), p);
             SettledOutcomes settled = SettledOutcomes.listen(app.context())) {
            Runner runner = new Runner(app, settled, folder, good, poison);
            // warm-up, unmeasured: one whole round (JIT, model, parse workers); a 20-document one left the first
            // repetition cold
            Round warm = runner.round("warm", messages, false);
            System.out.printf(Locale.ROOT, "%s warm-up: %d documents in %.1f s%n", broker, messages, warm.goodSeconds);
            double[] clean = new double[reps];
            double[] poisoned = new double[reps];
            double[] ratio = new double[reps];
            int poisonDocs = 0;
            int poisonExact = 0;
            for (int rep = 0; rep < reps; rep++) {
                Round r0 = null;
                Round r1 = null;
                for (int side = 0; side < 2; side++) {
                    boolean withPoison = (side == 0) == (rep % 2 == 1);
                    Round r = runner.round("r" + (rep + 1) + (withPoison ? "-p1" : "-p0"), messages, withPoison);
                    if (withPoison) {
                        r1 = r;
                    } else {
                        r0 = r;
                    }
                }
                clean[rep] = r0.goodRate();
                poisoned[rep] = r1.goodRate();
                ratio[rep] = poisoned[rep] / clean[rep];
                System.out.printf(Locale.ROOT, "%s rep %d: 0%% poison %d good in %.1f s, %.2f good docs/s | 1%% poison %d good"
                                + " in %.1f s, %.2f good docs/s (all settled in %.1f s) | ratio %.3f, load %.1f%n",
                        broker, rep + 1, r0.good, r0.goodSeconds, clean[rep], r1.good, r1.goodSeconds, poisoned[rep],
                        r1.allSeconds, ratio[rep], BrokerBench.loadAverage());
                for (String line : r1.poisonLines) {
                    System.out.println("    " + line);
                }
                poisonDocs += r1.poisonLines.size();
                poisonExact += r1.poisonExact;
            }
            return String.format(Locale.ROOT, "%-8s good docs/s 0%% %s, 1%% %s, ratio %s; poison documents with deliveries"
                            + " = retries + 1: %d of %d", broker, BrokerBench.stats(clean, "%.2f"),
                    BrokerBench.stats(poisoned, "%.2f"), BrokerBench.stats(ratio, "%.3f"), poisonExact, poisonDocs);
        }
    }

    /** Copies the manifest's first clean, small good files into the folder; @return their names. */
    private static List<String> goodFiles(Path corpus, Path folder) throws IOException {
        List<String> names = new ArrayList<>();
        for (Map<String, String> row : manifest(corpus)) {
            if (names.size() < GOOD_FILES && row.get("category").equals("good") && row.get("expected_class").equals("indexed")
                    && row.get("pdfbox_outcome").equals("ok") && Long.parseLong(row.get("bytes")) <= MAX_GOOD_BYTES
                    && Integer.parseInt(row.get("pages")) <= MAX_GOOD_PAGES) {
                Files.copy(corpus.resolve("pdfs").resolve(row.get("file")), folder.resolve(row.get("file")));
                names.add(row.get("file"));
            }
        }
        return names;
    }

    /** Writes the two poison files (not-PDF bytes, a truncated PDF) into the folder; @return their names. */
    private static List<String> poisonFiles(Path corpus, Path folder, List<String> good) throws IOException {
        String notPdf = manifest(corpus).stream()
                .filter(r -> r.get("category").equals("not_pdf") && Long.parseLong(r.get("bytes")) >= 1024)
                .map(r -> r.get("file")).findFirst().orElseThrow();
        Files.copy(corpus.resolve("pdfs").resolve(notPdf), folder.resolve("notpdf-" + notPdf));
        String whole = manifest(corpus).stream()
                .filter(r -> good.contains(r.get("file")) && Integer.parseInt(r.get("pages")) >= TRUNCATED_MIN_PAGES)
                .map(r -> r.get("file")).findFirst().orElseThrow();
        byte[] bytes = Files.readAllBytes(folder.resolve(whole));
        Files.write(folder.resolve("truncated-" + whole), Arrays.copyOf(bytes, bytes.length / 2));
        return List.of("notpdf-" + notPdf, "truncated-" + whole);
    }

    private static List<Map<String, String>> manifest(Path corpus) throws IOException {
        List<String> lines = Files.readAllLines(corpus.resolve("MANIFEST.tsv"));
        String[] header = lines.get(0).split("\t", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split("\t", -1);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], i < cells.length ? cells[i] : "");
            }
            rows.add(row);
        }
        rows.sort((a, b) -> a.get("file").compareTo(b.get("file")));
        return rows;
    }

    /** What one round saw. */
    private record Round(int good, double goodSeconds, double allSeconds, List<String> poisonLines, int poisonExact) {
        double goodRate() {
            return good / goodSeconds;
        }
    }

    /** The application and the rounds run on it. */
    private static final class Runner {

        private final SettledOutcomes settled;
        private final IngestPublisher publisher;
        private final DataSource db;
        private final RedeliveryPolicies policies;
        private final Path folder;
        private final List<String> good;
        private final List<String> poison;

        Runner(PipelineApp app, SettledOutcomes settled, Path folder, List<String> good, List<String> poison) {
            this.settled = settled;
            this.publisher = app.bean("ingestPublisher", IngestPublisher.class);
            this.db = app.bean("dataSource", DataSource.class);
            this.policies = app.bean("redeliveryPolicies", RedeliveryPolicies.class);
            this.folder = folder;
            this.good = good;
            this.poison = poison;
        }

        Round round(String name, int messages, boolean withPoison) throws Exception {
            int poisonCount = withPoison ? Math.max(1, Math.round(messages / 100f)) : 0;
            List<Doc> docs = new ArrayList<>();
            for (int i = 0; i < messages - poisonCount; i++) {
                docs.add(new Doc(good.get(i % good.size()), false));
            }
            for (int j = 0; j < poisonCount; j++) {
                docs.add((int) ((long) (j + 1) * messages / (poisonCount + 1)), new Doc(poison.get(j % poison.size()), true));
            }
            Map<String, String> docIds = new LinkedHashMap<>();
            Map<String, Boolean> isPoison = new HashMap<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < docs.size(); i++) {
                Doc d = docs.get(i);
                String docId = String.format(Locale.ROOT, "%s/%03d-%s", name, i, d.file());
                String key = publisher.publish(new IngestMessage(SOURCE, docId, folder.resolve(d.file()).toUri(), null,
                        null, null));
                docIds.put(key, docId);
                isPoison.put(key, d.poison());
            }
            long deadline = t0 + ROUND_TIMEOUT.toNanos();
            long goodDone = 0;
            while (true) {
                boolean goodOpen = false;
                boolean anyOpen = false;
                for (String key : docIds.keySet()) {
                    String outcome = settled.outcomeOf(key);
                    if (outcome == null || outcome.equals("released")) {
                        anyOpen = true;
                        goodOpen |= !isPoison.get(key);
                    }
                }
                long now = System.nanoTime();
                if (!goodOpen && goodDone == 0) {
                    goodDone = now;
                }
                if (!anyOpen) {
                    break;
                }
                if (now > deadline) {
                    throw new IllegalStateException(name + ": not every message settled within " + ROUND_TIMEOUT);
                }
                Thread.sleep(20);
            }
            double allSeconds = (System.nanoTime() - t0) / 1e9;
            List<String> lines = new ArrayList<>();
            int exact = 0;
            int goodCount = 0;
            for (Map.Entry<String, String> e : docIds.entrySet()) {
                if (!isPoison.get(e.getKey())) {
                    goodCount++;
                    if (!settled.outcomeOf(e.getKey()).equals("indexed")) {
                        lines.add("good document " + e.getValue() + " ended " + settled.outcomeOf(e.getKey()));
                    }
                    continue;
                }
                PoisonCount c = count(e.getValue());
                int expected = c.errorClass == null ? -1 : policies.forClass(ErrorClass.fromCode(c.errorClass)).maxDeliveries();
                boolean ok = c.journalRows == expected && c.recordDeliveries == expected;
                exact += ok ? 1 : 0;
                lines.add(String.format(Locale.ROOT, "poison %s: %s %s/%s, deliveries %d by the journal, %d by the record,"
                                + " retries + 1 = %d: %s%s", e.getValue(), settled.outcomeOf(e.getKey()), c.errorClass,
                        c.reason, c.journalRows, c.recordDeliveries, expected, ok ? "exact" : "MISMATCH",
                        c.longestGap < 0 ? "" : String.format(Locale.ROOT, "; longest release to redelivery %.2f s",
                                c.longestGap)));
            }
            return new Round(goodCount, (goodDone - t0) / 1e9, allSeconds, lines, exact);
        }

        /** @param longestGap seconds from an attempt's close to the start of the next one, at most; -1 with one attempt */
        private record PoisonCount(String errorClass, String reason, int journalRows, int recordDeliveries,
                                   double longestGap) {
        }

        private PoisonCount count(String docId) throws SQLException {
            try (Connection c = db.getConnection()) {
                int journal;
                try (PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM attempt_journal WHERE source = ? AND doc_id = ?")) {
                    s.setString(1, SOURCE);
                    s.setString(2, docId);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        journal = rs.getInt(1);
                    }
                }
                double gap;
                try (PreparedStatement s = c.prepareStatement("SELECT coalesce(max(extract(epoch FROM started_at - prev)), -1)"
                        + " FROM (SELECT started_at, lag(closed_at) OVER (ORDER BY attempt_id) AS prev FROM attempt_journal"
                        + " WHERE source = ? AND doc_id = ?) t WHERE prev IS NOT NULL")) {
                    s.setString(1, SOURCE);
                    s.setString(2, docId);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        gap = rs.getDouble(1);
                    }
                }
                try (PreparedStatement s = c.prepareStatement("SELECT q.error_class, q.reason_code,"
                        + " (SELECT max(a.delivery_count) FROM quarantine_attempt a WHERE a.dlq_id = q.dlq_id)"
                        + " FROM quarantine q WHERE q.source = ? AND q.doc_id = ?")) {
                    s.setString(1, SOURCE);
                    s.setString(2, docId);
                    try (ResultSet rs = s.executeQuery()) {
                        return rs.next() ? new PoisonCount(rs.getString(1), rs.getString(2), journal, rs.getInt(3), gap)
                                : new PoisonCount(null, null, journal, 0, gap);
                    }
                }
            }
        }
    }
}
