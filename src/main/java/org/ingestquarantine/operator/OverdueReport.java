package org.ingestquarantine.operator;

import java.time.Instant;
import java.util.List;

/**
 * Answer to {@code overdue}: open records first seen before a cut-off, by owner.
 *
 * @param firstSeenBefore the cut-off (now minus the retention age)
 * @param documents overdue records over every owner
 * @param owners one entry per owner, most documents first
 */
public record OverdueReport(Instant firstSeenBefore, long documents, List<OwnerOverdue> owners) {
}
