package org.ingestquarantine.app;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.ingest.ChunkStage;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.EmbedStage;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FetchCancellation;
import org.ingestquarantine.ingest.Fetcher;
import org.ingestquarantine.ingest.IndexStage;
import org.ingestquarantine.ingest.LanguageGuess;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.ParseStage;
import org.ingestquarantine.ingest.Preflight;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.pipeline.Settings;

/**
 * The ingest stages the routes call, in their order: read, preflight and fetch ({@code ingest.max-bytes}), parse
 * ({@code parse.mode}: pool | in-process, in-process only for debugging: a hostile document can then take the
 * consumer down; {@code parse.*}: {@link ParseLimits}), chunk ({@code chunk.max-chars}, {@code chunk.overlap-words},
 * {@code chunk.max-tokens}: default the embedder's {@code embed.max-tokens} - 2, tests only), embed
 * ({@code embed.threads}, {@code embed.batch-chunks}, {@code embed.max-tokens}: {@link MiniLmEmbedder};
 * {@code embed.provider}, {@code embed.openai.*}: {@link EmbedderChoice}) and index, with the versions of each.
 */
final class StageWiring {

    /** What the stages are made of; each bound under the name the route files use by {@link #bind}. */
    record Stages(MiniLmEmbedder tokenizer, Embedder embedder, WindowChunker chunker, FetchCancellation fetches,
                  PipelineVersions versions, DocumentParser parser, DocumentIndex index, Preflight preflight,
                  MessageReader reader, long maxBytes) {
    }

    private StageWiring() {
    }

    /** Starts the parser workers (a JVM each, warmed up) in the background; closed on stop, once started. */
    static CompletableFuture<DocumentParser> startParser(Wiring w) {
        ParseLimits limits = parseLimits(w.settings());
        boolean inProcess = "in-process".equals(w.settings().string("parse.mode", "pool"));
        CompletableFuture<DocumentParser> start = BackgroundStart.inBackground("parse-workers", w.timeline(),
                () -> inProcess ? new InProcessPdfParser(limits) : new WorkerPoolParser(limits));
        w.closeOnStop(BackgroundStart.closer(start));
        return start;
    }

    /**
     * Starts the tokenizer (and the embedding threads) in the background; closed on stop, once started.
     *
     * @param localModel whether the model embeds here; with openai only the tokenizer is used: one idle thread
     */
    static CompletableFuture<MiniLmEmbedder> startTokenizer(Wiring w, boolean localModel, MiniLmModel model) {
        Settings settings = w.settings();
        int embedThreads = localModel ? (int) settings.requiredNumber("embed.threads") : 1;
        int embedBatch = (int) settings.requiredNumber("embed.batch-chunks");
        int embedMaxTokens = (int) settings.requiredNumber("embed.max-tokens");
        CompletableFuture<MiniLmEmbedder> start = BackgroundStart.inBackground("tokenizer", w.timeline(),
                () -> new MiniLmEmbedder(embedThreads, embedBatch, embedMaxTokens, model));
        w.closeOnStop(BackgroundStart.closer(start));
        return start;
    }

    /**
     * Makes the stages once the tokenizer has started, waiting for the parser workers last; then the model loads
     * (not needed before the first chunk, so not competing with the steps before for the CPU). Binds the parser as
     * {@code documentParser}.
     */
    static Stages assemble(Wiring w, Database database, SourceAccess sourceAccess,
                           CompletableFuture<MiniLmEmbedder> tokenizerStart,
                           CompletableFuture<DocumentParser> parserStart, boolean localModel) throws Exception {
        Settings settings = w.settings();
        MiniLmEmbedder tokenizer = BackgroundStart.join(tokenizerStart);
        Embedder embedder = EmbedderChoice.choose(settings, tokenizer);
        long maxBytes = settings.requiredNumber("ingest.max-bytes");
        WindowChunker chunker = chunker(settings, embedder);
        // stopping the context cancels the source requests in flight (ReleasingShutdownStrategy)
        FetchCancellation fetches = new FetchCancellation();
        Map<String, SourceConnector> connectors = SourceWiring.connectors(settings, database,
                SourceWiring.httpTimeouts(settings), fetches);
        PipelineVersions versions = versions(connectors, chunker, embedder);
        DocumentParser parser = w.timeline().time("wait-parser", () -> BackgroundStart.join(parserStart));
        long modelBegan = System.currentTimeMillis();
        if (localModel) {
            tokenizer.startLoading();
            tokenizer.modelLoaded().thenRun(() -> w.timeline().record("model", modelBegan, System.currentTimeMillis()));
        }
        w.bind("documentParser", parser);
        DocumentIndex index = new DocumentIndex(database.dataSource(), embedder.dimensions());
        Preflight preflight = new Preflight(connectors, sourceAccess, maxBytes);
        // a message's source counts as its own only when this process is configured for it, as at preflight
        MessageReader reader = new MessageReader(sourceAccess::isConfigured);
        return new Stages(tokenizer, embedder, chunker, fetches, versions, parser, index, preflight, reader, maxBytes);
    }

    /** Binds the stages under the names the route files use. */
    static void bind(Wiring w, Stages stages) throws java.io.IOException {
        w.bind("messageReader", stages.reader());
        w.bind("preflight", stages.preflight());
        w.bind("fetcher", new Fetcher(stages.preflight(), w.dataDir().resolve("work"), stages.maxBytes()));
        w.bind("parseStage", new ParseStage(stages.parser()));
        w.bind("chunkStage", new ChunkStage(stages.chunker()));
        w.bind("languageGuess", LanguageGuess.configured(w.settings())); // for a route author's language filter
        w.bind("embedder", stages.embedder());
        w.bind("localModel", stages.tokenizer()); // with embed.provider=openai its weights stay unloaded
        w.bind("embedStage", new EmbedStage(stages.embedder()));
        w.bind("indexStage", new IndexStage(stages.index(), stages.versions()));
        w.bind("documentIndex", stages.index());
    }

    /** @return the versions a record names: each connector's, the parser's, the chunker's, the embedder's */
    static PipelineVersions versions(Map<String, SourceConnector> connectors, WindowChunker chunker,
                                     Embedder embedder) {
        Map<String, String> connectorVersions = new TreeMap<>();
        connectors.forEach((scheme, c) -> connectorVersions.put(scheme, c.version()));
        return new PipelineVersions(connectorVersions, ParserVersion.CURRENT, chunker.version(), embedder.version());
    }

    /** @return the chunker of {@code chunk.*} for the embedder's tokens */
    static WindowChunker chunker(Settings settings, Embedder embedder) {
        return new WindowChunker(
                (int) settings.requiredNumber("chunk.max-chars"),
                (int) settings.number("chunk.max-tokens", embedder.maxTokens()),
                (int) settings.requiredNumber("chunk.overlap-words"), embedder::countTokens,
                embedder::countTokensPerWord);
    }

    /** @return the parser workers' limits, {@code parse.*} */
    static ParseLimits parseLimits(Settings s) {
        ParseLimits d = ParseLimits.defaults();
        return d.withMaxHeapMb((int) s.number(ParseLimits.PROPERTY_MAX_HEAP_MB, d.maxHeapMb()))
                .withTimeout(s.millis(ParseLimits.PROPERTY_TIMEOUT_MS, d.timeout()))
                .withPoolSize((int) s.number(ParseLimits.PROPERTY_POOL_SIZE, d.poolSize()))
                .withMaxPages((int) s.number(ParseLimits.PROPERTY_MAX_PAGES, d.maxPages()))
                .withMaxStreamBytes(s.number(ParseLimits.PROPERTY_MAX_STREAM_BYTES, d.maxStreamBytes()))
                .withMaxImagePixels(s.number(ParseLimits.PROPERTY_MAX_IMAGE_PIXELS, d.maxImagePixels()))
                .withScratchMemoryBytes(s.number(ParseLimits.PROPERTY_SCRATCH_MEMORY_BYTES, d.scratchMemoryBytes()));
    }
}
