-- The summary triggers: the one copy of every function that keeps quarantine_summary and source_summary (V6) equal
-- to an aggregate over the committed records, and of the triggers that call them. Flyway applies this file after
-- the versioned migrations, and again whenever it changes: a change to a summary function is made HERE, never in a
-- new versioned migration (V6, V11 and V17 each restated some of them; their text stays as applied, Flyway checksums
-- them, and this file replaces what they created). Tables, types and indexes stay in versioned migrations.
--
-- Why summaries at all, and not plain GROUP BY queries over quarantine and documents (issue 25, measured by
-- bench/operator-bench against 20 ms at the seed scale and 200 ms at ten times it): a plain question reads every
-- record it aggregates (stats 61,400 at the seed scale, cohorts 55,250) and coverage every searchable document
-- (1.3 million), whatever the index; these read one row per group and stripe. docs/design.md, section 5, has the
-- figures both ways and the write cost of the triggers.
--
-- How they stay exact (V6, V17): statement-level triggers run in the same transaction as the statement that
-- changes quarantine or documents. Every path takes its locks in one order: the documents' advisory locks, the
-- source's source_summary row, then the stripes' advisory locks (an index write that closes a record holds the
-- source_summary row from its documents statement when its close reaches the stripes). A group is kept as up to 16
-- stripes (quarantine_summary_stripe), so writers of different documents of one cohort (a poison storm) seldom wait
-- for each other; the questions read the sum over stripes. SummaryConsistencyTest and SummaryChecks prove it.

-- The stripe of a document's record: 0..15, from its (source, doc_id). hashtextextended is the hash PostgreSQL's hash
-- partitioning uses for text, which pg_upgrade has to keep, so a record's stripe stays the same across upgrades.
CREATE OR REPLACE FUNCTION quarantine_summary_stripe(source text, doc_id text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (hashtextextended(source || '/' || doc_id, 0) & 15)::smallint
$$;

-- The advisory lock key of one stripe of a group.
CREATE OR REPLACE FUNCTION quarantine_summary_group_lock_key(source text, parser_version text, error_class text,
    error_fingerprint text, disposition text, owner text, stripe smallint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended('group:' || source || chr(31) || parser_version || chr(31) || error_class || chr(31)
        || error_fingerprint || chr(31) || disposition || chr(31) || owner || chr(31) || stripe, 0)
$$;

-- Takes the advisory lock of every stripe the deltas change, in key order (so two writers cannot deadlock here).
CREATE OR REPLACE FUNCTION quarantine_summary_lock_groups(deltas quarantine_summary_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
BEGIN
    FOR k IN SELECT DISTINCT quarantine_summary_group_lock_key(d.source, d.parser_version, d.error_class,
                 d.error_fingerprint, d.disposition, d.owner, d.stripe) FROM unnest(deltas) d ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
END $$;

-- Coverage's overlap: a record counts in coverage's denominator only when its document is not searchable. Both
-- tables' triggers lock the documents they change (transaction-scoped advisory locks) BEFORE they read the other
-- table, so a record and its document written concurrently are counted once, whichever commits first. A statement
-- changing few documents takes its sources' locks shared and each document's exclusively (writers of one source
-- do not queue on each other); one changing many (dispose, seed-demo) takes its sources exclusively instead.
-- sources: the statement's sources; documents: 'source/doc_id' of each document it changes.
CREATE OR REPLACE FUNCTION summary_lock_documents(sources text[], documents text[]) RETURNS void LANGUAGE plpgsql AS $$
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
CREATE OR REPLACE FUNCTION source_summary_lock(sources text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO source_summary AS s (source)
    SELECT DISTINCT x FROM unnest(sources) x ORDER BY 1
    ON CONFLICT (source) DO UPDATE SET indexed = s.indexed;
END $$;

-- Applies a statement's changes to the groups' stripes: documents +1 (a record joins), -1 (leaves) or 0 (stays, its
-- attempts or last_seen_at changed). Locks every stripe first (in key order), then updates the stripes that exist,
-- inserts those the UPDATE did not change, deletes emptied ones and recomputes the extremes a leaving record held
-- (index quarantine_group).
CREATE OR REPLACE FUNCTION quarantine_summary_apply(deltas quarantine_summary_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    updated quarantine_summary_delta[];   -- the stripes the UPDATE changed (their keys; the other fields null)
BEGIN
    IF deltas IS NULL OR cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    PERFORM quarantine_summary_lock_groups(deltas);
    IF NOT EXISTS (SELECT 1 FROM unnest(deltas) d WHERE d.documents < 0) THEN
        -- no record leaves a group (a new record, a repeat failure in the same group): one upsert, in key order
        INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition,
            owner, stripe, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
        SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner, d.stripe,
               sum(d.documents), sum(d.attempts), min(d.first_seen_at), max(d.first_seen_at), max(d.last_seen_at)
        FROM unnest(deltas) d
        GROUP BY 1, 2, 3, 4, 5, 6, 7
        ORDER BY 1, 2, 3, 4, 5, 6, 7
        ON CONFLICT (source, parser_version, error_class, error_fingerprint, disposition, owner, stripe)
        DO UPDATE SET
            documents = s.documents + EXCLUDED.documents,
            attempts = s.attempts + EXCLUDED.attempts,
            first_seen_min = LEAST(s.first_seen_min, EXCLUDED.first_seen_min),
            first_seen_max = GREATEST(s.first_seen_max, EXCLUDED.first_seen_max),
            last_seen_max = GREATEST(s.last_seen_max, EXCLUDED.last_seen_max);
        RETURN;
    END IF;

    WITH g AS (
        SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner, d.stripe,
               sum(d.documents) AS documents, sum(d.attempts) AS attempts,
               min(d.first_seen_at) FILTER (WHERE d.documents >= 0) AS first_min,
               max(d.first_seen_at) FILTER (WHERE d.documents >= 0) AS first_max,
               max(d.last_seen_at) FILTER (WHERE d.documents >= 0) AS last_max,
               min(d.first_seen_at) FILTER (WHERE d.documents < 0) AS gone_first_min,
               max(d.first_seen_at) FILTER (WHERE d.documents < 0) AS gone_first_max,
               max(d.last_seen_at) FILTER (WHERE d.documents < 0) AS gone_last_max
        FROM unnest(deltas) d GROUP BY 1, 2, 3, 4, 5, 6, 7
    ), changed AS (
        UPDATE quarantine_summary s SET
            documents = s.documents + g.documents,
            attempts = s.attempts + g.attempts,
            first_seen_min = LEAST(s.first_seen_min, g.first_min),
            first_seen_max = GREATEST(s.first_seen_max, g.first_max),
            last_seen_max = GREATEST(s.last_seen_max, g.last_max),
            stale = COALESCE(g.gone_first_min <= s.first_seen_min OR g.gone_first_max >= s.first_seen_max
                             OR g.gone_last_max >= s.last_seen_max, false)
        FROM g
        WHERE (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner, s.stripe)
            = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner, g.stripe)
        RETURNING ROW(s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner,
            NULL, NULL, NULL, NULL, s.stripe)::quarantine_summary_delta AS k
    )
    SELECT array_agg(k) INTO updated FROM changed;

    -- the joined stripes the UPDATE did not change (no row yet; ON CONFLICT is for a writer that did not lock)
    INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition, owner,
        stripe, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
    SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner, d.stripe,
           sum(d.documents), sum(d.attempts), min(d.first_seen_at), max(d.first_seen_at), max(d.last_seen_at)
    FROM unnest(deltas) d
    WHERE d.documents > 0 AND NOT EXISTS (SELECT 1 FROM unnest(updated) u
        WHERE (u.source, u.parser_version, u.error_class, u.error_fingerprint, u.disposition, u.owner, u.stripe)
            = (d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner, d.stripe))
    GROUP BY 1, 2, 3, 4, 5, 6, 7
    ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (source, parser_version, error_class, error_fingerprint, disposition, owner, stripe) DO UPDATE SET
        documents = s.documents + EXCLUDED.documents,
        attempts = s.attempts + EXCLUDED.attempts,
        first_seen_min = LEAST(s.first_seen_min, EXCLUDED.first_seen_min),
        first_seen_max = GREATEST(s.first_seen_max, EXCLUDED.first_seen_max),
        last_seen_max = GREATEST(s.last_seen_max, EXCLUDED.last_seen_max);

    DELETE FROM quarantine_summary s USING unnest(deltas) d
    WHERE s.documents = 0
      AND (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner, s.stripe)
        = (d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner, d.stripe);

    -- a record holding a stripe's extreme left it: read the stripe's extremes again (the group's records in index
    -- quarantine_group, those of this stripe)
    UPDATE quarantine_summary s SET (first_seen_min, first_seen_max, last_seen_max, stale) = (
        SELECT min(q.first_seen_at), max(q.first_seen_at), max(q.last_seen_at), false FROM quarantine q
        WHERE q.source = s.source AND COALESCE(q.parser_version, '') = s.parser_version
          AND q.error_class = s.error_class AND COALESCE(q.error_fingerprint, '') = s.error_fingerprint
          AND q.disposition = s.disposition AND COALESCE(q.owner, '') = s.owner
          AND quarantine_summary_stripe(q.source, q.doc_id) = s.stripe)
    FROM (SELECT DISTINCT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
                 d.stripe
          FROM unnest(deltas) d WHERE d.documents < 0) k
    WHERE s.stale
      AND (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner, s.stripe)
        = (k.source, k.parser_version, k.error_class, k.error_fingerprint, k.disposition, k.owner, k.stripe);
END $$;

-- quarantine's statement triggers. One inserted row (the pipeline's record statement) takes the single-row path:
-- the same locks in the same order, one upsert of its stripe; several rows take the general path.
CREATE OR REPLACE FUNCTION quarantine_summary_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
    n integer;
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
        PERFORM pg_advisory_xact_lock(quarantine_summary_group_lock_key(r.source, COALESCE(r.parser_version, ''),
            r.error_class, COALESCE(r.error_fingerprint, ''), r.disposition, COALESCE(r.owner, ''),
            quarantine_summary_stripe(r.source, r.doc_id)));
        INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition,
            owner, stripe, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
        VALUES (r.source, COALESCE(r.parser_version, ''), r.error_class, COALESCE(r.error_fingerprint, ''),
            r.disposition, COALESCE(r.owner, ''), quarantine_summary_stripe(r.source, r.doc_id), 1, r.attempts,
            r.first_seen_at, r.first_seen_at, r.last_seen_at)
        ON CONFLICT (source, parser_version, error_class, error_fingerprint, disposition, owner, stripe)
        DO UPDATE SET
            documents = s.documents + 1,
            attempts = s.attempts + EXCLUDED.attempts,
            first_seen_min = LEAST(s.first_seen_min, EXCLUDED.first_seen_min),
            first_seen_max = GREATEST(s.first_seen_max, EXCLUDED.first_seen_max),
            last_seen_max = GREATEST(s.last_seen_max, EXCLUDED.last_seen_max);
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
                   n.disposition, COALESCE(n.owner, ''), 1, n.attempts, n.first_seen_at, n.last_seen_at,
                   quarantine_summary_stripe(n.source, n.doc_id))
                   ::quarantine_summary_delta
        FROM new_rows n));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION quarantine_summary_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
                           o.disposition, COALESCE(o.owner, ''), -1, -o.attempts, o.first_seen_at, o.last_seen_at,
                   quarantine_summary_stripe(o.source, o.doc_id))
                           ::quarantine_summary_delta AS x
                WHERE m.moved
                UNION ALL
                SELECT ROW(n.source, COALESCE(n.parser_version, ''), n.error_class, COALESCE(n.error_fingerprint, ''),
                           n.disposition, COALESCE(n.owner, ''), CASE WHEN m.moved THEN 1 ELSE 0 END,
                           CASE WHEN m.moved THEN n.attempts ELSE n.attempts - o.attempts END,
                           n.first_seen_at, n.last_seen_at,
                   quarantine_summary_stripe(n.source, n.doc_id))::quarantine_summary_delta
                WHERE m.moved OR n.attempts <> o.attempts OR n.last_seen_at <> o.last_seen_at
                   OR n.first_seen_at <> o.first_seen_at) y));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION quarantine_summary_delete() RETURNS trigger LANGUAGE plpgsql AS $$
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
                   o.disposition, COALESCE(o.owner, ''), -1, -o.attempts, o.first_seen_at, o.last_seen_at,
                   quarantine_summary_stripe(o.source, o.doc_id))
                   ::quarantine_summary_delta
        FROM old_rows o));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION quarantine_summary_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM quarantine_summary;
    UPDATE source_summary SET open_indexed = 0, unindexable_indexed = 0;
    DELETE FROM source_summary WHERE indexed = 0;
    RETURN NULL;
END $$;

-- documents: searchable counts per source, and the overlap with open / unindexable records. A change is
-- (source, doc_id, +1 became searchable / -1 stopped being searchable).
CREATE OR REPLACE FUNCTION documents_summary_apply(changes documents_summary_delta[]) RETURNS void LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION documents_summary_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_summary_apply(ARRAY(SELECT ROW(n.source, n.doc_id, 1)::documents_summary_delta
        FROM new_rows n WHERE n.state = 'searchable'));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION documents_summary_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_summary_apply(ARRAY(SELECT ROW(n.source, n.doc_id,
            (n.state = 'searchable')::int - (o.state = 'searchable')::int)::documents_summary_delta
        FROM old_rows o JOIN new_rows n ON n.source = o.source AND n.doc_id = o.doc_id
        WHERE (n.state = 'searchable') <> (o.state = 'searchable')));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION documents_summary_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_summary_apply(ARRAY(SELECT ROW(o.source, o.doc_id, -1)::documents_summary_delta
        FROM old_rows o WHERE o.state = 'searchable'));
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION documents_summary_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE source_summary SET indexed = 0, open_indexed = 0, unindexable_indexed = 0;
    DELETE FROM source_summary s
    WHERE NOT EXISTS (SELECT 1 FROM quarantine_summary q WHERE q.source = s.source);
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER quarantine_summary_insert AFTER INSERT ON quarantine REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_insert();
CREATE OR REPLACE TRIGGER quarantine_summary_update AFTER UPDATE ON quarantine
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_update();
CREATE OR REPLACE TRIGGER quarantine_summary_delete AFTER DELETE ON quarantine REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_delete();
CREATE OR REPLACE TRIGGER quarantine_summary_truncate AFTER TRUNCATE ON quarantine
    FOR EACH STATEMENT EXECUTE FUNCTION quarantine_summary_truncate();
CREATE OR REPLACE TRIGGER documents_summary_insert AFTER INSERT ON documents REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_insert();
CREATE OR REPLACE TRIGGER documents_summary_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_update();
CREATE OR REPLACE TRIGGER documents_summary_delete AFTER DELETE ON documents REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_delete();
CREATE OR REPLACE TRIGGER documents_summary_truncate AFTER TRUNCATE ON documents
    FOR EACH STATEMENT EXECUTE FUNCTION documents_summary_truncate();
