package org.ingestquarantine.delivery;

import java.time.Instant;

/**
 * Attempts of one delivery key that were started and never closed: the consumer died mid-message.
 *
 * @param count unclosed attempts, 0 if none
 * @param lastStage the stage the most recent of them reached, or null if none (or it recorded none)
 * @param lastStartedAt when the most recent of them started, or null if none
 */
public record Deaths(int count, String lastStage, Instant lastStartedAt) {

    /** No deaths. */
    public static final Deaths NONE = new Deaths(0, null, null);
}
