-- Operator tooling (DESIGN §5, §6): per-source totals for coverage, the record of every drain run with its
-- fixed selection, and indexes for the operator's questions. No quarantine row is ever deleted.

-- How many documents a source holds, as its connector last counted them (the folder connector knows its
-- file count; an HTTP source may never report one, and then coverage shows only the oldest open age).
CREATE TABLE source_totals (
    source             text        PRIMARY KEY,
    documents          bigint      NOT NULL CHECK (documents >= 0),
    counted_at         timestamptz NOT NULL,
    counted_by         text        NOT NULL,                -- connector version that counted, e.g. folder-1
    base_uri           text                                  -- where doc_ids resolve (a drain re-fetches there), or null
);

-- One row per drain run: who, when, which cohort, how it ended. "Time since the last drain" reads this.
CREATE TABLE drain_runs (
    run_id             char(26)    PRIMARY KEY,              -- ULID
    started_by         text        NOT NULL,
    started_at         timestamptz NOT NULL,
    finished_at        timestamptz,
    error_fingerprint  text        NOT NULL,
    parser_version     text,                                 -- null: every parser version
    error_class        text,                                 -- null: every class
    limit_documents    integer     NOT NULL CHECK (limit_documents >= 1),
    rate_per_s         double precision NOT NULL CHECK (rate_per_s > 0),  -- source requests per second
    cohort_documents   integer     NOT NULL,                 -- open records in the cohort at the start
    selected           integer     NOT NULL,                 -- records in this run's fixed selection
    status             text        NOT NULL DEFAULT 'running'
                           CHECK (status IN ('running', 'finished', 'interrupted')),
    outcome_counts     jsonb       NOT NULL DEFAULT '{}'::jsonb,   -- outcome -> documents
    source_requests    integer     NOT NULL DEFAULT 0
);

-- The selection of a run, fixed when it starts: records joining the cohort later are not in it.
CREATE TABLE drain_run_items (
    run_id             char(26)    NOT NULL REFERENCES drain_runs (run_id),
    dlq_id             char(26)    NOT NULL REFERENCES quarantine (dlq_id),
    outcome            text,                                 -- null until the record was tried
    PRIMARY KEY (run_id, dlq_id)
);

-- The token buckets of source requests (bucket4j's PostgreSQL proxy manager), shared by every process that
-- asks a source: the live connectors and the drain. One row per origin (scheme://host:port).
CREATE TABLE source_request_buckets (
    id                 bigint      PRIMARY KEY,
    state              bytea,
    expires_at         bigint
);

-- cohorts: an index-only scan over the open records of each cohort
CREATE INDEX quarantine_open_cohort ON quarantine (parser_version, error_class, error_fingerprint)
    INCLUDE (source, attempts, first_seen_at, last_seen_at, dlq_id) WHERE disposition = 'open';
-- overdue: open records by age
CREATE INDEX quarantine_open_age ON quarantine (first_seen_at) WHERE disposition = 'open';
-- drain selection and dispose: records of one fingerprint
CREATE INDEX quarantine_by_fingerprint ON quarantine (error_fingerprint, parser_version);
-- journal pruning: closed attempts by age
CREATE INDEX attempt_journal_closed ON attempt_journal (closed_at) WHERE closed_at IS NOT NULL;
