package org.ingestquarantine.operator;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.Chunker;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.RepairClose;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * {@code drain}: replays a cohort from its SOURCE, never from the stored payload (DESIGN §6).
 *
 * <p>The selection is fixed when the run starts (rows of {@code drain_run_items}, written with the
 * {@code drain_runs} row in one transaction), so records joining the cohort later are not swept in. For each
 * selected record, oldest first, at the URI {@link SourceUris} names (the source's {@code base-uri} when
 * configured, else the URI the record keeps, else the folder an ingest counted): HEAD (404/410 → closed
 * {@code deleted_at_source}), GET into a work file, parse in the sandbox, chunk, embed, index behind the
 * index's version guard; success closes the record in the index write's transaction by the same rule as a later
 * delivery's index write ({@link RepairClose}): {@code repaired_content_changed} when the record's source version (etag; content sha256 for folders) or payload
 * sha256 is known and differs from what the source serves now, else {@code repaired_parser_fixed} (a record without
 * a source version, its failure having come before the fetch, is no evidence that the bytes changed), with reason
 * code {@value RepairClose#NO_CHANGE_SEEN} when the parser version is the record's too. A failure records a new
 * attempt (its fingerprint may be new) and the record stays open. Every HEAD and GET first takes a token from the
 * run's own bucket ({@code --rate}) and from the origin's shared bucket, if any, taking only its slack
 * ({@link SourceRequestThrottle#slackOnly()}: the live path keeps its reserve). Rows are never deleted. A record
 * whose source was asked again, whatever the verdict, keeps its replay history (schema V26: {@code replay_count},
 * {@code last_replayed_at}, {@code last_drain_run_id}), written with its run item's outcome.
 *
 * <p>A record this process may not ask its source about, because of ITS configuration (the source is not
 * configured here: {@code unknown_source}; the folder an ingest recorded as its root is gone:
 * {@code source_folder_missing}; the URI is outside the source's roots: {@code uri_not_allowed};
 * no URI can be formed: {@code invalid_uri}, {@code no_source_uri}; no connector reads its scheme:
 * {@code unsupported_uri}), or that names no document (its message's
 * doc_id was invalid: {@code invalid_doc_id}), is not attempted: no request, no new
 * attempt, the record stays exactly as it was, and it counts as {@code not_attempted:<reason>} with one
 * explanation per reason in the report.
 *
 * <p>Interrupting the calling thread stops the run between documents: the document in hand finishes its one
 * closing or recording write, the rest stay open as before and count as {@code not_tried}; the run row says
 * {@code interrupted}. A kill leaves each record closed or open as before, too (each is changed by one
 * commit), with the run row {@code running}.
 *
 * <p>The parts: {@link DrainCohort} (the selection), {@link DrainRuns} (the run's rows), {@link DrainReplay} (one
 * record, after its {@link ReplayPreflight}), {@link DrainTally} (the counts) and {@link DrainForecast} (a canary's).
 */
public final class Drain {

    /** Prefix of the outcome of a record this process could not ask its source about; the record is unchanged. */
    public static final String NOT_ATTEMPTED = "not_attempted:";

    /**
     * Status of a run that attempted none of its selection (every record {@value #NOT_ATTEMPTED}{@code <reason>}):
     * nothing was asked of a source, so it does not count as a drain (the no-drain age ignores it).
     */
    public static final String NOTHING_ATTEMPTED = "nothing_attempted";

    private final DrainRuns runs;
    private final DrainReplay replay;
    private final double headroomPercent;

    private Drain(Builder b) {
        Clock clock = b.clock == null ? Clock.systemUTC() : b.clock;
        this.replay = new DrainReplay(b, clock);
        this.runs = new DrainRuns(b.dataSource, clock);
        this.headroomPercent = b.headroomPercent;
    }

    /** @return a builder; every setter but {@code shared} and {@code clock} is required */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * What to drain.
     *
     * @param fingerprint the cohort's error fingerprint
     * @param parserVersion only records of this parser version, or null
     * @param errorClass only this error class code, or null
     * @param limit most records to select, at least 1 (a canary is a small limit)
     * @param ratePerSecond most source requests per second, positive
     * @param startedBy who runs it (user name), recorded in {@code drain_runs}
     * @param source only records of this source, or null for every source
     */
    public record Request(String fingerprint, String parserVersion, String errorClass, int limit,
                          double ratePerSecond, String startedBy, String source) {

        /** A request over every source of the cohort. */
        public Request(String fingerprint, String parserVersion, String errorClass, int limit, double ratePerSecond,
                       String startedBy) {
            this(fingerprint, parserVersion, errorClass, limit, ratePerSecond, startedBy, null);
        }

        /** @throws BadOperatorInputException if a value cannot be right */
        public void check() {
            if (fingerprint == null || fingerprint.isBlank()) {
                throw new BadOperatorInputException(OperatorField.FINGERPRINT, " is required");
            }
            if (limit < 1) {
                throw new BadOperatorInputException(OperatorField.LIMIT, " must be at least 1, was " + limit);
            }
            if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
                throw new BadOperatorInputException(OperatorField.RATE, " must be a positive number of source requests per second,"
                        + " was " + ratePerSecond);
            }
            if (errorClass != null) {
                try {
                    ErrorClass.fromCode(errorClass);
                } catch (IllegalArgumentException e) {
                    throw new BadOperatorInputException("unknown error class '" + RecordRef.bounded(errorClass) + "'");
                }
            }
        }
    }

    /**
     * Runs a drain to its end or until the thread is interrupted.
     *
     * @param request what to drain
     * @param progress told the records done after each one (for a progress bar); may do nothing
     * @return the counts per outcome, summing to the selection, and a forecast when it was a canary
     * @throws BadOperatorInputException if the request is malformed or no open record matches; nothing written
     * @throws DatabaseAccessException if the database fails; records already handled keep their outcome
     */
    public DrainReport run(Request request, Progress progress) {
        return run(request, null, progress);
    }

    /**
     * Runs a drain, as {@link #run(Request, Progress)}, of a cohort a preview counted: refused, writing nothing, unless
     * the cohort holds exactly {@code expectedCohort} open records when the selection is fixed (in the transaction
     * that fixes it).
     *
     * @param request what to drain
     * @param expectedCohort the open records a preview counted in the cohort, or null for any number
     * @param progress told the records done after each one; may do nothing
     * @return the counts per outcome, summing to the selection, and a forecast when it was a canary
     * @throws ActionRefusedException if the cohort's count is not {@code expectedCohort}; nothing written
     * @throws BadOperatorInputException if the request is malformed or no open record matches; nothing written
     * @throws DatabaseAccessException if the database fails; records already handled keep their outcome
     */
    public DrainReport run(Request request, Integer expectedCohort, Progress progress) {
        request.check();
        return new DrainRun(runs, replay, headroomPercent).run(request, expectedCohort, progress);
    }

    /** Told after each record of a run. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param done records tried so far
         * @param selected records in the run's selection
         */
        void update(int done, int selected);
    }

    /**
     * Checks that the request selects something before a drain is built: building one starts the parse workers
     * and loads the embedding model (seconds), which an unknown fingerprint should not wait for.
     *
     * @param dataSource a pool on the migrated schema
     * @param request what to drain
     * @return open records in the cohort now, at least 1
     * @throws BadOperatorInputException if the request is malformed or no open record matches; nothing written
     * @throws DatabaseAccessException if the database fails
     */
    public static int requireCohort(DataSource dataSource, Request request) {
        return DrainCohort.require(dataSource, request);
    }

    /** Assembles a {@link Drain}. */
    public static final class Builder {
        DataSource dataSource;
        QuarantineStore store;
        Map<String, SourceConnector> connectors = Map.of();
        SourceAccess access;
        Map<String, Path> missingRoots = Map.of();
        DocumentParser parser;
        Chunker chunker;
        Embedder embedder;
        DocumentIndex index;
        PipelineVersions versions;
        Function<String, Optional<URI>> baseUris;
        Function<String, Optional<URI>> fallbackUris = source -> Optional.empty();
        SourceRequestThrottle shared;
        double headroomPercent;
        Path workDir;
        long maxBytes = Long.MAX_VALUE;
        Clock clock;

        private Builder() {
        }

        /** @param v the database, with {@code store} on it */
        public Builder database(DataSource v, QuarantineStore s) {
            dataSource = v;
            store = s;
            return this;
        }

        /** @param v where each source's documents may live, the same the live pipeline checks */
        public Builder access(SourceAccess v) {
            return access(v, Map.of());
        }

        /**
         * @param v where each source's documents may live, the same the live pipeline checks
         * @param missing source → the folder an ingest recorded as its root that no longer exists (left out of
         *     {@code v}; {@link org.ingestquarantine.ingest.SourceRoots#missing}): its records are
         *     {@code not_attempted:source_folder_missing}, naming the folder
         */
        public Builder access(SourceAccess v, Map<String, Path> missing) {
            access = v;
            missingRoots = Map.copyOf(missing);
            return this;
        }

        /** @param v connectors by URI scheme, the same the live pipeline uses */
        public Builder connectors(Map<String, SourceConnector> v) {
            connectors = v;
            return this;
        }

        /** The running parse, chunk, embed and index, and their versions. */
        public Builder pipeline(DocumentParser p, Chunker c, Embedder e, DocumentIndex i, PipelineVersions v) {
            parser = p;
            chunker = c;
            embedder = e;
            index = i;
            versions = v;
            return this;
        }

        /**
         * @param v a source's configured {@code sources.<name>.base-uri}, empty if none: when present, a record of
         *     the source is asked for at {@code <base URI><doc_id>}, over the URI the record keeps (an override)
         */
        public Builder baseUris(Function<String, Optional<URI>> v) {
            baseUris = v;
            return this;
        }

        /**
         * @param v where a source's doc_ids resolve ({@code <base URI><doc_id>}) for a record that keeps no URI
         *     (written before records kept it, or its URI was refused), e.g. the folder an ingest counted; empty if
         *     unknown (default: always empty)
         */
        public Builder fallbackUris(Function<String, Optional<URI>> v) {
            fallbackUris = Objects.requireNonNull(v, "fallbackUris");
            return this;
        }

        /**
         * @param v the origins' shared ceiling (default: none beyond the run's own rate); the drain takes only its
         *     slack
         * @param headroom the run's own spacing headroom, percent (property
         *     {@value SourceRequestThrottle#HEADROOM_PROPERTY}; default 0)
         */
        public Builder throttle(SourceRequestThrottle v, double headroom) {
            shared = v;
            headroomPercent = headroom;
            return this;
        }

        /** @param dir folder for work files; @param max largest document accepted, bytes */
        public Builder work(Path dir, long max) {
            workDir = dir;
            maxBytes = max;
            return this;
        }

        /** @param v the time of closings and runs (default: system UTC) */
        public Builder clock(Clock v) {
            clock = v;
            return this;
        }

        /** @return the drain */
        public Drain build() {
            return new Drain(this);
        }
    }
}
