package org.ingestquarantine.testsupport;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import javax.sql.DataSource;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * A real drain of folder sources, for tests of what starts one (the API, the page): the folder connector, the
 * given parser, a word chunker, {@link TwoDimensionEmbedder} and the index; each record of a source asked for at
 * {@code <its folder's URI><doc_id>}, the folder its only root.
 */
public final class FolderDrains {

    private FolderDrains() {
    }

    /**
     * @param dataSource the migrated database
     * @param store the evidence records
     * @param parser a started parser; the caller closes it
     * @param folders each source's folder
     * @param workDir where work files go
     * @return the drain
     */
    public static Drain of(DataSource dataSource, QuarantineStore store, DocumentParser parser,
                           Map<String, Path> folders, Path workDir) {
        Properties roots = new Properties();
        folders.forEach((source, folder) -> roots.setProperty("sources." + source + ".file-roots", folder.toString()));
        Embedder embedder = new TwoDimensionEmbedder();
        return Drain.builder().database(dataSource, store).access(SourceAccess.fromProperties(roots))
                .connectors(Map.of("file", new FolderConnector(Duration.ofSeconds(10))))
                .pipeline(parser, new WindowChunker(1000, 256, 20, s -> s.split("\\s+").length), embedder,
                        new DocumentIndex(dataSource, embedder.dimensions()), new PipelineVersions(Map.of("file", "test"),
                                ParserVersion.CURRENT, "window-test", embedder.version()))
                .baseUris(source -> Optional.ofNullable(folders.get(source)).map(Path::toUri).map(URI::toString)
                        .map(u -> URI.create(u.endsWith("/") ? u : u + "/")))
                .throttle(SourceRequestThrottle.unlimited(), 25).work(workDir, 10_000_000).build();
    }
}
