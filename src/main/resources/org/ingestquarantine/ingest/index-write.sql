-- The index write of ingest.DocumentIndex (IndexStatement): ONE statement that locks the document's open
-- quarantine record (rec), writes the documents row unless stale, unchanged, guarded by an open record or raced
-- (doc), replaces the chunks (gone, written), closes the delivery's attempt (closed) and returns the verdict.
-- Positional parameters, bound in order by IndexStatement.bind; why each part is there: IndexStatement's Javadoc.
WITH snap AS (
    SELECT xmin::text AS x, source_updated_at, source_version, state, parser_version, chunker_version,
        embedder_version
    FROM documents WHERE source = ? AND doc_id = ?
), rec AS (
    SELECT CAST(? AS boolean) AS guard FROM quarantine
    WHERE source = ? AND doc_id = ? AND disposition = 'open'
    FOR UPDATE
), doc AS (
    INSERT INTO documents AS d (source, doc_id, source_version, source_updated_at, content_sha256,
        parser_version, chunker_version, embedder_version, page_count, chunk_count, pages_lost_count,
        pages_lost, state, indexed_at)
    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::integer[], 'searchable', now()
    WHERE NOT EXISTS (SELECT 1 FROM rec WHERE guard)
    ON CONFLICT (source, doc_id) DO UPDATE SET source_version = EXCLUDED.source_version,
        source_updated_at = EXCLUDED.source_updated_at, content_sha256 = EXCLUDED.content_sha256,
        parser_version = EXCLUDED.parser_version, chunker_version = EXCLUDED.chunker_version,
        embedder_version = EXCLUDED.embedder_version, page_count = EXCLUDED.page_count,
        chunk_count = EXCLUDED.chunk_count, pages_lost_count = EXCLUDED.pages_lost_count,
        pages_lost = EXCLUDED.pages_lost, state = 'searchable', indexed_at = now()
    WHERE d.xmin::text = coalesce((SELECT x FROM snap), '')
      AND NOT (d.source_updated_at IS NOT NULL AND EXCLUDED.source_updated_at IS NOT NULL
               AND d.source_updated_at > EXCLUDED.source_updated_at)
      AND NOT (d.source_version = EXCLUDED.source_version AND d.state = 'searchable'
               AND d.parser_version = EXCLUDED.parser_version
               AND d.chunker_version = EXCLUDED.chunker_version
               AND d.embedder_version = EXCLUDED.embedder_version)
    RETURNING 1
), verdict AS (
    SELECT CASE WHEN EXISTS (SELECT 1 FROM doc) THEN 'indexed'
                WHEN s.source_updated_at IS NOT NULL AND CAST(? AS timestamptz) IS NOT NULL
                     AND s.source_updated_at > CAST(? AS timestamptz) THEN 'stale'
                WHEN s.source_version = ? AND s.state = 'searchable' AND s.parser_version = ?
                     AND s.chunker_version = ? AND s.embedder_version = ? THEN 'unchanged'
                WHEN EXISTS (SELECT 1 FROM rec WHERE guard) THEN 'open_record'
                ELSE 'raced' END AS v
    FROM (SELECT 1) one LEFT JOIN snap s ON true
), incoming AS (
    SELECT c.seq, c.text, c.page_from, c.page_to, c.o
    FROM unnest(?::integer[], ?::text[], ?::integer[], ?::integer[])
         WITH ORDINALITY AS c(seq, text, page_from, page_to, o)
), gone AS (
    DELETE FROM chunks WHERE source = ? AND doc_id = ? AND EXISTS (SELECT 1 FROM doc)
        AND seq NOT IN (SELECT seq FROM incoming)
), written AS (
    INSERT INTO chunks AS k (source, doc_id, seq, text, embedding, page_from, page_to)
    SELECT ?, ?, i.seq, i.text, (?::real[])[(i.o - 1) * ? + 1 : i.o * ?], i.page_from, i.page_to
    FROM incoming i WHERE EXISTS (SELECT 1 FROM doc)
    ON CONFLICT (source, doc_id, seq) DO UPDATE SET text = EXCLUDED.text,
        embedding = EXCLUDED.embedding, page_from = EXCLUDED.page_from, page_to = EXCLUDED.page_to
), closed AS (
    UPDATE attempt_journal SET stage = 'index', stage_at = ?, closed_at = ?,
        outcome = CASE WHEN (SELECT v FROM verdict) = 'indexed' THEN 'indexed' ELSE 'skipped' END
    WHERE attempt_id = ? AND (SELECT v FROM verdict) NOT IN ('raced', 'open_record')
)
SELECT v FROM verdict
