-- quarantine_summary_apply (V6) lost a group's delta under concurrent writers, and could deadlock them:
--  * its UPDATE did not see a group another writer had not committed yet, and by its next statement that writer
--    had committed, so the INSERT's NOT EXISTS saw the group and skipped it too: the delta was in neither. Seen as a
--    group whose documents count missed a record that joined it; when that record left again, its attempts took
--    the group below zero (quarantine_summary_attempts_check, SQLSTATE 23514);
--  * it locked the groups' rows in key order, but only those its first statement saw: a group created after that
--    was locked later, out of order (SQLSTATE 40P01 between two writers moving records between the same groups).
-- SummaryConsistencyTest's concurrent tests hit both. Now every write of a group first takes the group's
-- transaction-scoped advisory lock, all of a statement's groups in key order, whether or not the group's row
-- exists yet; each statement after that reads the group as its last writer committed it, and no other writer
-- changes it before this transaction ends. The INSERT also takes every group of a joining record that the
-- UPDATE did not change (its RETURNING says which), so a delta lands in exactly one of the two.

-- The advisory lock key of a group (the key's six columns as quarantine_summary holds them).
CREATE FUNCTION quarantine_summary_group_lock_key(source text, parser_version text, error_class text,
    error_fingerprint text, disposition text, owner text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended('group:' || source || chr(31) || parser_version || chr(31) || error_class || chr(31)
        || error_fingerprint || chr(31) || disposition || chr(31) || owner, 0)
$$;

-- Takes the advisory lock of every group the deltas change, in key order (so two writers cannot deadlock here).
CREATE FUNCTION quarantine_summary_lock_groups(deltas quarantine_summary_delta[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
BEGIN
    FOR k IN SELECT DISTINCT quarantine_summary_group_lock_key(d.source, d.parser_version, d.error_class,
                 d.error_fingerprint, d.disposition, d.owner) FROM unnest(deltas) d ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
END $$;

CREATE OR REPLACE FUNCTION quarantine_summary_apply(deltas quarantine_summary_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    updated quarantine_summary_delta[];   -- the groups the UPDATE changed (their keys; the other fields null)
BEGIN
    IF deltas IS NULL OR cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    PERFORM quarantine_summary_lock_groups(deltas);
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
    WITH g AS (
        SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
               sum(d.documents) AS documents, sum(d.attempts) AS attempts,
               min(d.first_seen_at) FILTER (WHERE d.documents >= 0) AS first_min,
               max(d.first_seen_at) FILTER (WHERE d.documents >= 0) AS first_max,
               max(d.last_seen_at) FILTER (WHERE d.documents >= 0) AS last_max,
               min(d.first_seen_at) FILTER (WHERE d.documents < 0) AS gone_first_min,
               max(d.first_seen_at) FILTER (WHERE d.documents < 0) AS gone_first_max,
               max(d.last_seen_at) FILTER (WHERE d.documents < 0) AS gone_last_max
        FROM unnest(deltas) d GROUP BY 1, 2, 3, 4, 5, 6
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
        WHERE (s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner)
            = (g.source, g.parser_version, g.error_class, g.error_fingerprint, g.disposition, g.owner)
        RETURNING ROW(s.source, s.parser_version, s.error_class, s.error_fingerprint, s.disposition, s.owner,
            NULL, NULL, NULL, NULL)::quarantine_summary_delta AS k
    )
    SELECT array_agg(k) INTO updated FROM changed;

    -- the joined groups the UPDATE did not change (no row yet; ON CONFLICT is for a writer that did not lock)
    INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition, owner,
        documents, attempts, first_seen_min, first_seen_max, last_seen_max)
    SELECT d.source, d.parser_version, d.error_class, d.error_fingerprint, d.disposition, d.owner,
           sum(d.documents), sum(d.attempts), min(d.first_seen_at), max(d.first_seen_at), max(d.last_seen_at)
    FROM unnest(deltas) d
    WHERE d.documents > 0 AND NOT EXISTS (SELECT 1 FROM unnest(updated) u
        WHERE (u.source, u.parser_version, u.error_class, u.error_fingerprint, u.disposition, u.owner)
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

-- V11's insert trigger, its one-row path taking the new record's group lock. Every path takes its locks in one
-- order: the documents' advisory locks, the source's source_summary row, then the groups' advisory locks (an
-- index write that closes a record holds the source_summary row from its documents statement when its close
-- reaches the groups). The general path calls quarantine_summary_apply, which locks.
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
            r.error_class, COALESCE(r.error_fingerprint, ''), r.disposition, COALESCE(r.owner, '')));
        INSERT INTO quarantine_summary AS s (source, parser_version, error_class, error_fingerprint, disposition,
            owner, documents, attempts, first_seen_min, first_seen_max, last_seen_max)
        VALUES (r.source, COALESCE(r.parser_version, ''), r.error_class, COALESCE(r.error_fingerprint, ''),
            r.disposition, COALESCE(r.owner, ''), 1, r.attempts, r.first_seen_at, r.first_seen_at, r.last_seen_at)
        ON CONFLICT (source, parser_version, error_class, error_fingerprint, disposition, owner) DO UPDATE SET
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
                   n.disposition, COALESCE(n.owner, ''), 1, n.attempts, n.first_seen_at, n.last_seen_at)
                   ::quarantine_summary_delta
        FROM new_rows n));
    RETURN NULL;
END $$;

-- A database written before this may hold groups the race left wrong: rebuild them from the records (as V6 did).
DELETE FROM quarantine_summary;
INSERT INTO quarantine_summary (source, parser_version, error_class, error_fingerprint, disposition, owner,
    documents, attempts, first_seen_min, first_seen_max, last_seen_max)
SELECT source, COALESCE(parser_version, ''), error_class, COALESCE(error_fingerprint, ''), disposition,
       COALESCE(owner, ''), count(*), sum(attempts), min(first_seen_at), max(first_seen_at), max(last_seen_at)
FROM quarantine GROUP BY 1, 2, 3, 4, 5, 6;
