package org.ingestquarantine.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.PipelineVersions;

/**
 * GET: copies the document into a work file, hashes it, and marks it {@link PipelineKeys#UNCHANGED} when
 * the index already holds this very version made by this very code. The work file is deleted when the
 * delivery ends, whatever its outcome (a quarantine record has copied it to the payload store by then).
 */
public final class Fetcher {

    private final Preflight preflight;
    private final DocumentIndex index;
    private final PipelineVersions versions;
    private final Path workDir;
    private final long maxBytes;

    /**
     * @param preflight gives the connector for a message
     * @param index answers whether a version is already indexed
     * @param versions this process's code versions
     * @param workDir folder for work files; created if missing
     * @param maxBytes largest document accepted, bytes
     * @throws IOException when the work folder cannot be created
     */
    public Fetcher(Preflight preflight, DocumentIndex index, PipelineVersions versions, Path workDir, long maxBytes)
            throws IOException {
        this.preflight = preflight;
        this.index = index;
        this.versions = versions;
        this.workDir = Files.createDirectories(workDir);
        this.maxBytes = maxBytes;
    }

    /**
     * @param exchange the delivery, with {@link PipelineKeys#MESSAGE}
     * @throws IOException when the bytes cannot be read
     */
    public void fetch(Exchange exchange) throws IOException {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        Path target = Files.createTempFile(workDir, "doc-", ".bin");
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                try {
                    Files.deleteIfExists(target);
                } catch (IOException ignored) {
                    // a leftover work file is harmless; the folder is cleared at start-up
                }
            }
        });
        FetchedDocument fetched = preflight.connectorFor(message).fetch(message.uri(), target, maxBytes);
        exchange.setProperty(PipelineKeys.FETCHED, fetched);
        boolean unchanged = index.isCurrent(message.source(), message.docId(), fetched.sourceVersion(),
                versions.parser(), versions.chunker(), versions.embedder());
        exchange.setProperty(PipelineKeys.UNCHANGED, unchanged);
    }
}
