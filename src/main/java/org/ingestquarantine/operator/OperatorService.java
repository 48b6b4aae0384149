package org.ingestquarantine.operator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.quarantine.PayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * The operator's questions to the quarantine (DESIGN §5), behind the CLI and the HTTP API: stats, cohorts,
 * coverage, show and overdue. Reads only; stats, cohorts, coverage and overdue read the summaries the
 * database keeps in the same transaction as every record write ({@code V6__summaries.sql}).
 *
 * <p>Every method throws {@link org.ingestquarantine.db.DatabaseAccessException} (or the store's
 * {@link org.ingestquarantine.quarantine.QuarantineWriteException}) when the database cannot be reached, and
 * {@link BadOperatorInputException} for a name that matches nothing; either way nothing was changed.
 * Thread-safe.
 */
public final class OperatorService {

    /** Owner shown for records whose source names no team ({@code sources.<name>.owner} unset). */
    public static final String UNOWNED = "(no owner configured)";

    private final OperatorQueries queries;
    private final QuarantineStore store;
    private final PayloadStore payloads;
    private final Clock clock;
    private final java.util.SortedSet<String> configuredSources;
    /** Rows the sources no operator named may have in coverage and stats; null: every source has its own. */
    private final Integer unnamedSourceRows;
    private final org.ingestquarantine.ingest.SourceRoots roots;
    /** A configured source's owner ({@code sources.<name>.owner}), empty if none. */
    private final java.util.function.Function<String, Optional<String>> ownerOf;

    /** Most source names an unknown-source refusal lists. */
    public static final int KNOWN_SOURCES_SHOWN = 10;

    /**
     * A service that knows no configured source: only sources present in the data are valid filters.
     *
     * @param dataSource a pool on the migrated schema
     * @param store the evidence records
     * @param payloads where payloads and stack traces live
     * @param clock the time "now" for ages and cut-offs
     */
    public OperatorService(DataSource dataSource, QuarantineStore store, PayloadStore payloads,
                           Clock clock) {
        this(dataSource, store, payloads, clock, java.util.Set.of());
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param store the evidence records
     * @param payloads where payloads and stack traces live
     * @param clock the time "now" for ages and cut-offs
     * @param configuredSources the source names the configuration names ({@code sources.<name>.*}): valid
     *     filters even before any row names them, and sources {@link #boundedTo} gives rows of their own
     */
    public OperatorService(DataSource dataSource, QuarantineStore store, PayloadStore payloads,
                           Clock clock, java.util.Collection<String> configuredSources) {
        this.unnamedSourceRows = null;
        this.ownerOf = source -> Optional.empty();
        this.roots = new org.ingestquarantine.ingest.SourceRoots(dataSource, clock);
        this.queries = new OperatorQueries(dataSource);
        this.store = Objects.requireNonNull(store, "store");
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.configuredSources = java.util.Collections.unmodifiableSortedSet(
                new java.util.TreeSet<>(Objects.requireNonNull(configuredSources, "configuredSources")));
    }

    private OperatorService(OperatorService base, Integer unnamedSourceRows, OperatorQueries queries,
                            java.util.function.Function<String, Optional<String>> ownerOf) {
        this.queries = queries;
        this.ownerOf = ownerOf;
        this.store = base.store;
        this.payloads = base.payloads;
        this.clock = base.clock;
        this.configuredSources = base.configuredSources;
        this.roots = base.roots;
        this.unnamedSourceRows = unnamedSourceRows;
    }

    /**
     * @param rows rows of their own the sources no operator named (not configured, no total, no root an ingest
     *     recorded) may have in {@link #coverage} and {@link #stats}, 0 or more (property
     *     {@code operator.unnamed-source-rows}); the others share one
     *     {@value org.ingestquarantine.pipeline.RecordKey#OTHER_SOURCES} row. Without it, every source has its own.
     * @return this service with answers so bounded
     * @throws IllegalArgumentException if {@code rows} is negative
     */
    public OperatorService boundedTo(int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("operator.unnamed-source-rows must be 0 or more, was " + rows);
        }
        return new OperatorService(this, rows, queries, ownerOf);
    }

    /**
     * @param skippedCoverage how coverage counts documents a route skipped by policy (property
     *     {@value org.ingestquarantine.metrics.SkippedCoverage#PROPERTY}); without it, excluded
     * @return this service with coverage so counted
     */
    public OperatorService countingSkipped(org.ingestquarantine.metrics.SkippedCoverage skippedCoverage) {
        return new OperatorService(this, unnamedSourceRows, queries.countingSkipped(skippedCoverage), ownerOf);
    }

    /**
     * @param owners a configured source's owner (configuration {@code sources.<name>.owner}), empty if none
     * @return this service naming the configured sources' owners in {@link #sourceOwners}; without it, none
     */
    public OperatorService withSourceOwners(java.util.function.Function<String, Optional<String>> owners) {
        return new OperatorService(this, unnamedSourceRows, queries, Objects.requireNonNull(owners, "owners"));
    }

    /**
     * @return each configured source's owner as configured now, sorted by source, sources without one left out (a
     *     record keeps the owner written when it was created: {@code sources sync-owners} brings open ones up to date)
     */
    public java.util.SortedMap<String, String> sourceOwners() {
        java.util.SortedMap<String, String> owners = new java.util.TreeMap<>();
        configuredSources.forEach(source -> ownerOf.apply(source).ifPresent(owner -> owners.put(source, owner)));
        return owners;
    }

    /**
     * @param source only this source, or null for every source
     * @return records (attempts) and documents per source with their dispositions, and the total; zeros for a
     *     configured source with no records yet; for every source, {@link #boundedTo bounded}
     * @throws BadOperatorInputException if the source is neither configured nor in the data
     */
    public StatsReport stats(String source) {
        requireKnownSource(source);
        if (unnamedSourceRows == null || source != null) {
            return queries.stats(source);
        }
        return queries.stats(null, sourceRows()::over);
    }

    /**
     * Refuses a source name that matches nothing, as an unknown error class is refused: a mistyped filter must
     * not answer zeros.
     *
     * @param source a source name given as a filter, or null (every source: always valid)
     * @throws BadOperatorInputException if it is neither configured ({@code sources.<name>.*}) nor named by
     *     any quarantine record, indexed document, {@code source_totals} or {@code source_roots} row; the
     *     message names it and lists the first {@link #KNOWN_SOURCES_SHOWN} known sources
     */
    public void requireKnownSource(String source) {
        if (source == null || configuredSources.contains(source) || queries.sourceInData(source)) {
            return;
        }
        java.util.SortedSet<String> known = new java.util.TreeSet<>(configuredSources);
        known.addAll(queries.sourcesInData(KNOWN_SOURCES_SHOWN + 1));
        List<String> shown = known.stream().limit(KNOWN_SOURCES_SHOWN).toList();
        String list = known.isEmpty() ? "no source is known yet (none configured, nothing recorded or indexed)"
                : "known sources: " + String.join(", ", shown.stream().map(RecordRef::bounded).toList())
                        + (known.size() > KNOWN_SOURCES_SHOWN ? ", ..." : "");
        throw new BadOperatorInputException("unknown source '" + RecordRef.bounded(source) + "'; " + list);
    }

    /**
     * Open records by (parser_version, error_class, error_fingerprint), most documents first. Cohorts whose
     * parser version is not {@link ParserVersion#CURRENT} are marked stale, cohorts holding records fingerprinted by
     * an older algorithm than {@link ErrorFingerprint#VERSION} (or before versioning) are marked too.
     *
     * @param source only this source, or null
     * @param errorClass only this class code (e.g. {@code ambiguous_parse}), or null
     * @param limit at most this many cohorts, or null for every one; the report says how many were cut
     * @return the cohorts
     * @throws BadOperatorInputException if the source or the class is unknown, or the limit is below 1
     */
    public CohortReport cohorts(String source, String errorClass, Integer limit) {
        String classCode = null;
        if (errorClass != null) {
            try {
                classCode = ErrorClass.fromCode(errorClass).code();
            } catch (IllegalArgumentException e) {
                throw new BadOperatorInputException("unknown error class '" + RecordRef.bounded(errorClass)
                        + "'; use one of " + java.util.Arrays.stream(ErrorClass.values()).map(ErrorClass::code).toList());
            }
        }
        if (limit != null && limit < 1) {
            throw new BadOperatorInputException(OperatorField.LIMIT, " must be at least 1, was " + limit);
        }
        requireKnownSource(source);
        List<CohortRow> all = queries.cohorts(source, classCode, ParserVersion.CURRENT, ErrorFingerprint.VERSION);
        List<CohortRow> shown = limit == null || limit >= all.size() ? all : all.subList(0, limit);
        return new CohortReport(ParserVersion.CURRENT, ErrorFingerprint.VERSION, all.size(), all.size() - shown.size(),
                List.copyOf(shown));
    }

    /**
     * @return coverage per source: every source with a known total, indexed documents or records, sorted,
     *     {@link #boundedTo bounded} (the shared row last)
     */
    public List<CoverageRow> coverage() {
        List<CoverageRow> rows = queries.coverage(clock.instant());
        if (unnamedSourceRows == null) {
            return rows;
        }
        java.util.SortedSet<String> present = new java.util.TreeSet<>();
        rows.forEach(r -> present.add(r.source()));
        return CoverageRows.bounded(rows, sourceRows().over(present), queries.skippedCoverage());
    }

    /** @return {@link #coverage}'s formula in words, as the page's hint prints it */
    public String coverageFormula() {
        return queries.skippedCoverage().formula();
    }

    /** @return the rows of the sources an operator named (configured, a total, a recorded root), and the cap */
    private SourceRows sourceRows() {
        return new SourceRows(org.ingestquarantine.metrics.SourceTags.of(configuredSources)
                .with(roots.all().keySet()).with(queries.sourcesWithTotals()), unnamedSourceRows);
    }

    /**
     * @param ref a dlq_id or {@code source/doc_id}
     * @return the whole record, its attempts, and whether its payload and trace are still stored
     * @throws BadOperatorInputException if no record has that name
     */
    public RecordDetail show(String ref) {
        QuarantineRecord record = find(RecordRef.parse(ref));
        String[] notes = new String[2];
        boolean payload = stored(record.payloadUri(), notes, 0);
        boolean trace = stored(record.stackTraceUri(), notes, 1);
        return new RecordDetail(RecordView.of(record), store.attempts(record.dlqId()), payload, trace, notes[0],
                notes[1]);
    }

    /**
     * Reads a record's stack trace from the payload store, its exception messages left out
     * ({@link RedactedStackTrace}: they may quote the document).
     *
     * @param ref a dlq_id or {@code source/doc_id}
     * @return the trace, types and frames only; or why it cannot be read (none recorded, erased, gone from the store,
     *     a store this process is not configured for or that does not answer)
     * @throws BadOperatorInputException if no record has that name
     */
    public StackTraceView stackTrace(String ref) {
        QuarantineRecord record = find(RecordRef.parse(ref));
        String uri = record.stackTraceUri();
        if (uri == null) {
            return new StackTraceView(record.dlqId(), null, false, record.disposition()
                    == org.ingestquarantine.quarantine.Disposition.ERASED ? "erased with the record's document"
                    : "none recorded", null);
        }
        String why;
        try {
            byte[] trace = payloads.get(uri);
            return new StackTraceView(record.dlqId(), uri, true, null,
                    RedactedStackTrace.of(new String(trace, java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.nio.file.NoSuchFileException e) {
            why = "not in the payload store (removed from it)";
        } catch (IllegalArgumentException e) {
            why = "not readable here: " + e.getMessage(); // a store this process is not configured for, naming the setting
        } catch (org.ingestquarantine.quarantine.PayloadCorruptException e) {
            why = "damaged in the payload store: " + e.getMessage();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            why = "not readable here: the payload store did not answer (" + e.getClass().getSimpleName() + ")";
        }
        return new StackTraceView(record.dlqId(), uri, false, why, null);
    }

    /**
     * @param ref a dlq_id or {@code source/doc_id}
     * @return the record it names, without its attempts or a look at its stored objects
     * @throws BadOperatorInputException if no record has that name
     */
    public RecordView record(String ref) {
        return RecordView.of(find(RecordRef.parse(ref)));
    }

    /**
     * @param ref a parsed reference
     * @return the record it names
     * @throws BadOperatorInputException if none
     */
    QuarantineRecord find(RecordRef ref) {
        Optional<QuarantineRecord> found = ref.dlqId() != null ? store.findById(ref.dlqId())
                : store.find(ref.source(), ref.docId());
        return found.orElseThrow(() -> new BadOperatorInputException("no quarantine record "
                + RecordRef.bounded(ref.toString()) + "; list records with 'cohorts' or 'overdue'"));
    }

    /** @return whether the object exists; when this process cannot tell, false, and why in {@code notes[at]} */
    private boolean stored(String uri, String[] notes, int at) {
        try {
            return uri != null && payloads.exists(uri);
        } catch (IllegalArgumentException e) {
            notes[at] = e.getMessage(); // a store this process is not configured for: the message names the setting
        } catch (java.io.UncheckedIOException e) {
            notes[at] = e.getCause().getMessage(); // the store does not answer
        }
        return false;
    }

    /**
     * Open records first seen more than {@code olderThan} ago, by the owner written on each record when it was
     * created (configuration {@code sources.<name>.owner}); records that name none are listed under
     * {@link #UNOWNED}. Reads only.
     *
     * @param olderThan retention age, 0 or more (0: every open record)
     * @return overdue records by owner, most documents first
     * @throws BadOperatorInputException if {@code olderThan} is negative
     */
    public OverdueReport overdue(Duration olderThan) {
        if (olderThan.isNegative()) {
            throw new BadOperatorInputException(OperatorField.OLDER_THAN, " must be 0 or more, was " + olderThan);
        }
        Instant cutOff = clock.instant().minus(olderThan);
        Map<String, List<OverdueCohort>> byOwner = new LinkedHashMap<>();
        for (Object[] row : queries.overdue(cutOff)) {
            String owner = row[0] == null ? UNOWNED : (String) row[0];
            byOwner.computeIfAbsent(owner, k -> new ArrayList<>()).add((OverdueCohort) row[1]);
        }
        List<OwnerOverdue> owners = new ArrayList<>();
        long total = 0;
        for (Map.Entry<String, List<OverdueCohort>> e : byOwner.entrySet()) {
            long documents = e.getValue().stream().mapToLong(OverdueCohort::documents).sum();
            Instant oldest = e.getValue().stream().map(OverdueCohort::oldestFirstSeen).min(Instant::compareTo).orElse(null);
            owners.add(new OwnerOverdue(e.getKey(), documents, oldest, List.copyOf(e.getValue())));
            total += documents;
        }
        owners.sort((a, b) -> Long.compare(b.documents(), a.documents()));
        return new OverdueReport(cutOff, total, owners);
    }
}
