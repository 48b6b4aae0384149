package org.ingestquarantine.ingest;

import java.util.List;
import org.apache.camel.Exchange;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
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
     * @param exchange the delivery, with message, fetched document, parse result and embedded chunks
     * @return the index's verdict: indexed, unchanged or stale
     */
    @SuppressWarnings("unchecked")
    public IndexOutcome index(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        FetchedDocument fetched = exchange.getProperty(PipelineKeys.FETCHED, FetchedDocument.class);
        ParsedDocument parsed = exchange.getProperty(PipelineKeys.PARSED, ParsedDocument.class);
        List<EmbedStage.EmbeddedChunk> chunks = exchange.getProperty(PipelineKeys.CHUNKS, List.class);
        List<IndexedChunk> rows = chunks.stream()
                .map(c -> new IndexedChunk(c.chunk().seq(), c.chunk().text(), c.vector(), c.chunk().pageFrom(), c.chunk().pageTo()))
                .toList();
        IndexedDocument doc = new IndexedDocument(message.source(), message.docId(), fetched.sourceVersion(),
                fetched.sourceUpdatedAt(), fetched.sha256(), versions.parser(), versions.chunker(), versions.embedder(),
                parsed.pageCount(), rows);
        return index.index(doc);
    }
}
