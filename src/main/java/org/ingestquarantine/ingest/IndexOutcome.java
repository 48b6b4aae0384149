package org.ingestquarantine.ingest;

/** What {@link DocumentIndex#index(IndexedDocument)} did. */
public enum IndexOutcome {
    /** The chunks were written and the document is searchable. */
    INDEXED,
    /** The same source version was already searchable with the same parser, chunker and embedder: nothing written. */
    UNCHANGED,
    /** The index holds a newer version of the document (later source_updated_at): nothing written. */
    STALE_REJECTED
}
