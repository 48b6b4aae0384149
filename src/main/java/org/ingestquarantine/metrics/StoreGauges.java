package org.ingestquarantine.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.ingestquarantine.db.SpringJdbc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Gauges read from the store on a schedule (every {@link Windows#poll()}), never per message, that grow
 * when the problem grows (DESIGN.md §7). Each reading replaces the last; while the database cannot be read,
 * every gauge keeps its last value and {@value #AGE} says how many seconds old that value is.
 *
 * <ul>
 *   <li>{@value #OPEN} {source}: open quarantine records (documents), 0 for a source with none;</li>
 *   <li>{@value #OLDEST} {source}: age of the oldest open record, only where one is open;</li>
 *   <li>{@value #TOTAL} {source}: the source's known total of documents: {@code source_totals.documents}
 *       (listed, stated or counted by an ingest) where that table exists, else what the store knows (indexed +
 *       open quarantined + unindexable + erased);</li>
 *   <li>{@value #COVERAGE} {source}: the figure {@code coverage}, the API and the page print, read from the one
 *       coverage query ({@link CoverageReadings}); absent where the total is unknown or the source has 0 documents;</li>
 *   <li>{@value #NEW_FINGERPRINTS}: error fingerprints first seen within {@link Windows#newFingerprint()};</li>
 *   <li>{@value #OVERDUE} {owner}: open records first seen more than {@link Windows#overdueAfter()} ago,
 *       owner {@value #NO_OWNER} where none is set; 0 for an owner of open records none of which is overdue, and
 *       {@value #NO_OWNER} is always present (0 when nothing is), so the series exists on a healthy day too;</li>
 *   <li>{@value #DRAIN} : time since the last drain run started that attempted something (a run whose every
 *       record was {@code not_attempted}, status {@code nothing_attempted}, is no drain), or, before any such run,
 *       since the oldest open record was first seen: present from the first open record on, so a store that never
 *       drained shows its whole backlog's age; absent while nothing was ever drained and nothing is open.</li>
 * </ul>
 * A {@code source} tag is a configured source's, one an operator named in the store (a {@code source_totals} row:
 * listed, stated or counted by an ingest; a root an {@code ingest} recorded in {@code source_roots}), or
 * {@value org.ingestquarantine.pipeline.RecordKey#INVALID_MESSAGES_SOURCE} ({@link SourceTags}); the rows of every other source the store holds (an older version recorded some under names
 * producers chose; {@code sources purge-unconfigured} re-keys them) are summed under one
 * {@value org.ingestquarantine.pipeline.RecordKey#OTHER_SOURCES} series, the oldest age their oldest.
 * Reads the tables directly with Spring's {@link JdbcTemplate} (this package sits below {@code quarantine}).
 * Thread-safe.
 */
public final class StoreGauges implements AutoCloseable {

    /** Open quarantined documents per source. */
    public static final String OPEN = "quarantine.open.documents";
    /** Age of the oldest open record per source, seconds. */
    public static final String OLDEST = "quarantine.oldest.open.age.seconds";
    /** The known total of a source's documents. */
    public static final String TOTAL = "source.documents";
    /** Indexed share of a source's documents, 0.0-1.0. */
    public static final String COVERAGE = "coverage.ratio";
    /** Fingerprints first seen in the window. */
    public static final String NEW_FINGERPRINTS = "quarantine.fingerprints.new";
    /** Overdue open records per owner. */
    public static final String OVERDUE = "quarantine.overdue.documents";
    /** Seconds since the last drain run that attempted something started, or before any, since the oldest open record. */
    public static final String DRAIN = "drain.last.run.age.seconds";
    /** Seconds since the gauges above were last read from the store. */
    public static final String AGE = "quarantine.gauges.age.seconds";
    /** Owner tag of records that name none. */
    public static final String NO_OWNER = "unowned";

    /**
     * @param poll time between two readings of the store
     * @param newFingerprint how recently a fingerprint must have been first seen to count as new
     * @param overdueAfter how long a record may stay open before it is overdue
     */
    public record Windows(Duration poll, Duration newFingerprint, Duration overdueAfter) {
        public Windows {
            Objects.requireNonNull(poll, "poll");
            Objects.requireNonNull(newFingerprint, "newFingerprint");
            Objects.requireNonNull(overdueAfter, "overdueAfter");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(StoreGauges.class);

    private static final String NEW_FINGERPRINTS_SQL = SpringJdbc.sql(StoreGauges.class, "new-fingerprints.sql");
    private static final String OVERDUE_SQL = SpringJdbc.sql(StoreGauges.class, "overdue-owners.sql");
    private static final String SOURCES_SQL = SpringJdbc.sql(StoreGauges.class, "source-readings.sql");

    private final JdbcTemplate jdbc;
    private final SourceTags sourceTags;
    private final Windows windows;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final MultiGauge open;
    private final MultiGauge oldest;
    private final MultiGauge total;
    private final MultiGauge coverage;
    private final MultiGauge overdue;
    private final MultiGauge drain;
    private volatile double newFingerprints;
    private volatile Instant lastRead;
    private volatile boolean failing;
    private final CoverageReadings coverageReadings;

    private StoreGauges(JdbcTemplate jdbc, SourceTags sourceTags, MeterRegistry registry, Windows windows,
                        CoverageReadings coverageReadings, Clock clock) {
        this.jdbc = jdbc;
        this.coverageReadings = Objects.requireNonNull(coverageReadings, "coverageReadings");
        this.sourceTags = Objects.requireNonNull(sourceTags, "sourceTags");
        this.windows = windows;
        this.clock = clock;
        this.lastRead = clock.instant();
        this.open = MultiGauge.builder(OPEN).description("open quarantine records, per source").register(registry);
        this.oldest = MultiGauge.builder(OLDEST).description("age of the oldest open quarantine record, seconds")
                .register(registry);
        this.total = MultiGauge.builder(TOTAL).description("the known total of a source's documents")
                .register(registry);
        this.coverage = MultiGauge.builder(COVERAGE).description("indexed / the source's known total")
                .register(registry);
        this.overdue = MultiGauge.builder(OVERDUE).description("open records past the overdue age, per owner")
                .register(registry);
        this.drain = MultiGauge.builder(DRAIN).description("seconds since the last drain run that attempted"
                        + " something started, or before any, since the oldest open record was first seen")
                .register(registry);
        Gauge.builder(NEW_FINGERPRINTS, this, g -> g.newFingerprints)
                .description("error fingerprints first seen within the new-fingerprint window").register(registry);
        Gauge.builder(AGE, this, g -> Duration.between(g.lastRead, g.clock.instant()).toMillis() / 1000.0)
                .description("seconds since the store gauges were last read (grows while the database is down)")
                .register(registry);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "store-gauges");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Registers the gauges and starts reading the store, the first time at once.
     *
     * @param dataSource the store
     * @param sourceTags the sources that have series of their own
     * @param registry where the gauges go
     * @param windows poll interval and the windows of "new" and "overdue"
     * @param coverageReadings the coverage query {@value #COVERAGE} reads
     * @param clock the time {@value #AGE} is measured in
     * @return the running reader; {@link #close()} stops it
     */
    public static StoreGauges start(DataSource dataSource, SourceTags sourceTags, MeterRegistry registry,
                                    Windows windows, CoverageReadings coverageReadings, Clock clock) {
        StoreGauges gauges = new StoreGauges(SpringJdbc.template(dataSource), sourceTags, registry, windows, coverageReadings, clock);
        gauges.scheduler.scheduleWithFixedDelay(gauges::refreshQuietly, 0, windows.poll().toMillis(),
                TimeUnit.MILLISECONDS);
        return gauges;
    }

    private void refreshQuietly() {
        try {
            refresh();
            if (failing) {
                LOG.info("store gauges read again");
            }
            failing = false;
        } catch (SQLException | RuntimeException e) {
            if (!failing) {
                LOG.warn("store gauges could not be read ({}); they keep their last values, {} says how old;"
                        + " retrying every {} ms", e.getMessage(), AGE, windows.poll().toMillis());
            }
            failing = true;
        }
    }

    /**
     * Reads every gauge from the store once.
     *
     * @throws SQLException when the store cannot be read; the gauges keep their last values then
     */
    void refresh() throws SQLException {
        try {
            read();
        } catch (DataAccessException e) {
            throw SpringJdbc.cause(e);
        }
    }

    private void read() {
        boolean[] tables = jdbc.queryForObject("SELECT to_regclass('source_totals') IS NOT NULL,"
                + " to_regclass('drain_runs') IS NOT NULL, to_regclass('source_roots') IS NOT NULL",
                (rs, n) -> new boolean[] {rs.getBoolean(1), rs.getBoolean(2), rs.getBoolean(3)});
        boolean totalsKnown = tables[0];
        java.util.Set<String> named = new java.util.HashSet<>();
        if (totalsKnown) {
            named.addAll(jdbc.queryForList("SELECT source FROM source_totals", String.class));
        }
        if (tables[2]) {
            named.addAll(jdbc.queryForList("SELECT source FROM source_roots", String.class));
        }
        List<SourceRow> sources = byTag(jdbc.query(sourcesSql(totalsKnown), (rs, n) -> sourceRow(rs)),
                sourceTags.with(named));
        long windowMs = windows.newFingerprint().toMillis();
        long fresh = jdbc.queryForObject(NEW_FINGERPRINTS_SQL, Long.class, windowMs);
        List<MultiGauge.Row<?>> overdueRows = new ArrayList<>();
        java.util.Set<String> owners = new java.util.HashSet<>();
        jdbc.query(OVERDUE_SQL, rs -> {
                    owners.add(rs.getString(1));
                    overdueRows.add(MultiGauge.Row.of(Tags.of("owner", rs.getString(1)), rs.getLong(2)));
                }, NO_OWNER, windows.overdueAfter().toMillis());
        if (!owners.contains(NO_OWNER)) {
            // a series even on a day nothing is overdue: 0 is a reading, absence is none
            overdueRows.add(MultiGauge.Row.of(Tags.of("owner", NO_OWNER), 0));
        }
        List<MultiGauge.Row<?>> drainRows = new ArrayList<>();
        jdbc.query("SELECT extract(epoch FROM now() - COALESCE(" + (tables[1]
                        ? "(SELECT max(started_at) FROM drain_runs WHERE status <> 'nothing_attempted'), " : "")
                        + "(SELECT min(first_seen_at) FROM quarantine WHERE disposition = 'open')))",
                (rs, n) -> rs.getObject(1) == null ? null : rs.getDouble(1)).stream().filter(Objects::nonNull)
                .findFirst().ifPresent(age -> drainRows.add(MultiGauge.Row.of(Tags.empty(), age)));

        List<MultiGauge.Row<?>> openRows = new ArrayList<>();
        List<MultiGauge.Row<?>> oldestRows = new ArrayList<>();
        List<MultiGauge.Row<?>> totalRows = new ArrayList<>();
        List<MultiGauge.Row<?>> coverageRows = new ArrayList<>();
        for (SourceRow s : sources) {
            Tags tags = Tags.of("source", s.source());
            openRows.add(MultiGauge.Row.of(tags, s.open()));
            if (s.oldestOpenAgeSeconds() != null) {
                oldestRows.add(MultiGauge.Row.of(tags, s.oldestOpenAgeSeconds()));
            }
            if (s.total() != null) {
                totalRows.add(MultiGauge.Row.of(tags, s.total()));
            }
        }
        // a source with a coverage has a total, so a source_totals row, so a tag of its own: no two share a series
        SourceTags coverageTags = sourceTags.with(named);
        coverageReadings.coverageRatios().forEach((source, ratio) ->
                coverageRows.add(MultiGauge.Row.of(Tags.of("source", coverageTags.tag(source)), ratio)));
        open.register(openRows, true);
        oldest.register(oldestRows, true);
        total.register(totalRows, true);
        coverage.register(coverageRows, true);
        overdue.register(overdueRows, true);
        drain.register(drainRows, true);
        newFingerprints = fresh;
        lastRead = clock.instant();
    }

    /** One source's reading; {@code total} null when unknown. */
    private record SourceRow(String source, long indexed, long open, long notSearchable, long skipped, Long total,
                             Double oldestOpenAgeSeconds) {

        /** @return both readings under this one's source: counts summed, a total known if either's is */
        SourceRow plus(SourceRow o) {
            Long sum = total == null ? o.total : o.total == null ? total : Long.valueOf(total + o.total);
            Double oldest = oldestOpenAgeSeconds == null ? o.oldestOpenAgeSeconds : o.oldestOpenAgeSeconds == null
                    ? oldestOpenAgeSeconds : Double.valueOf(Math.max(oldestOpenAgeSeconds, o.oldestOpenAgeSeconds));
            return new SourceRow(source, indexed + o.indexed, open + o.open, notSearchable + o.notSearchable,
                    skipped + o.skipped, sum, oldest);
        }
    }

    /** @return the rows with each source replaced by its tag, rows of one tag summed (ages: the oldest) */
    private static List<SourceRow> byTag(List<SourceRow> rows, SourceTags tags) {
        java.util.Map<String, SourceRow> byTag = new java.util.TreeMap<>();
        for (SourceRow r : rows) {
            String tag = tags.tag(r.source());
            SourceRow row = new SourceRow(tag, r.indexed(), r.open(), r.notSearchable(), r.skipped(), r.total(),
                    r.oldestOpenAgeSeconds());
            byTag.merge(tag, row, SourceRow::plus);
        }
        return List.copyOf(byTag.values());
    }

    private static SourceRow sourceRow(ResultSet rs) throws SQLException {
        long total = rs.getLong("total");
        boolean totalKnown = !rs.wasNull();
        double oldest = rs.getDouble("oldest_age");
        boolean anyOpen = !rs.wasNull();
        return new SourceRow(rs.getString("source"), rs.getLong("indexed"), rs.getLong("open"),
                rs.getLong("not_searchable"), rs.getLong("skipped"), totalKnown ? total : null, anyOpen ? oldest : null);
    }

    /**
     * Per source: indexed (searchable) documents, open records, records whose document is not searchable (open,
     * unindexable, erased), the known total and the oldest open age. The store's own total is DESIGN.md §5's
     * coverage denominator: indexed + open quarantined + unindexable + erased (each not since indexed).
     */
    private static String sourcesSql(boolean totalsKnown) {
        return SOURCES_SQL.formatted(
                totalsKnown ? "UNION SELECT source FROM source_totals" : "", SkippedCoverage.skippedPerSourceSql(),
                totalsKnown ? "t.documents"
                        : "COALESCE(i.n, 0) + COALESCE(q.missing_n, 0) + COALESCE(q.unindexable_n, 0)"
                                + " + COALESCE(q.erased_n, 0) + COALESCE(k.skipped_n, 0)",
                totalsKnown ? "LEFT JOIN source_totals t ON t.source = s.source" : "");
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
