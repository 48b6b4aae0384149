-- The search index: one documents row per (source, doc_id) and its chunks.
-- state moves to 'searchable' only in the transaction that wrote every chunk (chunk_count of them).

CREATE TABLE documents (
    source             text        NOT NULL,
    doc_id             text        NOT NULL,
    source_version     text        NOT NULL,                 -- etag; content sha256 for the folder connector
    source_updated_at  timestamptz,
    content_sha256     char(64),
    parser_version     text        NOT NULL,
    chunker_version    text        NOT NULL,
    embedder_version   text        NOT NULL,
    page_count         integer     CHECK (page_count >= 0),
    chunk_count        integer     NOT NULL CHECK (chunk_count >= 0),
    state              text        NOT NULL CHECK (state IN ('indexing', 'searchable')),
    indexed_at         timestamptz NOT NULL,
    PRIMARY KEY (source, doc_id)
);

CREATE TABLE chunks (
    source             text        NOT NULL,
    doc_id             text        NOT NULL,
    seq                integer     NOT NULL CHECK (seq >= 0),
    text               text        NOT NULL,
    embedding          real[]      NOT NULL,                 -- no pgvector in the embedded server
    page_from          integer     NOT NULL,
    page_to            integer     NOT NULL,
    PRIMARY KEY (source, doc_id, seq),
    FOREIGN KEY (source, doc_id) REFERENCES documents (source, doc_id),
    CHECK (page_from <= page_to)
);

-- Operator and summary queries filter open records by source and group by cohort.
CREATE INDEX quarantine_open_by_source ON quarantine (source, disposition);
CREATE INDEX quarantine_cohort ON quarantine (parser_version, error_class, error_fingerprint);
CREATE INDEX documents_by_state ON documents (source, state);
