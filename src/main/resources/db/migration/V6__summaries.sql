-- Summaries for the operator's questions (issue 8, speed): stats, cohorts, coverage and overdue read these small
-- tables instead of aggregating every record. Statement-level triggers keep them in the SAME transaction as the
-- statement that changes quarantine or documents, whichever path writes (the pipeline's record statement, close,
-- dispose, erase, drain, expire, seed-demo's bulk insert), so a committed summary always equals an aggregate over
-- the committed records (QuarantineSummaryTest checks this after a mix of writes).
-- Text columns of a group key hold '' where the record holds NULL (a primary key cannot hold NULL in PostgreSQL 14).

-- One row per group of records: (source, parser_version, error_class, error_fingerprint, disposition, owner).
CREATE TABLE quarantine_summary (
    source             text        NOT NULL,
    parser_version     text        NOT NULL,                 -- '' for none
    error_class        text        NOT NULL,
    error_fingerprint  text        NOT NULL,                 -- '' for none
    disposition        text        NOT NULL,
    owner              text        NOT NULL,                 -- '' for none
    documents          bigint      NOT NULL CHECK (documents >= 0),   -- records in the group
    attempts           bigint      NOT NULL CHECK (attempts >= 0),    -- their attempts, summed
    first_seen_min     timestamptz NOT NULL,
    first_seen_max     timestamptz NOT NULL,
    last_seen_max      timestamptz NOT NULL,
    stale              boolean     NOT NULL DEFAULT false,   -- only inside a trigger: extremes to recompute
    PRIMARY KEY (source, parser_version, error_class, error_fingerprint, disposition, owner)
);

-- One row per source that has records or indexed documents: what coverage needs beyond quarantine_summary.
CREATE TABLE source_summary (
    source               text   PRIMARY KEY,
    indexed              bigint NOT NULL DEFAULT 0 CHECK (indexed >= 0),             -- documents searchable
    open_indexed         bigint NOT NULL DEFAULT 0 CHECK (open_indexed >= 0),        -- open records of those
    unindexable_indexed  bigint NOT NULL DEFAULT 0 CHECK (unindexable_indexed >= 0)  -- unindexable records of those
);

-- A group's records in first-seen order: recomputes a group's extremes when the record holding one leaves it,
-- gives cohorts its example (the group's oldest record) and overdue the records of a group older than a cut-off.
CREATE INDEX quarantine_group ON quarantine (source, COALESCE(parser_version, ''), error_class,
    COALESCE(error_fingerprint, ''), disposition, COALESCE(owner, ''), first_seen_at)
    INCLUDE (last_seen_at, parser_version, error_fingerprint, owner);   -- the raw columns allow index-only scans
-- cohorts now reads quarantine_summary
DROP INDEX quarantine_open_cohort;

-- A change to one group: documents +1 (a record joins), -1 (leaves) or 0 (stays, its attempts or last_seen_at
-- changed); attempts added (negative when it leaves); the record's first and last seen times.
CREATE TYPE quarantine_summary_delta AS (
    source text, parser_version text, error_class text, error_fingerprint text, disposition text, owner text,
    documents integer, attempts integer, first_seen_at timestamptz, last_seen_at timestamptz);

CREATE FUNCTION quarantine_summary_apply(deltas quarantine_summary_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF deltas IS NULL OR cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM unnest(deltas) d WHERE d.documents < 0) THEN
        -- no record leaves a group (a new record, a repeat failure in the same group): one upsert, in key order
        INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition,
            owner, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
        SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
               sum(d.documents), sum(d.attempts), min(d.first_seen_at), max(d.first_seen_at), max(d.last_seen_at)
        FROM unnest(deltas) d
        GROUP BY 1, 2, 3, 4, 5, 6
        ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (source, parser_version, error_class, error_fingerprint, disposition, owner) DO UPDATE SET
            documents = s.documents + EXCLUDED.documents,
            attempts = s.attempts + EXCLUDED.attempts,
            first_seen_min = LEAST(s.first_seen_min, EXCLUDED.first_seen_min),
            first_seen_max = GREATEST(s.first_seen_max, EXCLUDED.first_seen_max),
            last_seen_max = GREATEST(s.last_seen_max, EXCLUDED.last_seen_max);
        RETURN;
    END IF;
    -- lock the groups that exist in key order, so writers moving records in opposite directions cannot deadlock
    PERFORM 1 FROM quarantine_summary s
    WHERE (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner) IN
          (SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner
           FROM unnest(deltas) d)
    ORDER BY s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner
    FOR UPDATE;

    WITH g AS (
        SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
               sum(d.documents) AS documents, sum(d.attempts) AS attempts,
               min(d.first_seen_at) FILTER (WHERE d.documents >= 0) AS first_min,
               max(d.first_seen_at) FILTER (WHERE d.documents >= 0) AS first_max,
               max(d.last_seen_at) FILTER (WHERE d.documents >= 0) AS last_max,
               min(d.first_seen_at) FILTER (WHERE d.documents < 0) AS gone_first_min,
               max(d.first_seen_at) FILTER (WHERE d.documents < 0) AS gone_first_max,
               max(d.last_seen_at) FILTER (WHERE d.documents < 0) AS gone_last_max
        FROM unnest(deltas) d GROUP BY 1, 2, 3, 4, 5, 6)
    UPDATE quarantine_summary s SET
        documents = s.documents + g.documents,
        attempts = s.attempts + g.attempts,
        first_seen_min = LEAST(s.first_seen_min, g.first_min),
        first_seen_max = GREATEST(s.first_seen_max, g.first_max),
        last_seen_max = GREATEST(s.last_seen_max, g.last_max),
        stale = COALESCE(g.gone_first_min <= s.first_seen_min OR g.gone_first_max >= s.first_seen_max
                         OR g.gone_last_max >= s.last_seen_max, false)
    FROM g
    WHERE (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
        = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner);

    -- groups that did not exist a statement ago (a concurrent writer may create one meanwhile: then add to it)
    INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition, owner,
        documents, attempts, first_seen_min, first_seen_max, last_seen_max)
    SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
           sum(d.documents), sum(d.attempts), min(d.first_seen_at), max(d.first_seen_at), max(d.last_seen_at)
    FROM unnest(deltas) d
    WHERE d.documents > 0 AND NOT EXISTS (SELECT 1 FROM quarantine_summary e
        WHERE (e.source, e.parser_version, e.error_class, e.error_fingerprint, e.disposition, e.owner)
            = (d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner))
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (source, parser_version, error_class, error_fingerprint, disposition, owner) DO UPDATE SET
        documents = s.documents + EXCLUDED.documents,
        attempts = s.attempts + EXCLUDED.attempts,
        first_seen_min = LEAST(s.first_seen_min, EXCLUDED.first_seen_min),
        first_seen_max = GREATEST(s.first_seen_max, EXCLUDED.first_seen_max),
        last_seen_max = GREATEST(s.last_seen_max, EXCLUDED.last_seen_max);

    DELETE FROM quarantine_summary s USING unnest(deltas) d
    WHERE s.documents = 0
      AND (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
        = (d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner);

    -- a record holding a group's extreme left it: read the group's extremes again (index quarantine_group)
    UPDATE quarantine_summary s SET (first_seen_min, first_seen_max, last_seen_max, stale) = (
        SELECT min(q.first_seen_at), max(q.first_seen_at), max(q.last_seen_at), false FROM quarantine q
        WHERE q.source = s.source AND COALESCE(q.parser_version, '') = s.parser_version
          AND q.error_class = s.error_class AND COALESCE(q.error_fingerprint, '') = s.error_fingerprint
          AND q.disposition = s.disposition AND COALESCE(q.owner, '') = s.owner)
    FROM (SELECT DISTINCT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner
          FROM unnest(deltas) d WHERE d.documents < 0) k
    WHERE s.stale
      AND (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
        = (k.source, k.parser_version, k.error_class, k.error_fingerprint, k.disposition, k.owner);
END $$;

-- Coverage's overlap: a record counts in coverage's denominator only when its document is not searchable. Both
-- triggers lock the documents they change (transaction-scoped advisory locks) BEFORE they read the other table,
-- so a record and its document written concurrently are counted once, whichever commits first. A statement
-- changing few documents takes its sources' locks shared and each document's exclusively (writers of one source
-- do not queue on each other); one changing many (dispose, seed-demo) takes its sources exclusively instead.
-- sources: the statement's sources; documents: 'source/doc_id' of each document it changes.
CREATE FUNCTION summary_lock_documents(sources text[], documents text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
BEGIN
    IF cardinality(documents) > 64 THEN
        FOR k IN SELECT DISTINCT hashtextextended('source:' || x, 0) FROM unnest(sources) x ORDER BY 1 LOOP
            PERFORM pg_advisory_xact_lock(k);
        END LOOP;
    ELSE
        FOR k IN SELECT DISTINCT hashtextextended('source:' || x, 0) FROM unnest(sources) x ORDER BY 1 LOOP
            PERFORM pg_advisory_xact_lock_shared(k);
        END LOOP;
        FOR k IN SELECT DISTINCT hashtextextended('document:' || x, 0) FROM unnest(documents) x ORDER BY 1 LOOP
            PERFORM pg_advisory_xact_lock(k);
        END LOOP;
    END IF;
END $$;

-- A source's row in source_summary, created if missing and locked (documents' trigger only: record writes
-- touch it only when a document they change is searchable).
CREATE FUNCTION source_summary_lock(sources text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO source_summary AS s (source)
    SELECT DISTINCT x FROM unnest(sources) x ORDER BY 1
    ON CONFLICT (source) DO UPDATE SET indexed = s.indexed;
END $$;

CREATE FUNCTION quarantine_summary_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM new_rows) THEN
        RETURN NULL;   -- an upsert that only updated
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

CREATE FUNCTION quarantine_summary_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM new_rows) THEN
        RETURN NULL;   -- an upsert that only inserted
    END IF;
    IF EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n USING (dlq_id)
               WHERE (o.disposition IN ('open', 'unindexable') OR n.disposition IN ('open', 'unindexable'))
                 AND o.disposition <> n.disposition) THEN
        PERFORM summary_lock_documents(
            ARRAY(SELECT n.source FROM old_rows o JOIN new_rows n USING (dlq_id) WHERE o.disposition <> n.disposition),
            ARRAY(SELECT n.source || '/' || n.doc_id FROM old_rows o JOIN new_rows n USING (dlq_id)
                  WHERE o.disposition <> n.disposition));
        UPDATE source_summary s SET
            open_indexed = s.open_indexed + c.open_n, unindexable_indexed = s.unindexable_indexed + c.unindexable_n
        FROM (SELECT n.source,
                     sum((n.disposition = 'open')::int - (o.disposition = 'open')::int) AS open_n,
                     sum((n.disposition = 'unindexable')::int - (o.disposition = 'unindexable')::int) AS unindexable_n
              FROM old_rows o JOIN new_rows n USING (dlq_id)
                  JOIN documents d ON d.source = n.source AND d.doc_id = n.doc_id AND d.state = 'searchable'
              WHERE o.disposition <> n.disposition GROUP BY n.source) c
        WHERE s.source = c.source;
    END IF;
    PERFORM quarantine_summary_apply(ARRAY(
        SELECT x FROM old_rows o JOIN new_rows n USING (dlq_id),
            LATERAL (SELECT (o.source, COALESCE(o.parser_version, ''), o.error_class,
                             COALESCE(o.error_fingerprint, ''), o.disposition, COALESCE(o.owner, ''))
                         IS DISTINCT FROM
                            (n.source, COALESCE(n.parser_version, ''), n.error_class,
                             COALESCE(n.error_fingerprint, ''), n.disposition, COALESCE(n.owner, '')) AS moved) m,
            LATERAL (
                SELECT ROW(o.source, COALESCE(o.parser_version, ''), o.error_class, COALESCE(o.error_fingerprint, ''),
                           o.disposition, COALESCE(o.owner, ''), -1, -o.attempts, o.first_seen_at, o.last_seen_at)
                           ::quarantine_summary_delta AS x
                WHERE m.moved
                UNION ALL
                SELECT ROW(n.source, COALESCE(n.parser_version, ''), n.error_class, COALESCE(n.error_fingerprint, ''),
                           n.disposition, COALESCE(n.owner, ''), CASE WHEN m.moved THEN 1 ELSE 0 END,
                           CASE WHEN m.moved THEN n.attempts ELSE n.attempts - o.attempts END,
                           n.first_seen_at, n.last_seen_at)::quarantine_summary_delta
                WHERE m.moved OR n.attempts <> o.attempts OR n.last_seen_at <> o.last_seen_at
                   OR n.first_seen_at <> o.first_seen_at) y));
    RETURN NULL;
END $$;

CREATE FUNCTION quarantine_summary_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM summary_lock_documents(ARRAY(SELECT o.source FROM old_rows o),
        ARRAY(SELECT o.source || '/' || o.doc_id FROM old_rows o));
    UPDATE source_summary s SET
        open_indexed = s.open_indexed - c.open_n, unindexable_indexed = s.unindexable_indexed - c.unindexable_n
    FROM (SELECT o.source, count(*) FILTER (WHERE o.disposition = 'open') AS open_n,
                 count(*) FILTER (WHERE o.disposition = 'unindexable') AS unindexable_n
          FROM old_rows o JOIN documents d ON d.source = o.source AND d.doc_id = o.doc_id AND d.state = 'searchable'
          WHERE o.disposition IN ('open', 'unindexable') GROUP BY o.source) c
    WHERE s.source = c.source;
    PERFORM quarantine_summary_apply(ARRAY(
        SELECT ROW(o.source, COALESCE(o.parser_version, ''), o.error_class, COALESCE(o.error_fingerprint, ''),
                   o.disposition, COALESCE(o.owner, ''), -1, -o.attempts, o.first_seen_at, o.last_seen_at)
                   ::quarantine_summary_delta
        FROM old_rows o));
    RETURN NULL;
END $$;

CREATE FUNCTION quarantine_summary_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM quarantine_summary;
    UPDATE source_summary SET open_indexed = 0, unindexable_indexed = 0;
    DELETE FROM source_summary WHERE indexed = 0;
    RETURN NULL;
END $$;

CREATE TRIGGER quarantine_summary_insert AFTER INSERT ON quarantine REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_insert();
CREATE TRIGGER quarantine_summary_update AFTER UPDATE ON quarantine
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_update();
CREATE TRIGGER quarantine_summary_delete AFTER DELETE ON quarantine REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_delete();
CREATE TRIGGER quarantine_summary_truncate AFTER TRUNCATE ON quarantine
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_truncate();

-- documents: searchable counts per source, and the overlap with open / unindexable records. A change is
-- (source, doc_id, +1 became searchable / -1 stopped being searchable).
CREATE TYPE documents_summary_delta AS (source text, doc_id text, delta integer);

CREATE FUNCTION documents_summary_apply(changes documents_summary_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF changes IS NULL OR cardinality(changes) = 0 THEN
        RETURN;
    END IF;
    PERFORM summary_lock_documents(ARRAY(SELECT c.source FROM unnest(changes) c),
        ARRAY(SELECT c.source || '/' || c.doc_id FROM unnest(changes) c));
    PERFORM source_summary_lock(ARRAY(SELECT c.source FROM unnest(changes) c));
    UPDATE source_summary s SET indexed = s.indexed + c.indexed_n,
        open_indexed = s.open_indexed + c.open_n, unindexable_indexed = s.unindexable_indexed + c.unindexable_n
    FROM (SELECT c.source, sum(c.delta) AS indexed_n,
                 COALESCE(sum(c.delta) FILTER (WHERE q.disposition = 'open'), 0) AS open_n,
                 COALESCE(sum(c.delta) FILTER (WHERE q.disposition = 'unindexable'), 0) AS unindexable_n
          FROM unnest(changes) c LEFT JOIN quarantine q ON q.source = c.source AND q.doc_id = c.doc_id
          GROUP BY c.source) c
    WHERE s.source = c.source;
END $$;

CREATE FUNCTION documents_summary_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_summary_apply(ARRAY(SELECT ROW(n.source, n.doc_id, 1)::documents_summary_delta
        FROM new_rows n WHERE n.state = 'searchable'));
    RETURN NULL;
END $$;

CREATE FUNCTION documents_summary_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_summary_apply(ARRAY(SELECT ROW(n.source, n.doc_id,
            (n.state = 'searchable')::int - (o.state = 'searchable')::int)::documents_summary_delta
        FROM old_rows o JOIN new_rows n ON n.source = o.source AND n.doc_id = o.doc_id
        WHERE (n.state = 'searchable') <> (o.state = 'searchable')));
    RETURN NULL;
END $$;

CREATE FUNCTION documents_summary_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_summary_apply(ARRAY(SELECT ROW(o.source, o.doc_id, -1)::documents_summary_delta
        FROM old_rows o WHERE o.state = 'searchable'));
    RETURN NULL;
END $$;

CREATE FUNCTION documents_summary_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE source_summary SET indexed = 0, open_indexed = 0, unindexable_indexed = 0;
    DELETE FROM source_summary s
    WHERE NOT EXISTS (SELECT 1 FROM quarantine_summary q WHERE q.source = s.source);
    RETURN NULL;
END $$;

CREATE TRIGGER documents_summary_insert AFTER INSERT ON documents REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_insert();
CREATE TRIGGER documents_summary_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_update();
CREATE TRIGGER documents_summary_delete AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_delete();
CREATE TRIGGER documents_summary_truncate AFTER TRUNCATE ON documents
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_truncate();

-- what a database migrated from V5 already holds
INSERT INTO quarantine_summary (source, parser_version, error_class, error_fingerprint, disposition, owner,
    documents, attempts, first_seen_min, first_seen_max, last_seen_max)
SELECT source, COALESCE(parser_version, ''), error_class, COALESCE(error_fingerprint, ''), disposition,
       COALESCE(owner, ''), count(*), sum(attempts), min(first_seen_at), max(first_seen_at), max(last_seen_at)
FROM quarantine GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO source_summary (source, indexed, open_indexed, unindexable_indexed)
SELECT d.source, count(*), count(*) FILTER (WHERE q.disposition = 'open'),
       count(*) FILTER (WHERE q.disposition = 'unindexable')
FROM documents d LEFT JOIN quarantine q ON q.source = d.source AND q.doc_id = d.doc_id
WHERE d.state = 'searchable' GROUP BY d.source;
INSERT INTO source_summary (source) SELECT DISTINCT source FROM quarantine ON CONFLICT (source) DO NOTHING;
