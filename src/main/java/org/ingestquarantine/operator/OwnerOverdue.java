package org.ingestquarantine.operator;

import java.time.Instant;
import java.util.List;

/**
 * Overdue open records of one owner.
 *
 * @param owner the team named by the record (configuration {@code sources.<name>.owner}), or
 *     {@value OperatorService#UNOWNED} when its source names none
 * @param documents overdue records
 * @param oldestFirstSeen earliest first_seen_at among them
 * @param cohorts the records by source, class and fingerprint, most documents first
 */
public record OwnerOverdue(String owner, long documents, Instant oldestFirstSeen, List<OverdueCohort> cohorts) {
}
