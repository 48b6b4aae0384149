package org.ingestquarantine.ingest;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source's total by listing: the sum of what every {@link SourceLister} that can list the source counts,
 * recorded as {@link SourceTotals.Obtained#LISTED} with the listers' versions as {@code counted_by}. On demand
 * ({@code sources count S}, the API) or on a schedule inside {@code run} ({@value #INTERVAL_PROPERTY}). A listing
 * that fails writes nothing: the source keeps its last total. Thread-safe.
 */
public final class SourceListing {

    /** Property: ms between two listings of every listable source in {@code run}; 0 = none on a schedule. */
    public static final String INTERVAL_PROPERTY = "sources.count-interval-ms";

    private static final Logger LOG = LoggerFactory.getLogger(SourceListing.class);

    private final List<SourceLister> listers;
    private final SourceTotals totals;

    /**
     * @param listers one per kind of root, e.g. a {@link FolderLister}
     * @param totals where the totals go
     */
    public SourceListing(List<SourceLister> listers, SourceTotals totals) {
        this.listers = List.copyOf(listers);
        this.totals = Objects.requireNonNull(totals, "totals");
    }

    /**
     * @param source a source name
     * @return whether some lister can list it (it has roots a lister walks)
     */
    public boolean canList(String source) {
        return listers.stream().anyMatch(l -> l.canList(source));
    }

    /**
     * Lists the source and records its total.
     *
     * @param source a source name
     * @return the total recorded, empty (nothing written) when no lister can list the source
     * @throws IOException when a root cannot be read (nothing written)
     * @throws IllegalStateException when a lister's bound is exceeded (nothing written)
     * @throws org.ingestquarantine.db.DatabaseAccessException if the database fails
     */
    public Optional<SourceTotals.Total> list(String source) throws IOException {
        List<SourceLister> able = listers.stream().filter(l -> l.canList(source)).toList();
        if (able.isEmpty()) {
            return Optional.empty();
        }
        long documents = 0;
        for (SourceLister l : able) {
            documents += l.count(source);
        }
        String versions = able.stream().map(SourceLister::version).collect(Collectors.joining("+"));
        totals.record(source, documents, SourceTotals.Obtained.LISTED, versions, null);
        return totals.find(source);
    }

    /**
     * Lists every listable source of {@code sources} every {@code interval}, the first time at once. A failing
     * source is logged once (one line naming it and why) until it lists again; the others go on.
     *
     * @param interval {@value #INTERVAL_PROPERTY}, more than 0
     * @param sources the configured source names, asked before each round
     * @return the schedule; close it to stop
     */
    public AutoCloseable every(Duration interval, Supplier<Collection<String>> sources) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException(INTERVAL_PROPERTY + " must be more than 0 to list on a schedule");
        }
        Set<String> failing = ConcurrentHashMap.newKeySet();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "source-listing");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(() -> {
            for (String source : sources.get()) {
                try {
                    if (list(source).isPresent() && failing.remove(source)) {
                        LOG.info("source '{}' listed again", source);
                    }
                } catch (IOException | RuntimeException e) {
                    if (failing.add(source)) {
                        LOG.warn("source '{}' could not be listed ({}: {}); it keeps its last total, retrying every"
                                + " {} ms ({})", source, e.getClass().getSimpleName(), org.ingestquarantine.pipeline.LogSafe.identity(String.valueOf(e.getMessage())),
                                interval.toMillis(), INTERVAL_PROPERTY);
                    }
                }
            }
        }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return scheduler::shutdownNow;
    }
}
