-- The attempt journal (DESIGN §2): a row written when an attempt starts, closed with its outcome.
-- An attempt started and never closed is a death (the consumer died mid-message).
-- For Kafka this is the only delivery counter.

CREATE TABLE attempt_journal (
    attempt_id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_key       text        NOT NULL,                 -- broker message identity, e.g. topic/partition/offset
    source             text,
    doc_id             text,
    delivery_count     integer     NOT NULL CHECK (delivery_count >= 1),
    started_at         timestamptz NOT NULL,
    stage              text,                                 -- last stage reached
    stage_at           timestamptz,
    closed_at          timestamptz,
    outcome            text        CHECK (outcome IN ('indexed', 'skipped', 'released', 'quarantined')),
    CHECK ((closed_at IS NULL) = (outcome IS NULL))
);

CREATE INDEX attempt_journal_by_key ON attempt_journal (delivery_key);
