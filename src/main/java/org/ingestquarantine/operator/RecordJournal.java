package org.ingestquarantine.operator;

import java.util.List;

/**
 * A record's attempt journal: every delivery of its (source, doc_id), oldest first.
 *
 * @param dlqId the record
 * @param source its source
 * @param docId its document
 * @param deliveries the journal's rows, by start
 */
public record RecordJournal(String dlqId, String source, String docId, List<JournalRow> deliveries) {
}
