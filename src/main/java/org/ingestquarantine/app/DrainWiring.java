package org.ingestquarantine.app;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FetchCancellation;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.pipeline.Settings;

/** A drain wired as the pipeline is, for the {@code drain} command and the canary drains of the operator API. */
final class DrainWiring {

    private DrainWiring() {
    }

    /**
     * A drain wired as the pipeline is: the same connectors, taking only the slack of the shared request buckets
     * (the live connectors keep their reserve), the parser and embedder given, this configuration's chunker, the
     * index, their versions; each record asked for at {@code sources.<name>.base-uri} + doc_id when configured (an
     * override), else at the URI the record keeps, else as the folder connector last reported the source's root
     * ({@code source_totals}). The caller adds the store and where sources may be read.
     *
     * @param workDir where the drain's work files go
     */
    static Drain.Builder drain(Settings settings, Database database, DocumentParser parser, Embedder embedder,
                               Path workDir) {
        WindowChunker chunker = StageWiring.chunker(settings, embedder);
        Map<String, SourceConnector> connectors = SourceWiring.connectors(settings, SourceWiring.httpTimeouts(settings),
                new FetchCancellation(), SourceWiring.sharedThrottle(settings, database).slackOnly());
        SourceTotals totals = new SourceTotals(database.dataSource(), Clock.systemUTC());
        return Drain.builder().connectors(connectors)
                .pipeline(parser, chunker, embedder, new DocumentIndex(database.dataSource(), embedder.dimensions()),
                        StageWiring.versions(connectors, chunker, embedder))
                .baseUris(source -> settings.find("sources." + source + ".base-uri").map(URI::create))
                .fallbackUris(totals::baseUri)
                .throttle(SourceRequestThrottle.unlimited(),
                        settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY))
                .work(workDir, settings.requiredNumber("ingest.max-bytes"));
    }
}
