-- Erasing a document that was indexed but never failed leaves a tombstone all the same (Dispositions.erase), so
-- that coverage keeps the document in its denominator (DESIGN.md section 6). Such a tombstone records no failure:
-- attempts 0 and no quarantine_attempt row. Only an erased record may have none; a later failure of the document
-- re-opens it as its attempt 1 (sql/quarantine-record.sql adds 1 to attempts).
ALTER TABLE quarantine DROP CONSTRAINT quarantine_attempts_check;
ALTER TABLE quarantine ADD CONSTRAINT quarantine_attempts_check
    CHECK (attempts >= 1 OR (attempts = 0 AND disposition = 'erased'));
