package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.HuggingFaceTokenCountEstimator;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our own ONNX session gives the vectors langchain4j's AllMiniLmL6V2EmbeddingModel gives within its 128 word pieces (the index's
 * vectors stay comparable), embeds every word piece of a longer chunk, on real chunks: the sample PDFs and, where the shared corpus is beside
 * the repository, a few of its documents; and counts tokens as langchain4j's estimator did.
 */
class MiniLmEmbedderIT {

    /** Corpus documents of several kinds: a paper, a protected report, a code listing, a form, an EU text. */
    private static final List<String> CORPUS_FILES = List.of("c0012.pdf", "c0018.pdf", "c0023.pdf", "c0031.pdf",
            "c0046.pdf", "c0047.pdf");

    private static MiniLmEmbedder embedder;
    private static List<String> chunks;

    @BeforeAll
    static void load() {
        // a batch of 7 so that batches mix documents and lengths, and padding is exercised
        embedder = new MiniLmEmbedder(2, 7, (int) ShippedProperties.lookup().apply("embed.max-tokens").map(Long::parseLong)
                .orElseThrow().longValue());
    }

    @AfterAll
    static void close() {
        embedder.close();
    }

    /** langchain4j's model cuts its inputs at 128 word pieces with markers: compared with ours cut there too. */
    @Test
    void shouldGiveLangchain4jsVectorsOnRealChunks() throws Exception {
        List<String> texts = realChunks();
        assertThat(texts).hasSizeGreaterThan(30);
        List<float[]> ours;
        try (MiniLmEmbedder cutAt128 = new MiniLmEmbedder(2, 7, 128)) {
            ours = cutAt128.embed(texts);
            // activations are quantized per model call: a chunk run alone, not beside its batch's others
            assertThat(cosine(cutAt128.embed(texts.subList(3, 4)).get(0), ours.get(3))).isGreaterThan(1 - 1e-6);
        }
        AllMiniLmL6V2EmbeddingModel reference = new AllMiniLmL6V2EmbeddingModel();
        List<float[]> theirs = reference.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(e -> e.vector()).toList();
        double worst = 1;
        for (int i = 0; i < texts.size(); i++) {
            assertThat(ours.get(i)).hasSize(MiniLmEmbedder.DIMENSIONS);
            worst = Math.min(worst, cosine(ours.get(i), theirs.get(i)));
        }
        assertThat(1 - worst).as("largest cosine distance over %d chunks", texts.size()).isLessThan(1e-5);
    }

    /**
     * {@code embed.local-model=all-minilm-l6-v2-q} runs the int8-quantized model: each chunk run alone gives langchain4j's
     * AllMiniLmL6V2QuantizedEmbeddingModel's vector within its 128 word pieces, not the fp32 model's, and batched a
     * vector close to it (its activations are quantized per call); its name is in the version the index records, and
     * the fp32 default keeps its version.
     */
    @Test
    void shouldRunTheQuantizedModelEmbedLocalModelNamesAndRecordIt() throws Exception {
        List<String> texts = realChunks();
        MiniLmModel quantized = MiniLmModel.of(new org.ingestquarantine.pipeline.Settings(
                key -> java.util.Optional.ofNullable(java.util.Map.of(MiniLmModel.VARIANT_PROPERTY,
                        "all-minilm-l6-v2-q").get(key))));
        List<float[]> alone;
        List<float[]> batched;
        try (MiniLmEmbedder oneByOne = new MiniLmEmbedder(2, 1, 128, quantized);
             MiniLmEmbedder inBatches = new MiniLmEmbedder(2, 7, 128, quantized)) {
            assertThat(oneByOne.version()).isEqualTo("all-minilm-l6-v2-q/langchain4j-1.19.0/input-128");
            assertThat(oneByOne.dimensions()).isEqualTo(MiniLmEmbedder.DIMENSIONS);
            alone = oneByOne.embed(texts);
            batched = inBatches.embed(texts);
        }
        assertThat(embedder.version()).startsWith("all-minilm-l6-v2/langchain4j-1.19.0/input-");
        List<float[]> theirs = new AllMiniLmL6V2QuantizedEmbeddingModel().embedAll(texts.stream()
                .map(TextSegment::from).toList()).content().stream().map(e -> e.vector()).toList();
        List<float[]> fp32 = new AllMiniLmL6V2EmbeddingModel().embedAll(texts.stream().map(TextSegment::from)
                .toList()).content().stream().map(e -> e.vector()).toList();
        double worst = 1;
        double worstBatched = 1;
        double worstAgainstFp32 = 1;
        for (int i = 0; i < texts.size(); i++) {
            worst = Math.min(worst, cosine(alone.get(i), theirs.get(i)));
            worstBatched = Math.min(worstBatched, cosine(batched.get(i), alone.get(i)));
            worstAgainstFp32 = Math.min(worstAgainstFp32, cosine(alone.get(i), fp32.get(i)));
        }
        assertThat(1 - worst).as("largest cosine distance to the quantized model's, %d chunks", texts.size())
                .isLessThan(1e-5);
        assertThat(1 - worstBatched).as("largest cosine distance batched against alone").isLessThan(0.03);
        assertThat(1 - worstAgainstFp32).as("largest cosine distance to the fp32 model's").isGreaterThan(1e-3);
    }

    @Test
    void shouldCountTokensAsLangchain4jsEstimator() throws Exception {
        HuggingFaceTokenCountEstimator estimator = new HuggingFaceTokenCountEstimator();
        for (String text : realChunks()) {
            assertThat(embedder.countTokens(text)).isEqualTo(estimator.estimateTokenCountInText(text));
        }
    }

    @Test
    void shouldCountEveryWordsTokensInOnePassAsWordByWord() throws Exception {
        for (String page : pages()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\S+").matcher(page);
            List<Integer> starts = new ArrayList<>();
            List<Integer> ends = new ArrayList<>();
            while (m.find()) {
                starts.add(m.start());
                ends.add(m.end());
            }
            int[] s = starts.stream().mapToInt(Integer::intValue).toArray();
            int[] e = ends.stream().mapToInt(Integer::intValue).toArray();
            assertThat(embedder.countTokensPerWord(page, s, e))
                    .containsExactly(WordTokenCounter.eachWord(embedder::countTokens).counts(page, s, e));
        }
    }

    /**
     * Every word piece of a chunk is embedded: with the shipped limits (chunk.*, embed.max-tokens), dropping
     * the last word of the longest real chunk moves its vector. An input cut shorter than the chunks (as the
     * 128 word pieces of embedder version all-minilm-l6-v2/langchain4j-1.19.0 were) gives the same vector.
     */
    @Test
    void shouldEmbedTheLastWordOfTheLongestChunk() throws Exception {
        java.util.function.Function<String, Long> shipped = k -> ShippedProperties.lookup().apply(k).map(Long::parseLong)
                .orElseThrow();
        WindowChunker chunker = new WindowChunker(shipped.apply("chunk.max-chars").intValue(), embedder.maxTokens(),
                shipped.apply("chunk.overlap-words").intValue(), embedder::countTokens, embedder::countTokensPerWord);
        String longest = chunker.chunk(pages()).stream().map(TextChunk::text)
                .max(java.util.Comparator.comparingInt(embedder::countTokens)).orElseThrow();
        assertThat(embedder.countTokens(longest)).as("word pieces of the longest chunk").isGreaterThan(200);
        String withoutLastWord = longest.substring(0, longest.stripTrailing().lastIndexOf(' ')).stripTrailing();
        List<float[]> vectors = embedder.embed(List.of(longest, withoutLastWord));
        assertThat(1 - cosine(vectors.get(0), vectors.get(1))).as("distance made by the last word").isGreaterThan(1e-6);
    }

    @Test
    void shouldKeepEveryRealChunkWithinTheModelsLimitWithAboutOneCountPerChunk() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        WindowChunker chunker = new WindowChunker(WindowChunker.DEFAULT_MAX_CHARS, embedder.maxTokens(),
                WindowChunker.DEFAULT_OVERLAP_WORDS, t -> {
                    calls.incrementAndGet();
                    return embedder.countTokens(t);
                }, embedder::countTokensPerWord);
        List<TextChunk> all = chunker.chunk(pages());
        assertThat(all).allSatisfy(c -> assertThat(embedder.countTokens(c.text()))
                .isLessThanOrEqualTo(embedder.maxTokens()));
        assertThat(calls.get()).as("tokenizer calls for %d chunks", all.size()).isLessThanOrEqualTo(all.size() + 5);
    }

    /**
     * The model read from a file of its own ({@code embed.model-file}, as the production distribution ships it)
     * gives the vectors of the class path's.
     */
    @Test
    void shouldEmbedAlikeWithTheModelReadFromAFile(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("all-minilm-l6-v2.onnx");
        try (java.io.InputStream in = MiniLmEmbedder.class.getResourceAsStream(MiniLmModel.RESOURCE)) {
            Files.copy(in, file);
        }
        List<String> texts = realChunks().subList(0, 8);
        List<float[]> fromFile;
        try (MiniLmEmbedder own = new MiniLmEmbedder(1, 4, embedder.maxTokens() + 2, MiniLmModel.file(file))) {
            fromFile = own.embed(texts);
        }
        List<float[]> fromClassPath = embedder.embed(texts);
        for (int i = 0; i < texts.size(); i++) {
            assertThat(cosine(fromFile.get(i), fromClassPath.get(i))).isGreaterThan(1 - 1e-6);
        }
    }

    @Test
    void shouldEmbedConcurrentCallersEachInOrder() throws Exception {
        List<String> a = List.of("the contract ends in May", "invoices are due in thirty days", "short");
        List<String> b = List.of("a quite different sentence about parsing PDF files", "x");
        List<float[]> aAlone = embedder.embed(a);
        List<List<float[]>> results = new ArrayList<>();
        Thread other = new Thread(() -> results.add(embedder.embed(b)));
        other.start();
        List<float[]> aAgain = embedder.embed(a);
        other.join();
        List<float[]> bAlone = embedder.embed(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(cosine(aAgain.get(i), aAlone.get(i))).isGreaterThan(1 - 1e-5);
        }
        for (int i = 0; i < b.size(); i++) {
            assertThat(cosine(results.get(0).get(i), bAlone.get(i))).isGreaterThan(1 - 1e-5);
        }
    }

    /**
     * Closing while callers are inside the model and the tokenizer (what a shutdown that abandons a document
     * does) waits for them instead of freeing the native session under them (which crashed the JVM with
     * SIGSEGV in libonnxruntime); afterwards every call fails with IllegalStateException.
     */
    @Test
    void shouldCloseUnderRunningCallersWithoutCrashingAndRefuseLaterCalls() throws Exception {
        MiniLmEmbedder own = new MiniLmEmbedder(2, 4);
        List<String> texts = realChunks().subList(0, Math.min(16, realChunks().size()));
        own.embed(texts.subList(0, 1));  // the session is loaded
        java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Throwable> unexpected = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Thread caller = new Thread(() -> {
                while (true) {
                    try {
                        own.embed(texts);
                        own.countTokens(texts.get(0));
                    } catch (IllegalStateException e) {
                        refused.incrementAndGet();
                        return;
                    } catch (Throwable e) {
                        unexpected.set(e);
                        return;
                    }
                }
            });
            caller.start();
            callers.add(caller);
        }
        Thread.sleep(300);
        own.close();
        for (Thread caller : callers) {
            caller.join(60_000);
        }
        assertThat(unexpected.get()).isNull();
        assertThat(refused.get()).isEqualTo(3);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> own.countTokens("after close"))
                .isInstanceOf(IllegalStateException.class);
    }

    /** @return the pages of the sample and corpus documents that parse */
    private static List<String> pages() throws Exception {
        List<String> pages = new ArrayList<>();
        InProcessPdfParser parser = new InProcessPdfParser();
        for (Path file : files()) {
            try {
                parser.parse(file).pageTexts().stream().filter(t -> t != null).forEach(pages::add);
            } catch (Exception notParsable) {
                // the samples include broken files on purpose
            }
        }
        return pages;
    }

    private static List<Path> files() throws Exception {
        List<Path> files = new ArrayList<>();
        try (var samples = Files.list(Path.of("samples", "pdfs"))) {
            samples.sorted().forEach(files::add);
        }
        if (Files.isDirectory(Corpus.PDFS)) {
            CORPUS_FILES.stream().map(Corpus::file).filter(Files::isRegularFile).forEach(files::add);
        }
        return files;
    }

    private static synchronized List<String> realChunks() throws Exception {
        if (chunks == null) {
            chunks = chunksOfFiles();
        }
        return chunks;
    }

    private static List<String> chunksOfFiles() throws Exception {
        List<Path> files = files();
        InProcessPdfParser parser = new InProcessPdfParser();
        WindowChunker chunker = new WindowChunker(WindowChunker.DEFAULT_MAX_CHARS, embedder.maxTokens(),
                WindowChunker.DEFAULT_OVERLAP_WORDS, embedder::countTokens, embedder::countTokensPerWord);
        List<String> texts = new ArrayList<>();
        for (Path file : files) {
            try {
                ParsedDocument parsed = parser.parse(file);
                chunker.chunk(parsed.pageTexts()).stream().limit(12).forEach(c -> texts.add(c.text()));
            } catch (Exception notParsable) {
                // the samples include broken files on purpose
            }
        }
        return texts;
    }

    private static double cosine(float[] x, float[] y) {
        double dot = 0;
        double nx = 0;
        double ny = 0;
        for (int i = 0; i < x.length; i++) {
            dot += x[i] * y[i];
            nx += x[i] * x[i];
            ny += y[i] * y[i];
        }
        return dot / Math.sqrt(nx * ny);
    }
}
