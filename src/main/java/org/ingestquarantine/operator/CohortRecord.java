package org.ingestquarantine.operator;

import java.time.Instant;

/**
 * One open record of a cohort, as the cohort's record list shows it (the whole evidence is {@code show}'s).
 *
 * @param dlqId the record's ULID
 * @param source connector name
 * @param docId document id within the source
 * @param errorType latest exception type
 * @param stage the stage it failed in
 * @param attempts failures recorded
 * @param firstSeenAt first failure
 * @param lastSeenAt latest failure
 * @param owner the team written on the record (its source's {@code sources.<name>.owner}), or null
 */
public record CohortRecord(String dlqId, String source, String docId, String errorType, String stage, int attempts,
                           Instant firstSeenAt, Instant lastSeenAt, String owner) {
}
