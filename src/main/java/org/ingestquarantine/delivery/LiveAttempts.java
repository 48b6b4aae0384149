package org.ingestquarantine.delivery;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the journal keeps in memory of this process's attempts, shared by its parts ({@link AttemptJournal}): the
 * attempts whose lease the heartbeat renews, the stage each last entered that no statement has written yet, and
 * the closes not yet written because the database was unreachable; and the clock their times come from.
 * Thread-safe.
 */
final class LiveAttempts {

    /** A stage an attempt entered, and when. */
    record StageMark(String stage, Instant at) {
    }

    /** A close not yet written: its outcome, when it closed, and the stage it closes at (null: its last mark). */
    record UnwrittenClose(AttemptOutcome outcome, Instant closedAt, String stage) {
    }

    private final Clock clock;
    /** Attempts of this process whose lease the heartbeat renews: open ones, and closes not yet written. */
    final Set<Long> live = ConcurrentHashMap.newKeySet();
    /** The stage each live attempt of this process last entered, not yet written: the next beat writes it. */
    final Map<Long, StageMark> marks = new ConcurrentHashMap<>();
    /** Closes not yet written because the database was unreachable, by attempt id. */
    final Map<Long, UnwrittenClose> unwritten = new ConcurrentHashMap<>();

    /** @param clock source of started, stage and closed times */
    LiveAttempts(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return the clock's time, to the microsecond (PostgreSQL's precision) */
    Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    /** Stops renewing an attempt and drops its unwritten mark. */
    void drop(long attemptId) {
        live.remove(attemptId);
        marks.remove(attemptId);
    }
}
