-- Coverage keeps an erased document in its denominator, as it keeps an unindexable one (DESIGN.md section 6:
-- coverage must not improve by reclassifying): indexed / (indexed + open + unindexable + erased), each record
-- counted only while its document is not searchable. Erasing deletes the document's index rows, so an erased
-- record's document is searchable only if it was indexed again afterwards; the coverage queries find those few
-- through this partial index (erasures are rare: it holds only erased records, so the record statement's
-- writes of other records never touch it).
CREATE INDEX quarantine_erased ON quarantine (source, doc_id) WHERE disposition = 'erased';
