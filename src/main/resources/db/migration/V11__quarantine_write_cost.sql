-- The quarantine write's cost (issue 8, speed: one record per transaction). Measured with EXPLAIN (ANALYZE,
-- BUFFERS, WAL) of sql/quarantine-record.sql and track_functions (README, operator-bench paragraph).

-- 1. Two indexes no query reads. Every record statement wrote one entry into each (an insert, and an update
--    that cannot be HOT because it changes indexed columns). Checked against every query on quarantine in
--    operator/, quarantine/, metrics/ and web/:
--    * quarantine_cohort (parser_version, error_class, error_fingerprint): every cohort selection (drain,
--      dispose, records of a cohort) names error_fingerprint and reads quarantine_by_fingerprint
--      (error_fingerprint, parser_version); cohorts reads quarantine_summary; QuarantineQueries.cohorts
--      aggregates every open record and is a full scan either way.
--    * quarantine_open_by_source (source, disposition): the queries per source read source_summary or
--      quarantine_summary; a scan by source can use quarantine_document (source, doc_id) or quarantine_group
--      (source, ...), both led by source.
DROP INDEX quarantine_cohort;
DROP INDEX quarantine_open_by_source;

-- 2. The insert trigger's single-row path. The record statement inserts at most one row; the general path
--    (arrays, unnest, GROUP BY in quarantine_summary_apply, lock loops in summary_lock_documents) ran for it
--    each time. One new row now takes the same locks in the same order (its source shared, its document
--    exclusive, as summary_lock_documents takes them for up to 64 documents), counts it in source_summary when
--    its document is searchable, and adds it to its group with one upsert. Several rows (seed-demo, bulk
--    inserts) take the general path of V6 unchanged.
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
