-- How each source's total was obtained (issue 20, coverage for producer-fed sources): 'listed' (a lister walked
-- the source's configured roots: sources count, or the schedule of run), 'stated' (a producer or an operator
-- said it: sources set-total; seed-demo's totals too) or 'ingest' (the file count of an ingest <folder>).
-- counted_at says when, counted_by who (the lister's version, e.g. folder-1, or who stated it). Rows written
-- before this migration were written by ingest, or by seed-demo (counted_by 'seed-demo').
ALTER TABLE source_totals ADD COLUMN obtained_by text NOT NULL DEFAULT 'ingest'
    CHECK (obtained_by IN ('listed', 'stated', 'ingest'));
UPDATE source_totals SET obtained_by = 'stated' WHERE counted_by = 'seed-demo';
