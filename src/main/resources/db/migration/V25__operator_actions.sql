-- The actions trail (issue 23): one row per operator bulk action, a dispose of a cohort or a drain (a canary is a
-- drain of a small limit), whichever way it came (the commands, the HTTP API, the page): who the caller said it
-- was, through which channel, when, the exact selection, how many records it selected and how it ended. Written
-- when the action starts (running) and again when it ends; a process killed meanwhile leaves it running. No row is
-- ever deleted; nothing in it is document text.
CREATE TABLE operator_actions (
    action_id          char(26)    PRIMARY KEY,              -- ULID
    action             text        NOT NULL CHECK (action IN ('dispose', 'drain')),
    actor              text        NOT NULL,                 -- as the caller stated it (--actor, the API's actor)
    channel            text        NOT NULL CHECK (channel IN ('cli', 'api', 'page')),
    started_at         timestamptz NOT NULL,
    finished_at        timestamptz,
    -- the selection: the open records of this fingerprint, narrowed by each column that is not null
    error_fingerprint  text        NOT NULL,
    parser_version     text,
    error_class        text,
    source             text,
    limit_documents    integer     CHECK (limit_documents >= 1),   -- a drain's limit; null for a dispose
    reason_code        text,                                 -- a dispose's reason, null for a drain
    owner              text,                                 -- a dispose's owner, null for a drain
    selected           integer,                              -- records the action took; null until known
    status             text        NOT NULL DEFAULT 'running'
                           CHECK (status IN ('running', 'finished', 'interrupted', 'refused', 'failed')),
    outcome_counts     jsonb       NOT NULL DEFAULT '{}'::jsonb,   -- disposition or drain outcome -> documents
    verdict_counts     jsonb       NOT NULL DEFAULT '{}'::jsonb,   -- a drain's '<disposition> by=<evidence>' -> documents
    error              text,                                 -- one line: why it was refused or failed
    drain_run_id       char(26)    REFERENCES drain_runs (run_id)
);

-- the trail, newest first (GET /api/actions, the actions command)
CREATE INDEX operator_actions_newest ON operator_actions (started_at DESC, action_id DESC);
