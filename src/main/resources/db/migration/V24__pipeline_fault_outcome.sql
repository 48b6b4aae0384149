-- An attempt closed as pipeline_fault: a fault of our own route (an expression that cannot evaluate, a missing bean)
-- released its message. It is not a death and not a delivery the document failed: the budget of the document's
-- error class leaves these attempts out of its delivery count (delivery/FailureDisposition).
-- The list is the whole set of outcomes, those V21 adds (skipped_by_policy, abandoned) included, whichever
-- migrations ran before this one: the constraint is dropped and added again whole.
ALTER TABLE attempt_journal DROP CONSTRAINT attempt_journal_outcome_check;
ALTER TABLE attempt_journal ADD CONSTRAINT attempt_journal_outcome_check
    CHECK (outcome IN ('indexed', 'skipped', 'released', 'quarantined', 'skipped_by_policy', 'abandoned',
                       'pipeline_fault'));
