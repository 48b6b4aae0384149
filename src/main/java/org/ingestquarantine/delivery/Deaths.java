package org.ingestquarantine.delivery;

import java.time.Instant;

/**
 * Attempts of one delivery key that were started, never closed, and whose lease ran out: the consumer that
 * owned them died mid-message (see {@link AttemptJournal}, "Leases").
 *
 * @param count unclosed attempts, 0 if none
 * @param lastStage the stage the most recent of them reached, or null if none (or it recorded none)
 * @param lastStartedAt when the most recent of them started, or null if none
 */
public record Deaths(int count, String lastStage, Instant lastStartedAt) {

    /** No deaths. */
    public static final Deaths NONE = new Deaths(0, null, null);
}
