INSERT INTO quarantine (dlq_id, source, doc_id, source_version, parser_version, chunker_version,
    embedder_version, connector_version, content_type, stage, error_class, error_type, error_message,
    error_fingerprint, fingerprint_version, attempts, first_seen_at, last_seen_at, disposition, reason_code,
    closed_at, owner)
SELECT '01SEED' || lpad(i::text, 20, '0'), (?::text[])[1 + s],
       'doc/' || lpad(i::text, 8, '0') || '.pdf', 'etag-' || i,
       CASE WHEN c = 0 THEN ? ELSE (?::text[])[1 + i %% 3] END, 'window-1', 'all-minilm-l6-v2',
       'folder-1', 'application/pdf', 'parse',
       (?::text[])[1 + c %% 6], 'org.example.SeedFailure' || c, 'seeded failure of cohort ' || c,
       'seedfp' || lpad(c::text, 10, '0'), %6$d, a,
       now() - make_interval(days => i %% 400, hours => a, secs => i %% 86400),
       now() - make_interval(days => i %% 400, secs => i %% 86400),
       CASE WHEN (u / 30) %% 10 = 0 THEN 'repaired_parser_fixed' ELSE 'open' END, 'seeded',
       CASE WHEN (u / 30) %% 10 = 0 THEN now() END, (?::text[])[1 + s]
FROM (SELECT i, u, %1$s AS c, %5$s AS s, CASE WHEN v < %2$d THEN %3$d ELSE %4$d END AS a
      FROM seed_docs WHERE i >= ? AND i < ?) d
