-- The summary out of the quarantine write's path (issue 8, speed: one record per transaction). Until V11 every
-- record statement locked and updated its group's row in quarantine_summary, so concurrent writers of one group
-- (a cohort: one parser version failing on many documents) queued on that row until each commit. Now:
--  * a write only appends its groups' changes to quarantine_summary_pending (insert-only, no index, no lock on
--    any shared row), in the same transaction as the records;
--  * the operator's questions read the view quarantine_groups: quarantine_summary plus the pending changes,
--    equal to an aggregate over the committed records at the reading statement's snapshot
--    (SummaryConsistencyTest checks this after a mix of writes, before and after folds);
--  * quarantine_summary_fold() moves the pending changes into quarantine_summary, one fold at a time
--    (a transaction-scoped advisory lock, never waited for). A write folds when its change's id is a multiple
--    of the fold period in quarantine_summary_fold_due (inside that write's transaction, so the table stays
--    small with no scheduler); seed-demo folds after its bulk insert.
-- Nothing but a fold writes quarantine_summary (and the truncate trigger, which holds the table lock), so a fold
-- never waits for a lock either; source_summary is kept by the triggers of V6/V11 as before.

-- One change to one group by one statement: joins and stays (documents >= 0; first_seen_min..last_seen_max are
-- the extremes of the records now in the group) or leaves (documents < 0; the extremes of the records that
-- left, which a fold compares with the group's to decide whether to read them again).
CREATE TABLE quarantine_summary_pending (
    id                 bigint      GENERATED ALWAYS AS IDENTITY,   -- no index: decides when a write folds
    source             text        NOT NULL,
    parser_version     text        NOT NULL,                 -- '' for none, as in quarantine_summary
    error_class        text        NOT NULL,
    error_fingerprint  text        NOT NULL,                 -- '' for none
    disposition        text        NOT NULL,
    owner              text        NOT NULL,                 -- '' for none
    documents          bigint      NOT NULL,                 -- records joining (> 0), leaving (< 0), staying (0)
    attempts           bigint      NOT NULL,                 -- attempts added (negative when records leave)
    first_seen_min     timestamptz NOT NULL,
    first_seen_max     timestamptz NOT NULL,
    last_seen_max      timestamptz NOT NULL
);
-- Folds delete what writes append: the pages they empty are reused once VACUUM has seen them, and until then the
-- view's scan reads them. Vacuum this table after every fold's worth of deleted rows, without a cost delay.
ALTER TABLE quarantine_summary_pending SET (autovacuum_vacuum_threshold = 1024, autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_cost_delay = 0);

-- Every how many pending changes a write folds them (changes, not records: one record statement adds one).
CREATE FUNCTION quarantine_summary_fold_period() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT 1024::bigint $$;

-- The changes of one statement (V6's delta type, one element per record), appended per group and direction.
CREATE OR REPLACE FUNCTION quarantine_summary_apply(deltas quarantine_summary_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    due boolean;
BEGIN
    IF deltas IS NULL OR cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    WITH added AS (
        INSERT INTO quarantine_summary_pending (source, parser_version, error_class, error_fingerprint,
            disposition, owner, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
        SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
               sum(d.documents), sum(d.attempts), min(d.first_seen_at), max(d.first_seen_at), max(d.last_seen_at)
        FROM unnest(deltas) d
        GROUP BY d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
                 d.documents < 0
        RETURNING id)
    SELECT bool_or(id % quarantine_summary_fold_period() = 0) INTO due FROM added;
    IF due THEN
        PERFORM quarantine_summary_fold();
    END IF;
END $$;

-- V11's single-row path of the insert trigger, its group's change appended instead of upserted.
CREATE OR REPLACE FUNCTION quarantine_summary_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
    n integer;
    k bigint;
BEGIN
    SELECT count(*) INTO n FROM (SELECT 1 FROM new_rows LIMIT 2) x;
    IF n = 0 THEN
        RETURN NULL;   -- an upsert that only updated
    END IF;
    IF n = 1 THEN
        SELECT * INTO r FROM new_rows;
        PERFORM pg_advisory_xact_lock_shared(hashtextextended('source:' || r.source, 0));
        PERFORM pg_advisory_xact_lock(hashtextextended('document:' || r.source || '/' || r.doc_id, 0));
        IF r.disposition IN ('open', 'unindexable') AND EXISTS (SELECT 1 FROM documents d
                WHERE d.source = r.source AND d.doc_id = r.doc_id AND d.state = 'searchable') THEN
            UPDATE source_summary s SET
                open_indexed = s.open_indexed + (r.disposition = 'open')::int,
                unindexable_indexed = s.unindexable_indexed + (r.disposition = 'unindexable')::int
            WHERE s.source = r.source;
        END IF;
        INSERT INTO quarantine_summary_pending (source, parser_version, error_class, error_fingerprint,
            disposition, owner, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
        VALUES (r.source, COALESCE(r.parser_version, ''), r.error_class, COALESCE(r.error_fingerprint, ''),
            r.disposition, COALESCE(r.owner, ''), 1, r.attempts, r.first_seen_at, r.first_seen_at, r.last_seen_at)
        RETURNING id INTO k;
        IF k % quarantine_summary_fold_period() = 0 THEN
            PERFORM quarantine_summary_fold();
        END IF;
        RETURN NULL;
    END IF;
    PERFORM summary_lock_documents(ARRAY(SELECT n.source FROM new_rows n),
        ARRAY(SELECT n.source || '/' || n.doc_id FROM new_rows n));
    UPDATE source_summary s SET
        open_indexed = s.open_indexed + c.open_n, unindexable_indexed = s.unindexable_indexed + c.unindexable_n
    FROM (SELECT n.source, count(*) FILTER (WHERE n.disposition = 'open') AS open_n,
                 count(*) FILTER (WHERE n.disposition = 'unindexable') AS unindexable_n
          FROM new_rows n JOIN documents d ON d.source = n.source AND d.doc_id = n.doc_id AND d.state = 'searchable'
          WHERE n.disposition IN ('open', 'unindexable') GROUP BY n.source) c
    WHERE s.source = c.source;
    PERFORM quarantine_summary_apply(ARRAY(
        SELECT ROW(n.source, COALESCE(n.parser_version, ''), n.error_class, COALESCE(n.error_fingerprint, ''),
                   n.disposition, COALESCE(n.owner, ''), 1, n.attempts, n.first_seen_at, n.last_seen_at)
                   ::quarantine_summary_delta
        FROM new_rows n));
    RETURN NULL;
END $$;

-- Moved changes per group: what joined or stayed (documents and attempts summed, their records' first and last
-- times) and the first and last times of the records that left.
CREATE FUNCTION quarantine_summary_pending_groups(moved quarantine_summary_pending[])
RETURNS TABLE (source text, parser_version text, error_class text, error_fingerprint text, disposition text,
    owner text, documents bigint, attempts bigint, first_min timestamptz, first_max timestamptz,
    last_max timestamptz, gone_first_min timestamptz, gone_first_max timestamptz, gone_last_max timestamptz)
LANGUAGE sql IMMUTABLE AS $$
    SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
           sum(d.documents)::bigint, sum(d.attempts)::bigint,
           min(d.first_seen_min) FILTER (WHERE d.documents >= 0), max(d.first_seen_max) FILTER (WHERE d.documents >= 0),
           max(d.last_seen_max) FILTER (WHERE d.documents >= 0),
           min(d.first_seen_min) FILTER (WHERE d.documents < 0), max(d.first_seen_max) FILTER (WHERE d.documents < 0),
           max(d.last_seen_max) FILTER (WHERE d.documents < 0)
    FROM unnest(moved) d
    GROUP BY 1, 2, 3, 4, 5, 6
$$;

-- Moves every committed pending change (and this transaction's own) into quarantine_summary. Returns how many
-- it moved; 0 when another transaction is folding (that one moves them, or the next fold does). A change
-- committed meanwhile stays pending. Runs V6's merge, whose locks no other writer now takes: a group's row is
-- updated with its joins and leaves, created when new, deleted when empty; a group whose recorded first or last
-- time belonged to a record that left is read again from quarantine (index quarantine_group) and keeps its
-- times when that finds no record (its own leaves are then still pending, and the view reads it again).
CREATE FUNCTION quarantine_summary_fold() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    moved quarantine_summary_pending[];
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended('quarantine_summary_fold', 0)) THEN
        RETURN 0;
    END IF;
    WITH taken AS (DELETE FROM quarantine_summary_pending RETURNING *)
    SELECT array_agg(t) INTO moved FROM taken t;
    IF moved IS NULL THEN
        RETURN 0;
    END IF;

    UPDATE quarantine_summary s SET
        documents = s.documents + g.documents,
        attempts = s.attempts + g.attempts,
        first_seen_min = LEAST(s.first_seen_min, g.first_min),
        first_seen_max = GREATEST(s.first_seen_max, g.first_max),
        last_seen_max = GREATEST(s.last_seen_max, g.last_max),
        stale = COALESCE(g.gone_first_min <= s.first_seen_min OR g.gone_first_max >= s.first_seen_max
                         OR g.gone_last_max >= s.last_seen_max, false)
    FROM quarantine_summary_pending_groups(moved) g
    WHERE (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
        = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner);

    -- new groups (a record that joined and left within the moved changes: its times are read again)
    INSERT INTO quarantine_summary (source, parser_version, error_class, error_fingerprint, disposition, owner,
        documents, attempts, first_seen_min, first_seen_max, last_seen_max, stale)
    SELECT g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner,
           g.documents, g.attempts, g.first_min, g.first_max, g.last_max, g.gone_first_min IS NOT NULL
    FROM quarantine_summary_pending_groups(moved) g
    WHERE g.documents > 0 AND NOT EXISTS (SELECT 1 FROM quarantine_summary e
        WHERE (e.source, e.parser_version, e.error_class, e.error_fingerprint, e.disposition, e.owner)
            = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner))
    ORDER BY 1, 2, 3, 4, 5, 6;

    DELETE FROM quarantine_summary s USING quarantine_summary_pending_groups(moved) g
    WHERE s.documents = 0
      AND (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
        = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner);

    UPDATE quarantine_summary s SET (first_seen_min, first_seen_max, last_seen_max, stale) = (
        SELECT COALESCE(min(q.first_seen_at), s.first_seen_min), COALESCE(max(q.first_seen_at), s.first_seen_max),
               COALESCE(max(q.last_seen_at), s.last_seen_max), false
        FROM quarantine q
        WHERE q.source = s.source AND COALESCE(q.parser_version, '') = s.parser_version
          AND q.error_class = s.error_class AND COALESCE(q.error_fingerprint, '') = s.error_fingerprint
          AND q.disposition = s.disposition AND COALESCE(q.owner, '') = s.owner)
    FROM quarantine_summary_pending_groups(moved) g
    WHERE s.stale
      AND (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
        = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner);
    RETURN cardinality(moved);
END $$;

CREATE OR REPLACE FUNCTION quarantine_summary_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM quarantine_summary;
    DELETE FROM quarantine_summary_pending;
    UPDATE source_summary SET open_indexed = 0, unindexable_indexed = 0;
    DELETE FROM source_summary WHERE indexed = 0;
    RETURN NULL;
END $$;

-- What the operator's questions read: one row per group of records that has any, as quarantine_summary held it
-- under V6 (documents, attempts summed; the first and last times of the group's records). A group with a
-- pending leave takes its times from its records (index-only scan of quarantine_group) until a fold.
CREATE VIEW quarantine_groups AS
SELECT g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner, g.documents,
       g.attempts,
       CASE WHEN g.left_some THEN r.first_seen_min ELSE g.first_seen_min END AS first_seen_min,
       CASE WHEN g.left_some THEN r.first_seen_max ELSE g.first_seen_max END AS first_seen_max,
       CASE WHEN g.left_some THEN r.last_seen_max ELSE g.last_seen_max END AS last_seen_max
FROM (
    SELECT u.source, u.parser_version, u.error_class, u.error_fingerprint, u.disposition, u.owner,
           sum(u.documents)::bigint AS documents, sum(u.attempts)::bigint AS attempts,
           min(u.first_seen_min) FILTER (WHERE u.documents >= 0) AS first_seen_min,
           max(u.first_seen_max) FILTER (WHERE u.documents >= 0) AS first_seen_max,
           max(u.last_seen_max) FILTER (WHERE u.documents >= 0) AS last_seen_max,
           bool_or(u.documents < 0) AS left_some
    FROM (SELECT source, parser_version, error_class, error_fingerprint, disposition, owner, documents, attempts,
                 first_seen_min, first_seen_max, last_seen_max
          FROM quarantine_summary
          UNION ALL
          SELECT source, parser_version, error_class, error_fingerprint, disposition, owner, documents, attempts,
                 first_seen_min, first_seen_max, last_seen_max
          FROM quarantine_summary_pending) u
    GROUP BY u.source, u.parser_version, u.error_class, u.error_fingerprint, u.disposition, u.owner
    HAVING sum(u.documents) > 0
) g
LEFT JOIN LATERAL (
    SELECT min(q.first_seen_at) AS first_seen_min, max(q.first_seen_at) AS first_seen_max,
           max(q.last_seen_at) AS last_seen_max
    FROM quarantine q
    WHERE g.left_some AND q.source = g.source AND COALESCE(q.parser_version, '') = g.parser_version
      AND q.error_class = g.error_class AND COALESCE(q.error_fingerprint, '') = g.error_fingerprint
      AND q.disposition = g.disposition AND COALESCE(q.owner, '') = g.owner
) r ON true;
