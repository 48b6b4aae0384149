UPDATE drain_runs
   SET finished_at = :finishedAt, status = :status, outcome_counts = CAST(:outcomes AS jsonb),
       source_requests = :requests
 WHERE run_id = :runId
