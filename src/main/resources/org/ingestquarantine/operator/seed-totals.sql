INSERT INTO source_totals (source, documents, counted_at, counted_by, obtained_by)
SELECT q.source, count(*) FILTER (WHERE q.disposition = 'open')
           + (SELECT count(*) FROM documents d WHERE d.source = q.source), now(), 'seed-demo', 'stated'
FROM quarantine q GROUP BY q.source
ON CONFLICT (source) DO UPDATE SET documents = EXCLUDED.documents, counted_at = now(),
    obtained_by = EXCLUDED.obtained_by
