package org.ingestquarantine.operator;

import java.time.Instant;

/**
 * One row of the attempt journal: one delivery of a document's message, from its start to its outcome.
 *
 * @param attemptId the row's id
 * @param deliveryKey the broker's identity of the message
 * @param deliveryCount the delivery's number, as the broker counted it (from 1)
 * @param startedAt when the attempt started
 * @param stage the last stage written, or null
 * @param closedAt when it ended, or null: never closed (running, or a death)
 * @param outcome indexed, skipped, released, quarantined..., or null while open
 */
public record JournalRow(long attemptId, String deliveryKey, int deliveryCount, Instant startedAt, String stage,
                         Instant closedAt, String outcome) {
}
