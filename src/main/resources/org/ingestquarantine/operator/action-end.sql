UPDATE operator_actions
   SET finished_at = :finishedAt, status = :status, selected = :selected, outcome_counts = CAST(:outcomes AS jsonb),
       verdict_counts = CAST(:verdicts AS jsonb), error = :error, drain_run_id = :drainRunId
 WHERE action_id = :actionId
