-- Evidence of a partial extraction (issue 9, item 7): a document indexed although some of its pages threw
-- during text extraction records how many and which (1-based page numbers), so it can be found and replayed.
-- V5, not V4: another branch may add a V4.

ALTER TABLE documents ADD COLUMN pages_lost_count integer   NOT NULL DEFAULT 0 CHECK (pages_lost_count >= 0);
ALTER TABLE documents ADD COLUMN pages_lost       integer[] NOT NULL DEFAULT '{}';

CREATE INDEX documents_partial ON documents (source) WHERE pages_lost_count > 0;
