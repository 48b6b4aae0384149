-- AttemptLeases.stage, written at once: set_config(..., true) lasts until the end of the (autocommit)
-- transaction of this one statement, whose commit is the one it relaxes; the CTE is referenced so that it runs
WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
UPDATE attempt_journal SET stage = :stage, stage_at = :stageAt
WHERE attempt_id = :attemptId AND EXISTS (SELECT 1 FROM relaxed)
