-- The repair close of ingest.RepairClose: closes a document's open quarantine record as repaired, by the
-- strongest evidence held on both sides (RepairClose's Javadoc). Positional parameters: content sha256, source
-- version, parser version, source, doc_id, closed_at. Returns the record's dlq_id, disposition, reason code and
-- verdict_by; no row when no record was open. The reason code of "nothing changed" is
-- RepairClose.NO_CHANGE_SEEN, filled in at load.
WITH given AS (
    SELECT lower(CAST(? AS text)) AS sha256, CAST(? AS text) AS version, CAST(? AS text) AS parser
), r AS (
    SELECT q.dlq_id,
        CASE WHEN q.payload_sha256 IS NOT NULL AND g.sha256 IS NOT NULL THEN 'sha256'
             WHEN q.source_version IS NOT NULL AND g.version IS NOT NULL THEN 'version'
             ELSE 'none' END AS verdict_by,
        lower(trim(CAST(q.payload_sha256 AS text))) AS held_sha256, q.source_version AS held_version,
        q.parser_version IS DISTINCT FROM g.parser AS parser_changed, g.sha256, g.version
    FROM quarantine q, given g
    WHERE q.source = ? AND q.doc_id = ? AND q.disposition = 'open'
    FOR UPDATE OF q
), v AS (
    SELECT dlq_id, verdict_by, parser_changed,
        CASE verdict_by WHEN 'sha256' THEN held_sha256 <> sha256
                        WHEN 'version' THEN held_version <> version
                        ELSE false END AS content_changed
    FROM r
)
UPDATE quarantine q SET
    disposition = CASE WHEN v.content_changed THEN 'repaired_content_changed'
                       ELSE 'repaired_parser_fixed' END,
    reason_code = CASE WHEN v.content_changed OR v.parser_changed THEN q.reason_code
                       ELSE '%s' END,
    verdict_by = v.verdict_by,
    closed_at = ?
FROM v WHERE q.dlq_id = v.dlq_id
RETURNING q.dlq_id, q.disposition, q.reason_code, q.verdict_by
