UPDATE quarantine
   SET replay_count = replay_count + 1, last_replayed_at = :replayedAt, last_drain_run_id = :runId
 WHERE dlq_id = :dlqId
