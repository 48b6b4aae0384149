-- metrics.StoreGauges: per source, indexed documents, open records, records whose document is not searchable,
-- the known total and the oldest open age (StoreGauges.sourcesSql fills in each %s: with or without source_totals).
WITH sources AS (
    SELECT source FROM documents UNION SELECT source FROM quarantine
    UNION SELECT source FROM skipped_documents %s
), indexed AS (
    SELECT source, count(*) AS n FROM documents WHERE state = 'searchable' GROUP BY source
), quarantined AS (
    SELECT q.source,
           count(*) FILTER (WHERE q.disposition = 'open') AS open_n,
           count(*) FILTER (WHERE q.disposition = 'open' AND NOT EXISTS (
               SELECT 1 FROM documents d WHERE d.source = q.source AND d.doc_id = q.doc_id
                   AND d.state = 'searchable')) AS missing_n,
           count(*) FILTER (WHERE q.disposition = 'unindexable' AND NOT EXISTS (
               SELECT 1 FROM documents d WHERE d.source = q.source AND d.doc_id = q.doc_id
                   AND d.state = 'searchable')) AS unindexable_n,
           count(*) FILTER (WHERE q.disposition = 'erased' AND NOT EXISTS (
               SELECT 1 FROM documents d WHERE d.source = q.source AND d.doc_id = q.doc_id
                   AND d.state = 'searchable')) AS erased_n,
           extract(epoch FROM now() - min(q.first_seen_at) FILTER (WHERE q.disposition = 'open'))
               AS oldest_age
    FROM quarantine q GROUP BY q.source
), skipped AS (
    %s
)
SELECT s.source, COALESCE(i.n, 0) AS indexed, COALESCE(q.open_n, 0) AS open, q.oldest_age,
       COALESCE(k.skipped_n, 0) AS skipped,
       COALESCE(q.missing_n, 0) + COALESCE(q.unindexable_n, 0) + COALESCE(q.erased_n, 0)
           AS not_searchable,
       %s AS total
FROM sources s LEFT JOIN indexed i ON i.source = s.source
    LEFT JOIN quarantined q ON q.source = s.source LEFT JOIN skipped k ON k.source = s.source %s
