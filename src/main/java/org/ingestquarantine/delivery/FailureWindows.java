package org.ingestquarantine.delivery;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.ingestquarantine.failure.ErrorClass;

/**
 * The recent deliveries of each source as this consumer saw them end: the last {@link StormThresholds#window()} of
 * them, each a success or a failure with its fingerprint. Only tracks and judges: a failure that makes its
 * fingerprint's share of the window a storm ({@link StormThresholds#isStorm}) is reported as a {@link Storm}; what
 * is done about it is {@link FailureStorm}'s. Thread-safe.
 */
final class FailureWindows {

    /** One failed delivery. */
    record Failure(String fingerprint, ErrorClass errorClass, String reasonCode, Instant at) {
        Failure {
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(errorClass, "errorClass");
            Objects.requireNonNull(reasonCode, "reasonCode");
            Objects.requireNonNull(at, "at");
        }
    }

    private final StormThresholds thresholds;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    /** @param thresholds the window's size and what a storm is */
    FailureWindows(StormThresholds thresholds) {
        this.thresholds = Objects.requireNonNull(thresholds, "thresholds");
    }

    /** @param source a delivery of it ended well (indexed, unchanged, skipped) */
    void succeeded(String source) {
        window(source).add(null);
    }

    /**
     * @param source a delivery of it failed
     * @param failure how
     * @return the storm its fingerprint now makes of the source's window, if it does
     */
    Optional<Storm> failed(String source, Failure failure) {
        return window(source).add(failure).map(w -> new Storm(source, failure.fingerprint(), failure.errorClass(),
                failure.reasonCode(), w.failed(), w.deliveries(), w.began()));
    }

    /** @param source a source whose deliveries so far no longer count (it was paused, or resumed) */
    void clear(String source) {
        windows.remove(source);
    }

    /** @return the deliveries of {@code source} in its window now */
    int deliveries(String source) {
        Window w = windows.get(source);
        return w == null ? 0 : w.size();
    }

    private Window window(String source) {
        return windows.computeIfAbsent(source, s -> new Window(thresholds));
    }

    /** What one fingerprint holds of a window when its share is judged. */
    private record Share(int failed, int deliveries, Instant began) {
    }

    /** The last deliveries of one source, oldest overwritten first; null slots are successes. */
    private static final class Window {
        private final StormThresholds thresholds;
        private final Failure[] slots;
        private final Map<String, Integer> failures = new HashMap<>();
        private int next;
        private int size;

        Window(StormThresholds thresholds) {
            this.thresholds = thresholds;
            this.slots = new Failure[thresholds.window()];
        }

        /** @return the share of the added failure's fingerprint when it is a storm */
        synchronized Optional<Share> add(Failure failure) {
            Failure dropped = size == slots.length ? slots[next] : null;
            if (dropped != null) {
                failures.computeIfPresent(dropped.fingerprint(), (f, n) -> n == 1 ? null : n - 1);
            }
            slots[next] = failure;
            next = (next + 1) % slots.length;
            size = Math.min(size + 1, slots.length);
            if (failure == null) {
                return Optional.empty();
            }
            int failed = failures.merge(failure.fingerprint(), 1, Integer::sum);
            if (!thresholds.isStorm(failed, size)) {
                return Optional.empty();
            }
            return Optional.of(new Share(failed, size, firstFailureOf(failure.fingerprint())));
        }

        synchronized int size() {
            return size;
        }

        /** @return when the window's oldest failure with {@code fingerprint} ended */
        private Instant firstFailureOf(String fingerprint) {
            int oldest = size == slots.length ? next : 0;
            for (int i = 0; i < size; i++) {
                Failure f = slots[(oldest + i) % slots.length];
                if (f != null && f.fingerprint().equals(fingerprint)) {
                    return f.at();
                }
            }
            throw new IllegalStateException("a counted fingerprint is in the window");
        }
    }
}
