-- Issue 22: two more ways an attempt ends. skipped_by_policy: a route's own rule chose not to index the document
-- (outcomes.skipped, with a reason); abandoned: the delivery ended without any outcome (a route's stop, filter or
-- choice that skipped the outcome bean), closed by the consumer before the message was acknowledged. ('skipped'
-- keeps its meaning: unchanged, stale or deleted at source.)

ALTER TABLE attempt_journal DROP CONSTRAINT attempt_journal_outcome_check;
ALTER TABLE attempt_journal ADD CONSTRAINT attempt_journal_outcome_check
    CHECK (outcome IN ('indexed', 'skipped', 'released', 'quarantined', 'skipped_by_policy', 'abandoned'));

-- The documents a route skipped by policy, one row per (source, doc_id), the latest skip: the version and the
-- bytes it was skipped at and why (an operator's short label, never document text). Coverage counts them as the
-- operator chooses (coverage.skipped-documents); a document indexed later is searchable again and not counted.
CREATE TABLE skipped_documents (
    source          text        NOT NULL,
    doc_id          text        NOT NULL,
    source_version  text,
    payload_sha256  text,
    reason          text        NOT NULL CHECK (reason ~ '^[a-z][a-z0-9_.-]{0,39}$'),
    attempt_id      bigint      NOT NULL,
    skipped_at      timestamptz NOT NULL,
    PRIMARY KEY (source, doc_id)
);
