package org.ingestquarantine.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ingestquarantine.pipeline.IngestMessage;

/**
 * GET: copies the document into a work file and hashes it. The work file lives until the delivery ends
 * ({@link #discard}, called when the consumer's exchange completes); a quarantine record has copied it to
 * the payload store by then. Leftover work files (a killed process) are harmless and cleared at start-up.
 */
public final class Fetcher {

    private final Preflight preflight;
    private final Path workDir;
    private final long maxBytes;

    /**
     * @param preflight gives the connector for a message
     * @param workDir folder for work files; created if missing
     * @param maxBytes largest document accepted, bytes
     * @throws IOException when the work folder cannot be created
     */
    public Fetcher(Preflight preflight, Path workDir, long maxBytes) throws IOException {
        this.preflight = preflight;
        this.workDir = Files.createDirectories(workDir);
        this.maxBytes = maxBytes;
    }

    /**
     * @param message the delivery's message
     * @return the document's bytes in a work file, with their sha256 and the source's version
     * @throws org.ingestquarantine.failure.PermanentInputException {@code unknown_source},
     *     {@code uri_not_allowed} or {@code invalid_uri} before any work file is created
     * @throws IOException when the bytes cannot be read; the work file is then gone
     */
    public FetchedDocument fetch(IngestMessage message) throws IOException {
        // refused before a work file exists: a URI outside the source's roots leaves no bytes behind
        UriGuard guard = preflight.guardFor(message);
        guard.check(message.uri());
        SourceConnector connector = preflight.connectorFor(message);
        Path target = Files.createTempFile(workDir, "doc-", ".bin");
        try {
            return connector.fetch(message.uri(), target, maxBytes, guard);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(target);
            throw e;
        }
    }

    /** @param fetched a fetched document, or {@code null} when nothing was fetched; its work file is deleted */
    public void discard(FetchedDocument fetched) {
        if (fetched == null) {
            return;
        }
        try {
            Files.deleteIfExists(fetched.file());
        } catch (IOException ignored) {
            // a leftover work file is harmless; the folder is cleared at start-up
        }
    }
}
