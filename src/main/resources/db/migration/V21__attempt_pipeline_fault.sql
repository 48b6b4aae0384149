-- An attempt closed as pipeline_fault: a fault of our own route (an expression that cannot evaluate, a missing bean)
-- released its message. It is not a death and not a delivery the document failed: the budget of the document's
-- error class leaves these attempts out of its delivery count (delivery/FailureDisposition).
ALTER TABLE attempt_journal DROP CONSTRAINT attempt_journal_outcome_check;
ALTER TABLE attempt_journal ADD CONSTRAINT attempt_journal_outcome_check
    CHECK (outcome IN ('indexed', 'skipped', 'released', 'quarantined', 'pipeline_fault'));
