-- Issue 23: a record's replay history, as the drain leaves it. Every time operator.Drain replays a record (asks its
-- source again, whatever the verdict: repaired, deleted at source or still failing) it adds 1 to replay_count,
-- sets last_replayed_at and names its run. A record the drain did not ask about (not_attempted:<reason>,
-- not_tried, already closed when its turn came) is left exactly as it was. Records replayed before this version
-- read 0 / null: their runs are in drain_run_items.
ALTER TABLE quarantine ADD COLUMN replay_count integer NOT NULL DEFAULT 0 CHECK (replay_count >= 0);
ALTER TABLE quarantine ADD COLUMN last_replayed_at timestamptz;
ALTER TABLE quarantine ADD COLUMN last_drain_run_id char(26) REFERENCES drain_runs (run_id);
