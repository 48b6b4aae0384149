package org.ingestquarantine.delivery;

import com.github.f4b6a3.ulid.UlidCreator;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;

/**
 * Who owns the attempts this process opens, and for how long one stays alive without a heartbeat.
 *
 * @param owner the consumer process's identity, written on each attempt ({@link #forThisProcess})
 * @param duration how long after an attempt's last heartbeat (or its start) it still counts as live; after
 *     that, if it is still open, its owner is taken for dead and the attempt for a death. Zero: an open
 *     attempt is dead at once (no heartbeat; the journal's behaviour before leases, kept for tools and tests)
 */
public record AttemptLease(String owner, Duration duration) {

    /** No owner, no lease: every open attempt is a death as soon as it is read. */
    public static final AttemptLease NONE = new AttemptLease(null, Duration.ZERO);

    /**
     * @throws IllegalArgumentException if {@code duration} is negative
     */
    public AttemptLease {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("a lease cannot be negative, was " + duration);
        }
    }

    /**
     * @param duration the lease, see {@link AttemptLease}
     * @return a lease owned by this JVM, named {@code <host>/<pid>/<ULID of this call>}: unique even when a pid
     *     is reused on the host, and readable in the journal
     */
    public static AttemptLease forThisProcess(Duration duration) {
        return new AttemptLease(hostName() + "/" + ProcessHandle.current().pid() + "/" + UlidCreator.getMonotonicUlid(),
                duration);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
