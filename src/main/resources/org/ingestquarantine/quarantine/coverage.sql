-- quarantine.QuarantineQueries.coverage: coverage per source, the one query behind every coverage figure.
-- Parameter: the known sources (text[]). The skipped documents per source (metrics.SkippedCoverage) are filled in
-- for the one placeholder at load.
WITH q AS (
    SELECT source, sum(documents) FILTER (WHERE disposition = 'open') AS open_n,
           sum(documents) FILTER (WHERE disposition = 'unindexable') AS unindexable_n,
           sum(documents) FILTER (WHERE disposition = 'erased') AS erased_n,
           min(first_seen_min) FILTER (WHERE disposition = 'open') AS oldest_open
    FROM quarantine_summary GROUP BY source
), erased_indexed AS (
    -- erased records whose document was indexed again after the erasure (index quarantine_erased)
    SELECT e.source, count(*) AS n FROM quarantine e
    WHERE e.disposition = 'erased' AND EXISTS (SELECT 1 FROM documents d
        WHERE d.source = e.source AND d.doc_id = e.doc_id AND d.state = 'searchable')
    GROUP BY e.source
), skipped AS (
    %s
), sources AS (
    SELECT unnest(?::text[]) AS source
    UNION SELECT source FROM source_totals
    UNION SELECT source FROM source_summary WHERE indexed > 0
    UNION SELECT source FROM q
    UNION SELECT source FROM skipped
)
SELECT s.source, t.documents AS total, t.obtained_by, t.counted_at, COALESCE(i.indexed, 0) AS indexed,
       COALESCE(q.open_n, 0) - COALESCE(i.open_indexed, 0) AS open_n,
       COALESCE(q.unindexable_n, 0) - COALESCE(i.unindexable_indexed, 0) AS unindexable_n,
       COALESCE(q.erased_n, 0) - COALESCE(ei.n, 0) AS erased_n, q.oldest_open,
       COALESCE(k.skipped_n, 0) AS skipped_n
FROM sources s LEFT JOIN source_totals t ON t.source = s.source
    LEFT JOIN source_summary i ON i.source = s.source LEFT JOIN q ON q.source = s.source
    LEFT JOIN erased_indexed ei ON ei.source = s.source LEFT JOIN skipped k ON k.source = s.source
ORDER BY s.source
