SELECT run_id, started_by, started_at, finished_at, status, error_fingerprint, parser_version, error_class,
       cohort_documents, selected, rate_per_s, source_requests, outcome_counts::text AS outcomes
  FROM drain_runs
 ORDER BY started_at DESC, run_id DESC
 LIMIT ?
