package org.ingestquarantine.delivery;

import java.time.Instant;
import java.util.Objects;
import org.ingestquarantine.failure.ErrorClass;

/**
 * A share of one source's recent deliveries failing with one fingerprint, as one consumer saw it
 * ({@link FailureWindows}): what the failure-storm breaker pauses the source for, unless the fingerprint is known to
 * the source ({@link SourcePauses#trip}).
 *
 * @param source the source
 * @param fingerprint the failures' {@code error_fingerprint}
 * @param errorClass the class of the latest of them
 * @param reasonCode the reason of the latest of them
 * @param failed deliveries of the window that failed with the fingerprint
 * @param deliveries deliveries in the window
 * @param began when the first of those failures ended: records first seen from then on are the storm's own
 */
public record Storm(String source, String fingerprint, ErrorClass errorClass, String reasonCode, int failed,
                    int deliveries, Instant began) {

    /** @throws IllegalArgumentException if the counts cannot be a window's */
    public Storm {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(errorClass, "errorClass");
        Objects.requireNonNull(reasonCode, "reasonCode");
        Objects.requireNonNull(began, "began");
        if (failed < 1 || deliveries < failed) {
            throw new IllegalArgumentException("failed " + failed + " of " + deliveries + " deliveries");
        }
    }

    /** @return the failing share, percent, to a whole percent rounded down */
    public int percent() {
        return (int) (failed * 100L / deliveries);
    }
}
