package org.ingestquarantine.ingest;

import java.util.List;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineVersions;

/**
 * Writes the document and all its chunks in one statement, with the close of the delivery's attempt (and, for a
 * document with an open quarantine record, that record's close in the same transaction); the document becomes
 * searchable only then. A write older than the stored version is rejected by the index's
 * version guard.
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
     * Decides without a round trip: the index's version was read with the attempt's open.
     *
     * @param fetched the fetched document
     * @param indexed the version the index held as searchable when the delivery was admitted, null if none
     * @return whether the index already holds this very version, made by this very code (then the rest of
     *     the pipeline is skipped; a version indexed since the admission is found by the index write instead)
     */
    public boolean isCurrent(FetchedDocument fetched, IndexedVersion indexed) {
        return indexed != null && fetched.sourceVersion().equals(indexed.sourceVersion())
                && versions.parser().equals(indexed.parserVersion())
                && versions.chunker().equals(indexed.chunkerVersion())
                && versions.embedder().equals(indexed.embedderVersion());
    }

    /**
     * @param message the delivery's message
     * @param fetched the fetched document
     * @param attemptId the delivery's attempt, closed by the same statement ({@code indexed} or {@code skipped});
     *     null to close none
     * @param embedded its chunks with their vectors
     * @return the index's verdict: indexed, unchanged or stale
     */
    public IndexOutcome index(IngestMessage message, FetchedDocument fetched, Long attemptId,
                              EmbeddedDocument embedded) {
        return index(message, fetched, attemptId, null, embedded);
    }

    /**
     * @param message the delivery's message
     * @param fetched the fetched document
     * @param attemptId the delivery's attempt, closed in the same transaction; null to close none
     * @param openRecord {@code true} if the document had an open quarantine record at admission: the write goes
     *     straight to the transaction that closes it (no guarded statement first); null or false: the single
     *     statement, which still finds a record written since
     * @param embedded its chunks with their vectors
     * @return the index's verdict: indexed, unchanged or stale
     */
    public IndexOutcome index(IngestMessage message, FetchedDocument fetched, Long attemptId, Boolean openRecord,
                              EmbeddedDocument embedded) {
        List<IndexedChunk> rows = embedded.chunks().stream()
                .map(c -> new IndexedChunk(c.chunk().seq(), c.chunk().text(), c.vector(), c.chunk().pageFrom(), c.chunk().pageTo()))
                .toList();
        IndexedDocument doc = new IndexedDocument(message.source(), message.docId(), fetched.sourceVersion(),
                fetched.sourceUpdatedAt(), fetched.sha256(), versions.parser(), versions.chunker(), versions.embedder(),
                embedded.pageCount(), rows).withPagesLost(embedded.pagesLost());
        return index.index(doc, attemptId, Boolean.TRUE.equals(openRecord));
    }
}
