-- Issue 23 (item 6): the failure-storm breaker (delivery/FailureStorm). A source whose recent deliveries fail, in a
-- share past storm.failing-percent, with one fingerprint new to it (a parser regression, a source serving error
-- pages) is paused: one row here, which every consumer reads (every storm.pause-cache-ms), so that no process works
-- on the source's deliveries; it stays paused, restarts included, until an operator resumes it (storm resume
-- --source S, POST /api/sources/<S>/resume). Rows are never deleted: a resumed pause keeps who resumed it and when,
-- and its storm_began_at keeps the storm's own records from ever making its fingerprint known to the source.
CREATE TABLE storm_pause (
    pause_id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source             text        NOT NULL,
    error_fingerprint  text        NOT NULL,
    error_class        text        NOT NULL,
    reason_code        text        NOT NULL,
    failed             integer     NOT NULL CHECK (failed >= 1),            -- deliveries of the window failing with it
    deliveries         integer     NOT NULL CHECK (deliveries >= failed),   -- deliveries in the window
    storm_began_at     timestamptz NOT NULL,                                -- the window's first failure with it
    paused_at          timestamptz NOT NULL,
    paused_by          text        NOT NULL,                                -- the consumer process that saw the storm
    resumed_at         timestamptz,
    resumed_by         text,
    CONSTRAINT storm_pause_resumed_by_whom CHECK ((resumed_at IS NULL) = (resumed_by IS NULL))
);
-- at most one open pause per source: two consumers that see one storm at once write one row
CREATE UNIQUE INDEX storm_pause_open ON storm_pause (source) WHERE resumed_at IS NULL;
CREATE INDEX storm_pause_by_fingerprint ON storm_pause (source, error_fingerprint);

-- storm_paused: a delivery of a paused source handed back unworked. Like pipeline_fault, not a delivery the document
-- failed: the budget of the document's error class leaves these attempts out of its delivery count. The list is the
-- whole set of outcomes, whichever migrations ran before this one: the constraint is dropped and added again whole.
ALTER TABLE attempt_journal DROP CONSTRAINT attempt_journal_outcome_check;
ALTER TABLE attempt_journal ADD CONSTRAINT attempt_journal_outcome_check
    CHECK (outcome IN ('indexed', 'skipped', 'released', 'quarantined', 'skipped_by_policy', 'abandoned',
                       'pipeline_fault', 'storm_paused'));
