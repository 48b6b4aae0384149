package org.ingestquarantine.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.TextChunk;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.ParsedDocument;

/**
 * Benchmark, not a test: the two local models ({@code embed.local-model}: fp32 all-MiniLM-L6-v2 and its
 * int8-quantized variant) on the corpus's own chunks: every file PDFBox extracts text from, chunked by the product's
 * chunker with the shipped limits (as the index holds them). Speed: each model embeds all chunks with the product's
 * embedder on as many threads as cores, alternating, repeated; chunks/s and documents/s (documents with chunks) per
 * run, and the ratio int8/fp32 of each pair. Quality, of int8 against fp32: for each chunk its 10 nearest neighbours
 * among all chunks by cosine under either model, |intersection| / 10 averaged (the top-10 overlap), and the mean
 * cosine between a chunk's two vectors (the cosine agreement); with their minimum and the number of chunks.
 * Run with {@code bench/embedding-quality [folder] [repetitions]}.
 */
public final class EmbeddingQualityBench {

    private static final int THREADS = Runtime.getRuntime().availableProcessors();
    private static final int K = 10;

    private EmbeddingQualityBench() {
    }

    public static void main(String[] args) throws Exception {
        Path folder = Path.of(args.length > 0 ? args[0] : "../shared/corpus/pdfs").toAbsolutePath().normalize();
        int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        System.out.printf(Locale.ROOT, "embedding-quality: %d files in %s, %d cores, load average %.1f at start%n",
                files.size(), folder, THREADS, loadAverage());
        try (MiniLmEmbedder fp32 = new MiniLmEmbedder(THREADS, MiniLmEmbedder.DEFAULT_BATCH, MiniLmEmbedder.MAX_TOKENS,
                MiniLmModel.onClassPath(MiniLmModel.Variant.FP32));
             MiniLmEmbedder int8 = new MiniLmEmbedder(THREADS, MiniLmEmbedder.DEFAULT_BATCH, MiniLmEmbedder.MAX_TOKENS,
                     MiniLmModel.onClassPath(MiniLmModel.Variant.INT8))) {
            fp32.startLoading();
            int8.startLoading();
            fp32.modelLoaded().join();
            int8.modelLoaded().join();
            List<String> texts = new ArrayList<>();
            int documents = chunkCorpus(files, fp32, texts);
            System.out.printf(Locale.ROOT, "chunks: %d of %d documents with text (load %.1f)%n", texts.size(),
                    documents, loadAverage());
            embed(fp32, texts.subList(0, Math.min(64, texts.size()))); // warm both sessions
            embed(int8, texts.subList(0, Math.min(64, texts.size())));
            List<float[]> a = null;
            List<float[]> b = null;
            List<Double> ratios = new ArrayList<>();
            for (int rep = 0; rep < repetitions; rep++) {
                double fs = 0;
                double is = 0;
                for (int side = 0; side < 2; side++) {
                    boolean fpNow = (side == 0) == (rep % 2 == 0);
                    long t0 = System.nanoTime();
                    List<float[]> v = embed(fpNow ? fp32 : int8, texts);
                    double s = (System.nanoTime() - t0) / 1e9;
                    if (fpNow) {
                        a = v;
                        fs = s;
                    } else {
                        b = v;
                        is = s;
                    }
                    System.out.printf(Locale.ROOT, "run %d %-20s %6.1f s %7.1f chunks/s %6.2f documents/s (load %.1f)%n",
                            rep + 1, fpNow ? fp32.version() : int8.version(), s, texts.size() / s, documents / s,
                            loadAverage());
                }
                ratios.add(fs / is);
                System.out.printf(Locale.ROOT, "  ratio int8/fp32 chunks/s: %.2f%n", fs / is);
            }
            summary("ratio int8/fp32 chunks/s", ratios);
            quality(a, b);
        }
        System.out.printf(Locale.ROOT, "load average at end %.1f%n", loadAverage());
        System.exit(0);
    }

    /** @return documents with chunks; their chunks' texts added to {@code into}, in file order */
    private static int chunkCorpus(List<Path> files, MiniLmEmbedder tokenizer, List<String> into) throws Exception {
        InProcessPdfParser parser = new InProcessPdfParser(ParseLimits.defaults());
        WindowChunker chunker = new WindowChunker(WindowChunker.DEFAULT_MAX_CHARS, tokenizer.maxTokens(),
                WindowChunker.DEFAULT_OVERLAP_WORDS, tokenizer::countTokens, tokenizer::countTokensPerWord);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<List<TextChunk>>> futures = new ArrayList<>();
            for (Path f : files) {
                futures.add(pool.submit(() -> {
                    try {
                        ParsedDocument d = parser.parse(f);
                        return chunker.chunk(d.pageTexts());
                    } catch (Exception notParsable) {
                        return List.<TextChunk>of();
                    }
                }));
            }
            int documents = 0;
            for (Future<List<TextChunk>> f : futures) {
                List<TextChunk> chunks = f.get();
                documents += chunks.isEmpty() ? 0 : 1;
                chunks.forEach(c -> into.add(c.text()));
            }
            return documents;
        } finally {
            pool.shutdown();
        }
    }

    /** The texts in documents' worth of calls (64 chunks each), all queued at once as consumers would. */
    private static List<float[]> embed(MiniLmEmbedder embedder, List<String> texts) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<float[]>>> parts = new ArrayList<>();
            for (int i = 0; i < texts.size(); i += 64) {
                List<String> part = texts.subList(i, Math.min(texts.size(), i + 64));
                parts.add(callers.submit(() -> embedder.embed(part)));
            }
            List<float[]> out = new ArrayList<>(texts.size());
            for (Future<List<float[]>> p : parts) {
                out.addAll(p.get());
            }
            return out;
        } finally {
            callers.shutdown();
        }
    }

    private static void quality(List<float[]> fp32, List<float[]> int8) {
        int n = fp32.size();
        double agreement = 0;
        double worstCos = 1;
        for (int i = 0; i < n; i++) {
            double c = dot(fp32.get(i), int8.get(i));
            agreement += c;
            worstCos = Math.min(worstCos, c);
        }
        double overlap = 0;
        double worstOverlap = 1;
        int below = 0;
        for (int i = 0; i < n; i++) {
            int[] x = topK(fp32, i);
            int[] y = topK(int8, i);
            int common = 0;
            for (int p : x) {
                for (int q : y) {
                    common += p == q ? 1 : 0;
                }
            }
            double o = common / (double) K;
            overlap += o;
            worstOverlap = Math.min(worstOverlap, o);
            below += o < 0.9 ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "quality int8 against fp32 over %d chunks: mean top-%d neighbour overlap %.4f"
                        + " (lowest %.1f; %d chunks below 0.9), mean cosine agreement %.5f (lowest %.4f)%n",
                n, K, overlap / n, worstOverlap, below, agreement / n, worstCos);
    }

    /** @return the {@value #K} nearest other chunks to chunk {@code i} by cosine (the vectors are unit length) */
    private static int[] topK(List<float[]> vectors, int i) {
        int[] best = new int[K];
        double[] score = new double[K];
        java.util.Arrays.fill(score, Double.NEGATIVE_INFINITY);
        float[] v = vectors.get(i);
        for (int j = 0; j < vectors.size(); j++) {
            if (j == i) {
                continue;
            }
            double s = dot(v, vectors.get(j));
            if (s > score[K - 1]) {
                int p = K - 1;
                while (p > 0 && score[p - 1] < s) {
                    score[p] = score[p - 1];
                    best[p] = best[p - 1];
                    p--;
                }
                score[p] = s;
                best[p] = j;
            }
        }
        return best;
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int d = 0; d < a.length; d++) {
            s += a[d] * b[d];
        }
        return s;
    }

    private static void summary(String name, List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        System.out.printf(Locale.ROOT, "  %-36s %8.2f (%.2f-%.2f)%n", name, sorted.get(sorted.size() / 2),
                sorted.get(0), sorted.get(sorted.size() - 1));
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
