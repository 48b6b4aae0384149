package org.ingestquarantine.operator;

import java.util.List;
import java.util.Objects;
import org.ingestquarantine.delivery.SourcePauses;

/**
 * The operator's side of the failure-storm breaker, for {@code storm list}, {@code storm resume} and the HTTP API:
 * the pauses every consumer reads ({@link SourcePauses}), listed and resumed. Throws
 * {@link org.ingestquarantine.db.DatabaseAccessException} when the database cannot be used and
 * {@link BadOperatorInputException} for input that cannot be right. Thread-safe.
 */
public final class Storms {

    /** Pauses listed when no limit is given. */
    public static final int DEFAULT_LIMIT = 20;

    private final SourcePauses pauses;

    /** @param pauses the pauses every consumer reads */
    public Storms(SourcePauses pauses) {
        this.pauses = Objects.requireNonNull(pauses, "pauses");
    }

    /**
     * @param paused the open pauses
     * @param resumed the resumed ones, newest first
     */
    public record Listing(List<SourcePauses.Pause> paused, List<SourcePauses.Pause> resumed) {
    }

    /**
     * @param limit at most this many pauses in all, or null for {@value #DEFAULT_LIMIT}
     * @return the open pauses, then the latest resumed ones
     * @throws BadOperatorInputException if the limit is below 1
     */
    public Listing list(Integer limit) {
        int max = limit == null ? DEFAULT_LIMIT : limit;
        if (max < 1) {
            throw new BadOperatorInputException("limit must be at least 1, was " + max);
        }
        List<SourcePauses.Pause> all = pauses.list(max);
        return new Listing(all.stream().filter(SourcePauses.Pause::open).toList(),
                all.stream().filter(p -> !p.open()).toList());
    }

    /**
     * Resumes a paused source: every consumer works on its deliveries again within {@code storm.pause-cache-ms}.
     *
     * @param source the source
     * @param by who resumes it
     * @return the pause it ended
     * @throws BadOperatorInputException if no source is named, or the source is not paused
     */
    public SourcePauses.Pause resume(String source, String by) {
        if (source == null || source.isBlank()) {
            throw new BadOperatorInputException("name the paused source to resume (storm list shows them)");
        }
        return pauses.resume(source, by).orElseThrow(() -> new BadOperatorInputException("source '"
                + OperatorLabels.printable(source) + "' is not paused (storm list shows the paused sources)"));
    }
}
