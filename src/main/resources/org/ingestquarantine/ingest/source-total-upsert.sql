-- ingest.SourceTotals.record: a source's known total, keeping the base URI recorded before when none is given.
-- Parameters: source, documents, counted_at, counted_by, base_uri, obtained_by.
INSERT INTO source_totals (source, documents, counted_at, counted_by, base_uri, obtained_by)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (source) DO UPDATE SET documents = EXCLUDED.documents, counted_at = EXCLUDED.counted_at,
    counted_by = EXCLUDED.counted_by, obtained_by = EXCLUDED.obtained_by,
    base_uri = COALESCE(EXCLUDED.base_uri, source_totals.base_uri)
