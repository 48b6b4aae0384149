package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this process's attempts alive: every {@code interval} it renews their leases with one statement
 * ({@link AttemptJournal#renewLeases()}), on a daemon thread of its own, so a slow document never delays a
 * beat. A beat that fails (the database is away) is logged once per outage and tried again at the next
 * interval; the leases run on meanwhile.
 *
 * <p>The interval is property {@code delivery.heartbeat-interval-ms}; it must stay well under the lease
 * ({@code delivery.lease-ms}; {@link #MIN_BEATS_PER_LEASE} beats at least), so that a late beat or two does
 * not make a live attempt look dead.
 */
public final class AttemptHeartbeat implements AutoCloseable {

    /** Beats a lease must span at least: a live attempt survives this many minus one missed beats. */
    public static final int MIN_BEATS_PER_LEASE = 3;

    private static final Logger LOG = LoggerFactory.getLogger(AttemptHeartbeat.class);

    private final AttemptJournal journal;
    private final ScheduledExecutorService timer;
    private volatile boolean failing;

    private AttemptHeartbeat(AttemptJournal journal) {
        this.journal = journal;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "attempt-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * @param journal the journal whose live attempts to renew (its {@link AttemptJournal#lease()} is the lease)
     * @param interval time between two beats
     * @return the running heartbeat; close it to stop beating
     * @throws IllegalArgumentException if the interval is not positive or the lease spans fewer than
     *     {@value #MIN_BEATS_PER_LEASE} intervals
     */
    public static AttemptHeartbeat start(AttemptJournal journal, Duration interval) {
        Objects.requireNonNull(journal, "journal");
        Duration lease = journal.lease().duration();
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("delivery.heartbeat-interval-ms must be positive, was " + interval.toMillis());
        }
        if (lease.compareTo(interval.multipliedBy(MIN_BEATS_PER_LEASE)) < 0) {
            throw new IllegalArgumentException("delivery.lease-ms (" + lease.toMillis() + ") must be at least "
                    + MIN_BEATS_PER_LEASE + " x delivery.heartbeat-interval-ms (" + interval.toMillis() + ")");
        }
        AttemptHeartbeat heartbeat = new AttemptHeartbeat(journal);
        heartbeat.timer.scheduleWithFixedDelay(heartbeat::beat, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    private void beat() {
        try {
            journal.renewLeases();
            if (failing) {
                failing = false;
                LOG.info("attempt leases renewed again");
            }
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.warn("attempt leases not renewed ({}); retrying every beat", e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
