package org.ingestquarantine.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.TextChunk;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.ParsedDocument;

/**
 * Benchmark, not a test: the main job ({@code ingest <folder>}, in-process through the launcher's own
 * command line, on a fresh data dir with the embedded default) against its floor, each stage's own work done
 * directly in this JVM on as many threads as cores: PDFBox extraction, chunking, embedding the same chunks
 * (the product's embedder, single-threaded ONNX sessions), writing the index (one transaction per document
 * into an embedded PostgreSQL started beforehand). Repeated, floor and product alternating in order; prints
 * per run seconds, CPU-seconds (this JVM plus its worker JVMs and PostgreSQL processes), documents/s and
 * chunks/s (the product's after its start-up) and the ratio product/floor of throughput; then median (min–max).
 * The product runs twice per repetition, with each local model ({@code embed.local-model}: fp32 "product", the
 * int8-quantized "product-q"), and the ratio product-q/product of chunks/s is printed beside; the floor embeds
 * with fp32, so product/floor is the fp32 product's.
 * Run with {@code bench/pipeline-bench [folder] [repetitions]}.
 */
public final class PipelineBench {

    private static final int THREADS = Runtime.getRuntime().availableProcessors();
    private static final String FP32 = MiniLmModel.Variant.FP32.id();
    private static final String INT8 = MiniLmModel.Variant.INT8.id();

    private PipelineBench() {
    }

    /** One measured run. */
    private record Run(String what, double seconds, double cpuSeconds, double docsPerS, double chunksPerS,
                       String detail) {
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args.length > 0 ? args[0] : "../shared/corpus/pdfs").toAbsolutePath().normalize();
        int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        System.out.printf(Locale.ROOT, "pipeline-bench: %d files in %s, %d cores, load average %.1f at start%n",
                files.size(), folder, THREADS, loadAverage());
        silencePdfbox();
        Path tmp = Files.createTempDirectory("iq-pipeline-bench-");
        List<Run> floors = new ArrayList<>();
        List<Run> products = new ArrayList<>();
        List<Run> quantized = new ArrayList<>();
        try (MiniLmEmbedder embedder = new MiniLmEmbedder(THREADS, MiniLmEmbedder.DEFAULT_BATCH);
             EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("floor-postgres"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
            embedder.startLoading();
            embedder.modelLoaded().join();  // the floor's time is the embedding's, not the model's load
            Floor floor = new Floor(files, embedder, new DocumentIndex(db.dataSource(), embedder.dimensions()),
                    pg.dataDirectory());
            int chunks = 0;
            for (int rep = 0; rep < repetitions; rep++) {
                // order alternated: floor, fp32, int8 in even repetitions, int8, fp32, floor in odd ones
                List<String> order = new ArrayList<>(List.of("floor", FP32, INT8));
                if (rep % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                Run f = null;
                Run p = null;
                Run q = null;
                for (String side : order) {
                    if (side.equals("floor")) {
                        f = floor.run("floor-" + rep);
                        chunks = floor.chunks;
                        floors.add(f);
                        print(rep, f);
                    } else if (side.equals(FP32)) {
                        p = product(folder, files.size(), tmp.resolve("product-" + rep), chunks, FP32);
                        products.add(p);
                        print(rep, p);
                    } else {
                        q = product(folder, files.size(), tmp.resolve("product-q-" + rep), chunks, INT8);
                        quantized.add(q);
                        print(rep, q);
                    }
                }
                System.out.printf(Locale.ROOT, "  ratio product/floor: %.2f documents/s, %.2f CPU-s; int8/fp32 product:"
                                + " %.2f chunks/s (load %.1f)%n", p.docsPerS() / f.docsPerS(),
                        p.cpuSeconds() / f.cpuSeconds(), q.chunksPerS() / p.chunksPerS(), loadAverage());
            }
        } finally {
            deleteTree(tmp);
        }
        System.out.println("median (min-max) over " + repetitions + " repetitions:");
        summary("floor   seconds", floors.stream().map(Run::seconds).toList());
        summary("floor   CPU-s", floors.stream().map(Run::cpuSeconds).toList());
        summary("floor   documents/s", floors.stream().map(Run::docsPerS).toList());
        summary("floor   chunks/s", floors.stream().map(Run::chunksPerS).toList());
        summary("product seconds (with start-up)", products.stream().map(Run::seconds).toList());
        summary("product CPU-s (with start-up)", products.stream().map(Run::cpuSeconds).toList());
        summary("product documents/s after start-up", products.stream().map(Run::docsPerS).toList());
        summary("product chunks/s after start-up", products.stream().map(Run::chunksPerS).toList());
        summary("product-q seconds (with start-up)", quantized.stream().map(Run::seconds).toList());
        summary("product-q CPU-s (with start-up)", quantized.stream().map(Run::cpuSeconds).toList());
        summary("product-q documents/s after start-up", quantized.stream().map(Run::docsPerS).toList());
        summary("product-q chunks/s after start-up", quantized.stream().map(Run::chunksPerS).toList());
        List<Double> ratios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            ratios.add(products.get(i).docsPerS() / floors.get(i).docsPerS());
            cpuRatios.add(products.get(i).cpuSeconds() / floors.get(i).cpuSeconds());
        }
        summary("ratio product/floor throughput", ratios);
        summary("ratio product/floor CPU-s", cpuRatios);
        List<Double> modelRatios = new ArrayList<>();
        for (int i = 0; i < repetitions; i++) {
            modelRatios.add(quantized.get(i).chunksPerS() / products.get(i).chunksPerS());
        }
        summary("ratio product-q/product chunks/s", modelRatios);
        System.out.printf(Locale.ROOT, "load average at end %.1f%n", loadAverage());
        System.exit(0);
    }

    /** The floor: each stage alone, on all cores, over the same files; the stage figures are kept for printing. */
    private static final class Floor {

        private final List<Path> files;
        private final MiniLmEmbedder embedder;
        private final DocumentIndex index;
        private final Path pgData;
        private final InProcessPdfParser parser = new InProcessPdfParser(ParseLimits.defaults());
        private final WindowChunker chunker;
        int chunks;

        Floor(List<Path> files, MiniLmEmbedder embedder, DocumentIndex index, Path pgData) {
            this.files = files;
            this.embedder = embedder;
            this.index = index;
            this.pgData = pgData;
            this.chunker = new WindowChunker(WindowChunker.DEFAULT_MAX_CHARS, embedder.maxTokens(),
                    WindowChunker.DEFAULT_OVERLAP_WORDS, embedder::countTokens);
        }

        Run run(String source) throws Exception {
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                CpuMeter cpu = new CpuMeter(pgData);
                long t0 = System.nanoTime();
                List<ParsedDocument> parsed = all(pool, files, f -> {
                    try {
                        return parser.parse(f);
                    } catch (Exception notParsable) {
                        return null;
                    }
                });
                double cpuParse = cpu.seconds();
                long t1 = System.nanoTime();
                List<List<TextChunk>> chunked = all(pool, parsed, d -> d == null ? List.of()
                        : chunker.chunk(d.pageTexts()));
                double cpuChunk = cpu.seconds();
                long t2 = System.nanoTime();
                List<String> texts = chunked.stream().flatMap(List::stream).map(TextChunk::text).toList();
                List<float[]> vectors = embedder.embed(texts);
                double cpuEmbed = cpu.seconds();
                long t3 = System.nanoTime();
                List<Integer> docs = new ArrayList<>();
                for (int i = 0; i < files.size(); i++) {
                    if (!chunked.get(i).isEmpty()) {
                        docs.add(i);
                    }
                }
                Map<Integer, Integer> firstVector = new HashMap<>();
                int at = 0;
                for (int i = 0; i < files.size(); i++) {
                    firstVector.put(i, at);
                    at += chunked.get(i).size();
                }
                all(pool, docs, i -> {
                    List<IndexedChunk> rows = new ArrayList<>();
                    int v = firstVector.get(i);
                    for (TextChunk c : chunked.get(i)) {
                        rows.add(new IndexedChunk(c.seq(), c.text(), vectors.get(v++), c.pageFrom(), c.pageTo()));
                    }
                    return index.index(new IndexedDocument(source, files.get(i).getFileName().toString(), "v1",
                            Instant.now(), "0".repeat(64), "floor", "floor", "floor", parsed.get(i).pageCount(), rows));
                });
                cpu.sample();
                double cpuIndex = cpu.seconds();
                long t4 = System.nanoTime();
                chunks = texts.size();
                double seconds = (t4 - t0) / 1e9;
                String detail = String.format(Locale.ROOT,
                        "files=%d indexed=%d chunks=%d | extract %.1f s (%.1f CPU-s), chunk %.1f s (%.1f), embed %.1f s (%.1f),"
                                + " index %.1f s (%.1f)",
                        files.size(), docs.size(), chunks, (t1 - t0) / 1e9, cpuParse, (t2 - t1) / 1e9, cpuChunk - cpuParse,
                        (t3 - t2) / 1e9, cpuEmbed - cpuChunk, (t4 - t3) / 1e9, cpuIndex - cpuEmbed);
                return new Run("floor", seconds, cpuIndex, files.size() / seconds, chunks / seconds, detail);
            } finally {
                pool.shutdown();
            }
        }
    }

    /**
     * The main job as {@code bin/ingest-quarantine ingest <folder> --json} runs it, on a fresh data dir, with
     * {@code -Dembed.local-model=<model>}.
     */
    private static Run product(Path folder, int fileCount, Path dataDir, int chunks, String model) throws Exception {
        CpuMeter cpu = new CpuMeter(dataDir);
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                cpu.sample();
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.setDaemon(true);
        sampler.start();
        BenchIngest ingest;
        System.setProperty(MiniLmModel.VARIANT_PROPERTY, model);
        try {
            ingest = BenchIngest.run(folder, dataDir);
        } finally {
            System.clearProperty(MiniLmModel.VARIANT_PROPERTY);
            sampler.interrupt();
            sampler.join();
        }
        double seconds = ingest.seconds();
        double cpuSeconds = cpu.seconds();
        String breakdown = cpu.breakdown();
        deleteTree(dataDir);
        JsonNode summary = ingest.summary();
        double processing = ingest.processingSeconds();
        String detail = String.format(Locale.ROOT, "files=%d start-up %.1f s, indexed %s, quarantined %s | %s",
                fileCount, summary.get("startup_ms").asLong() / 1000.0, summary.get("indexed"),
                summary.get("quarantined"), breakdown);
        return new Run(model.equals(FP32) ? "product" : "product-q", seconds, cpuSeconds, fileCount / processing,
                chunks / processing, detail);
    }

    /**
     * CPU time of this JVM, its child processes (worker JVMs) and the PostgreSQL processes of one data folder
     * (found by the folder in their command line, with their children), from creation; processes that ended
     * count with their last sample.
     */
    private static final class CpuMeter {

        private final Path dataDir;
        private final long ownStart = ownNanos();
        private final Map<Long, Long> others = new HashMap<>();
        private final Map<Long, Long> othersAtStart = new HashMap<>();
        private final Map<Long, String> kinds = new HashMap<>();
        private final List<ProcessHandle> postmasters = new ArrayList<>();

        CpuMeter(Path dataDir) {
            this.dataDir = dataDir;
            sampleInto(othersAtStart);
        }

        synchronized void sample() {
            sampleInto(others);
        }

        private void sampleInto(Map<Long, Long> into) {
            List<ProcessHandle> seen = new ArrayList<>(ProcessHandle.current().descendants().toList());
            if (postmasters.isEmpty()) {
                // reading every process's command line is not free: only until the postmaster is found
                String marker = dataDir.toString();
                ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(marker))
                        .orElse(false)).forEach(postmasters::add);
            }
            for (ProcessHandle p : postmasters) {
                seen.add(p);
                seen.addAll(p.descendants().toList());
            }
            for (ProcessHandle p : seen) {
                p.info().totalCpuDuration().ifPresent(d -> into.merge(p.pid(), d.toNanos(), Math::max));
                kinds.putIfAbsent(p.pid(), p.info().command().map(c -> c.endsWith("java") ? "workers" : "postgres")
                        .orElse("other"));
            }
        }

        /** @return CPU-seconds of this JVM, of the worker JVMs and of PostgreSQL, as one line */
        synchronized String breakdown() {
            Map<String, Long> by = new java.util.TreeMap<>();
            by.put("jvm", ownNanos() - ownStart);
            others.forEach((pid, n) -> by.merge(kinds.getOrDefault(pid, "other"),
                    n - othersAtStart.getOrDefault(pid, 0L), Long::sum));
            StringBuilder b = new StringBuilder();
            by.forEach((k, v) -> b.append(String.format(Locale.ROOT, " %s %.1f", k, v / 1e9)));
            return "CPU-s:" + b;
        }

        synchronized double seconds() {
            sample();
            long total = ownNanos() - ownStart;
            for (Map.Entry<Long, Long> e : others.entrySet()) {
                total += e.getValue() - othersAtStart.getOrDefault(e.getKey(), 0L);
            }
            return total / 1e9;
        }

        private static long ownNanos() {
            return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).toNanos();
        }
    }

    private interface Work<T, R> {
        R apply(T t) throws Exception;
    }

    private static <T, R> List<R> all(ExecutorService pool, List<T> items, Work<T, R> work) throws Exception {
        List<Future<R>> futures = new ArrayList<>();
        for (T item : items) {
            futures.add(pool.submit(() -> work.apply(item)));
        }
        List<R> out = new ArrayList<>();
        for (Future<R> f : futures) {
            out.add(f.get());
        }
        return out;
    }

    private static void print(int rep, Run r) {
        System.out.printf(Locale.ROOT, "run %d %-7s %6.1f s %6.1f CPU-s %5.2f documents/s %6.1f chunks/s  %s%n",
                rep + 1, r.what(), r.seconds(), r.cpuSeconds(), r.docsPerS(), r.chunksPerS(), r.detail());
    }

    private static void summary(String name, List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        System.out.printf(Locale.ROOT, "  %-36s %8.2f (%.2f-%.2f)%n", name, sorted.get(sorted.size() / 2),
                sorted.get(0), sorted.get(sorted.size() - 1));
    }

    /**
     * PDFBox logs off here as in the parse workers ({@code WorkerMain}), so that the floor does not format
     * error logs the product never writes.
     */
    private static void silencePdfbox() {
        if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.getLogger("org.apache.pdfbox").setLevel(ch.qos.logback.classic.Level.OFF);
        }
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
