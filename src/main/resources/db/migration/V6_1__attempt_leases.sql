-- Attempts with an owner and a lease (issue 10): an open attempt names the consumer process that runs it
-- (host/pid/start ULID) and is kept alive by that process's heartbeat, which moves lease_until forward. An
-- open attempt is a death only once its lease has run out; one whose owner still beats is live, and a
-- second delivery of its message waits for it instead of counting it. Times are the database's own clock,
-- so consumers on several hosts agree on them. Rows written before this version have no lease: dead.

ALTER TABLE attempt_journal ADD COLUMN owner text;
ALTER TABLE attempt_journal ADD COLUMN lease_until timestamptz;
