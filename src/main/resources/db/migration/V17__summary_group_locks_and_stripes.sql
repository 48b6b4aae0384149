-- The summary triggers under concurrent writers (issue 8): correct, deadlock-free, and not one writer at a time.
--
-- Two bugs of V6's quarantine_summary_apply, both hit by SummaryConsistencyTest's concurrent tests:
--  * it lost a group's delta: its UPDATE did not see a group another writer had not committed yet, and by its next
--    statement that writer had committed, so the INSERT's NOT EXISTS saw the group and skipped it too. Seen as a
--    group whose documents count missed a record that joined it; when that record left again, its attempts took the
--    group below zero (quarantine_summary_attempts_check, SQLSTATE 23514);
--  * it locked the groups' rows in key order, but only those its first statement saw: a group created after that
--    was locked later, out of order (SQLSTATE 40P01 between two writers moving records between the same groups).
-- Now every write of a group first takes the group's transaction-scoped advisory lock, all of a statement's groups
-- in key order, whether or not the group's row exists yet; each statement after that reads the group as its last
-- writer committed it, and no other writer changes it before this transaction ends. The INSERT also takes every
-- group of a joining record that the UPDATE did not change (its RETURNING says which), so a delta lands in exactly
-- one of the two.
--
-- And the write's speed (one record per transaction): a poison-message storm writes every record into ONE cohort,
-- one group, and each record's transaction held that group until its commit had flushed the WAL, so the records
-- of a storm committed one after the other, one flush each, however many writers (operator-bench: 4 writers no
-- faster than 1). A group is now kept as up to 16 rows, its stripes: a record counts in the stripe
-- quarantine_summary_stripe(source, doc_id) picks, always the same one for a document, so each stripe is an exact
-- summary of its records (documents >= 0 holds per stripe), and writers of different documents of one cohort lock
-- different stripes in most cases (4 writers collide on about one record in 5). The locks above are per stripe.
-- The questions read the sum over stripes; SummaryChecks compares each stripe with its records.

-- The stripe of a document's record: 0..15, from its (source, doc_id). 16 stripes: enough that 4-8 writers of one
-- cohort seldom wait for each other, few enough that cohorts still reads a few thousand rows at the seed scale.
-- hashtextextended is the hash PostgreSQL's hash partitioning uses for text, which pg_upgrade has to keep, so a
-- record's stripe stays the same across upgrades (a different stripe on the way out would be refused by the checks).
CREATE FUNCTION quarantine_summary_stripe(source text, doc_id text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (hashtextextended(source || '/' || doc_id, 0) & 15)::smallint
$$;

ALTER TABLE quarantine_summary ADD COLUMN stripe smallint NOT NULL DEFAULT 0 CHECK (stripe BETWEEN 0 AND 15);
ALTER TABLE quarantine_summary DROP CONSTRAINT quarantine_summary_pkey;
ALTER TABLE quarantine_summary ADD PRIMARY KEY
    (source, parser_version, error_class, error_fingerprint, disposition, owner, stripe);

-- a change to one stripe of a group: the stripe is the record's
ALTER TYPE quarantine_summary_delta ADD ATTRIBUTE stripe smallint;

-- The advisory lock key of one stripe of a group.
CREATE FUNCTION quarantine_summary_group_lock_key(source text, parser_version text, error_class text,
    error_fingerprint text, disposition text, owner text, stripe smallint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended('group:' || source || chr(31) || parser_version || chr(31) || error_class || chr(31)
        || error_fingerprint || chr(31) || disposition || chr(31) || owner || chr(31) || stripe, 0)
$$;

-- Takes the advisory lock of every stripe the deltas change, in key order (so two writers cannot deadlock here).
CREATE FUNCTION quarantine_summary_lock_groups(deltas quarantine_summary_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
BEGIN
    FOR k IN SELECT DISTINCT quarantine_summary_group_lock_key(d.source, d.parser_version, d.error_class,
                 d.error_fingerprint, d.disposition, d.owner, d.stripe) FROM unnest(deltas) d ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
END $$;

-- V6's quarantine_summary_apply, per stripe, locking first, and with the INSERT told what the UPDATE changed.
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

-- The triggers of V6 and V11, their deltas and the one-row upsert naming the record's stripe. Every path takes its
-- locks in one order: the documents' advisory locks, the source's source_summary row, then the stripes' advisory
-- locks (an index write that closes a record holds the source_summary row from its documents statement when its
-- close reaches the stripes). The general paths call quarantine_summary_apply, which locks.
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

-- Rebuild from the records: every group as its stripes, and any group the race above had left wrong.
DELETE FROM quarantine_summary;
INSERT INTO quarantine_summary (source, parser_version, error_class, error_fingerprint, disposition, owner, stripe,
    documents, attempts, first_seen_min, first_seen_max, last_seen_max)
SELECT source, COALESCE(parser_version, ''), error_class, COALESCE(error_fingerprint, ''), disposition,
       COALESCE(owner, ''), quarantine_summary_stripe(source, doc_id), count(*), sum(attempts), min(first_seen_at),
       max(first_seen_at), max(last_seen_at)
FROM quarantine GROUP BY 1, 2, 3, 4, 5, 6, 7;
ALTER TABLE quarantine_summary ALTER COLUMN stripe DROP DEFAULT;
