package org.ingestquarantine.ingest;

import java.util.List;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineVersions;

/**
 * Writes the document and all its chunks in one transaction; the document becomes searchable only then.
 * A write older than the stored version is rejected by the index's version guard.
 */
public final class IndexStage {

    private final DocumentIndex index;
    private final PipelineVersions versions;

    /**
     * @param index the PostgreSQL index
     * @param versions this process's code versions
     */
    public IndexStage(DocumentIndex index, PipelineVersions versions) {
        this.index = index;
        this.versions = versions;
    }

    /**
     * @param message the delivery's message
     * @param fetched the fetched document
     * @return whether the index already holds this very version, made by this very code (then the rest of
     *     the pipeline is skipped)
     */
    public boolean isCurrent(IngestMessage message, FetchedDocument fetched) {
        return index.isCurrent(message.source(), message.docId(), fetched.sourceVersion(),
                versions.parser(), versions.chunker(), versions.embedder());
    }

    /**
     * @param message the delivery's message
     * @param fetched the fetched document
     * @param embedded its chunks with their vectors
     * @return the index's verdict: indexed, unchanged or stale
     */
    public IndexOutcome index(IngestMessage message, FetchedDocument fetched, EmbeddedDocument embedded) {
        List<IndexedChunk> rows = embedded.chunks().stream()
                .map(c -> new IndexedChunk(c.chunk().seq(), c.chunk().text(), c.vector(), c.chunk().pageFrom(), c.chunk().pageTo()))
                .toList();
        IndexedDocument doc = new IndexedDocument(message.source(), message.docId(), fetched.sourceVersion(),
                fetched.sourceUpdatedAt(), fetched.sha256(), versions.parser(), versions.chunker(), versions.embedder(),
                embedded.pageCount(), rows).withPagesLost(embedded.pagesLost());
        return index.index(doc);
    }
}
