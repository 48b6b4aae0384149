package org.ingestquarantine.operator;

import com.github.f4b6a3.ulid.UlidCreator;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.ingest.Chunker;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexWriteException;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.ingest.RepairClose;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.TextChunk;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.QuarantineRecord;
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
 */
public final class Drain {

    private final DataSource dataSource;
    private final QuarantineStore store;
    private final Map<String, SourceConnector> connectors;
    private final DocumentParser parser;
    private final Chunker chunker;
    private final Embedder embedder;
    private final DocumentIndex index;
    private final PipelineVersions versions;
    private final SourceUris uris;
    private final SourceRequestThrottle shared;
    private final SourceAccess access;
    private final Map<String, Path> missingRoots;
    private final double headroomPercent;
    private final Path workDir;
    private final long maxBytes;
    private final Clock clock;
    private final ErrorClassifier classifier = ErrorTaxonomy.standard();

    /** Prefix of the outcome of a record this process could not ask its source about; the record is unchanged. */
    public static final String NOT_ATTEMPTED = "not_attempted:";

    /**
     * Status of a run that attempted none of its selection (every record {@value #NOT_ATTEMPTED}{@code <reason>}):
     * nothing was asked of a source, so it does not count as a drain (the no-drain age ignores it).
     */
    public static final String NOTHING_ATTEMPTED = "nothing_attempted";

    /** Reason of {@value #NOT_ATTEMPTED} when no URI is known for the record's source. */
    static final String NO_SOURCE_URI = "no_source_uri";

    /** Reason of {@value #NOT_ATTEMPTED} when the record's URI has a scheme no connector of this process reads. */
    static final String UNSUPPORTED_URI = "unsupported_uri";

    /**
     * Reason of {@value #NOT_ATTEMPTED} for a record of a message whose doc_id was invalid (doc_id
     * {@value RecordKey#INVALID_DOC_ID_PREFIX}{@code <digest of the doc_id>}): there is no document to ask the source for.
     */
    static final String INVALID_DOC_ID = "invalid_doc_id";

    /** Reason of {@value #NOT_ATTEMPTED} when the folder an ingest recorded as the source's root is gone. */
    static final String SOURCE_FOLDER_MISSING = "source_folder_missing";

    /** Refusals of this process's source configuration (DESIGN §9), not of the document. */
    private static final java.util.Set<String> CONFIGURATION_REASONS = java.util.Set.of("unknown_source",
            "uri_not_allowed", "invalid_uri");

    private Drain(Builder b) {
        this.dataSource = Objects.requireNonNull(b.dataSource, "dataSource");
        this.store = Objects.requireNonNull(b.store, "store");
        this.connectors = Map.copyOf(b.connectors);
        this.access = Objects.requireNonNull(b.access, "access");
        this.missingRoots = b.missingRoots;
        this.parser = Objects.requireNonNull(b.parser, "parser");
        this.chunker = Objects.requireNonNull(b.chunker, "chunker");
        this.embedder = Objects.requireNonNull(b.embedder, "embedder");
        this.index = Objects.requireNonNull(b.index, "index");
        this.versions = Objects.requireNonNull(b.versions, "versions");
        this.uris = new SourceUris(Objects.requireNonNull(b.baseUris, "baseUris"), b.fallbackUris);
        this.shared = b.shared == null ? SourceRequestThrottle.unlimited() : b.shared.slackOnly();
        this.headroomPercent = b.headroomPercent;
        this.workDir = Objects.requireNonNull(b.workDir, "workDir");
        this.maxBytes = b.maxBytes;
        this.clock = b.clock == null ? Clock.systemUTC() : b.clock;
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
        long started = System.nanoTime();
        String runId = UlidCreator.getMonotonicUlid().toString();
        Selection selection = select(runId, request, expectedCohort);
        SourceRequestThrottle own = SourceRequestThrottle.local(request.ratePerSecond(), headroomPercent);
        AtomicLong requests = new AtomicLong();
        Map<String, Long> outcomes = new TreeMap<>();
        Map<String, String> notAttempted = new TreeMap<>();
        Map<String, Long> verdicts = new TreeMap<>();
        boolean interrupted = false;
        int done = 0;
        for (String dlqId : selection.dlqIds()) {
            String outcome;
            AtomicReference<RepairClose.Evidence> by = new AtomicReference<>();
            long asked = requests.get();
            if (interrupted || Thread.currentThread().isInterrupted()) {
                interrupted = true;
                outcome = "not_tried";
            } else {
                try {
                    outcome = drainOne(runId, dlqId, own, requests, notAttempted, by);
                } catch (InterruptedException e) {
                    interrupted = true;
                    outcome = "not_tried";
                }
                done++;
                progress.update(done, selection.dlqIds().size());
            }
            outcomes.merge(outcome, 1L, Long::sum);
            if (by.get() != null) {
                verdicts.merge(outcome + " by=" + by.get().code(), 1L, Long::sum);
            }
            // a record is replayed when its source was asked again, whatever came of it
            markItem(runId, dlqId, outcome, by.get(), requests.get() > asked);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        DrainReport.Forecast forecast = selection.dlqIds().size() < selection.cohortDocuments()
                ? forecast(selection, outcomes, requests.get(),
                        SourceRequestThrottle.spacing(request.ratePerSecond(), headroomPercent)) : null;
        finish(runId, interrupted, outcomes, requests.get());
        return new DrainReport(runId, selection.cohortDocuments(), selection.dlqIds().size(), outcomes, requests.get(),
                elapsed, interrupted, forecast, notAttempted, verdicts);
    }

    /** @param by told the evidence that decided a repaired record's verdict */
    private String drainOne(String runId, String dlqId, SourceRequestThrottle own, AtomicLong requests,
                            Map<String, String> notAttempted, AtomicReference<RepairClose.Evidence> by)
            throws InterruptedException {
        QuarantineRecord record = store.findById(dlqId).orElseThrow();
        if (record.disposition() != Disposition.OPEN) {
            return "already_closed";
        }
        if (RecordKey.isInvalidDocId(record.docId())) {
            return notAttempted(INVALID_DOC_ID, "the message's doc_id was not a valid identity (too long, a control"
                    + " character), so no document can be asked of the source; the record is keyed by a digest of it."
                    + " Rename the file (or fix the producer) and ingest again; the record stays open until disposed"
                    + " (dispose --fingerprint ... --unindexable) or erased", notAttempted);
        }
        Path missingRoot = missingRoots.get(record.source());
        if (missingRoot != null) {
            return notAttempted(SOURCE_FOLDER_MISSING, "the folder " + LogSafe.identity(missingRoot.toString())
                    + " that ingest recorded for source '" + LogSafe.identity(record.source()) + "' no longer exists"
                    + " (deleted or moved); ingest the folder where it is now with this --data-dir, or configure sources."
                    + LogSafe.identity(record.source()) + ".file-roots", notAttempted);
        }
        Optional<URI> uri = uris.of(record);
        if (uri.isEmpty()) {
            return notAttempted(NO_SOURCE_URI, "this process knows no URI for source '"
                    + LogSafe.identity(record.source()) + "' (the record keeps none: it was written before records"
                    + " kept their URI, or its URI was refused; configure sources." + LogSafe.identity(record.source())
                    + ".base-uri, or ingest its folder with this --data-dir)", notAttempted);
        }
        String scheme = uri.get().getScheme();
        SourceConnector connector = scheme == null ? null : connectors.get(scheme);
        if (connector == null) {
            return notAttempted(UNSUPPORTED_URI, "this process has no connector for the record's URI "
                    + LogSafe.identity(uri.get().toString()) + "; it reads " + connectors.keySet().stream().sorted()
                    .toList(), notAttempted);
        }
        // this process's configuration must allow the source before anything is asked of it (it may have narrowed
        // since the record was written): a refusal is about the configuration, not the document, and must not
        // become the record's evidence
        boolean admitted = false;
        try {
            access.guard(record.source()).check(uri.get());
            admitted = true;
        } catch (PermanentInputException refused) {
            if (CONFIGURATION_REASONS.contains(refused.reasonCode())) {
                return notAttempted(refused.reasonCode(), refused.getMessage() + ("unknown_source".equals(refused.reasonCode())
                        ? " (or ingest its folder again with this --data-dir: ingest records the folder for later drains)"
                        : ""), notAttempted);
            }
        } catch (IOException | RuntimeException askedTheSource) {
            // a file missing inside the roots, a host that does not resolve: the source's answer, asked below
        }
        Path work = null;
        FetchedDocument fetched = null;
        String stage = "preflight";
        try {
            take(own, uri.get(), requests);
            try {
                connector.head(uri.get(), access.guard(record.source()));
            } catch (NoSuchFileException gone) {
                store.close(record.source(), record.docId(), Disposition.DELETED_AT_SOURCE, "not_found", record.owner());
                return Disposition.DELETED_AT_SOURCE.code();
            }
            stage = "fetch";
            Files.createDirectories(workDir);
            work = Files.createTempFile(workDir, "drain-", ".bin");
            take(own, uri.get(), requests);
            try {
                fetched = connector.fetch(uri.get(), work, maxBytes, access.guard(record.source()));
            } catch (NoSuchFileException gone) {
                store.close(record.source(), record.docId(), Disposition.DELETED_AT_SOURCE, "not_found", record.owner());
                return Disposition.DELETED_AT_SOURCE.code();
            }
            stage = "parse";
            ParsedDocument parsed = parser.parse(fetched.file());
            stage = "chunk";
            List<TextChunk> chunks = chunker.chunk(parsed.pageTexts());
            stage = "embed";
            List<float[]> vectors = embedder.embed(chunks.stream().map(TextChunk::text).toList());
            List<IndexedChunk> rows = new ArrayList<>(chunks.size());
            for (int i = 0; i < chunks.size(); i++) {
                TextChunk c = chunks.get(i);
                rows.add(new IndexedChunk(c.seq(), c.text(), vectors.get(i), c.pageFrom(), c.pageTo()));
            }
            stage = "index";
            IndexedDocument document = new IndexedDocument(record.source(), record.docId(), fetched.sourceVersion(),
                    fetched.sourceUpdatedAt(), fetched.sha256(), versions.parser(), versions.chunker(),
                    versions.embedder(), parsed.pageCount(), rows);
            return indexAndClose(document, record, by);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            if (Thread.currentThread().isInterrupted() || e instanceof java.io.InterruptedIOException) {
                throw new InterruptedException("drain interrupted while asking the source");
            }
            QuarantineRecord after = recordFailure(runId, record, uri.get(), admitted, fetched, stage, e);
            return "still_failing:" + after.errorFingerprint();
        } finally {
            if (work != null) {
                try {
                    Files.deleteIfExists(work);
                } catch (IOException ignored) {
                    // a leftover work file is harmless
                }
            }
        }
    }

    /**
     * The index write (behind its version guard) and the record's closing in ONE transaction: an interrupted or
     * failing drain never leaves an indexed document with an open record, nor a closed record without its index row.
     * The record is closed by {@link RepairClose}, the rule the live index write closes records by: a version or
     * payload sha256 the record does not hold is no evidence that the bytes changed.
     *
     * @return the record's disposition code now ({@code repaired_content_changed} or {@code repaired_parser_fixed}),
     *     or {@code already_closed} when it was no longer open (closed by someone else since it was read; the
     *     document is indexed all the same)
     */
    private String indexAndClose(IndexedDocument document, QuarantineRecord record,
                                 AtomicReference<RepairClose.Evidence> by) {
        index.validate(document);
        try {
            Optional<RepairClose.Closed> closed = new Jdbc(dataSource).inTransaction(c -> {
                index.write(c, document);
                return RepairClose.close(c, document, now());
            });
            closed.ifPresent(x -> by.set(x.by()));
            return closed.map(RepairClose.Closed::disposition).orElse("already_closed");
        } catch (SQLException e) {
            throw new IndexWriteException("document " + LogSafe.identity(record.source()) + "/"
                    + LogSafe.identity(record.docId()) + " was neither indexed nor closed (" + SqlFailure.describe(e)
                    + "); its record stays open", e);
        }
    }

    /** @return the outcome {@code not_attempted:<reason>}; the first explanation of each reason is kept */
    private static String notAttempted(String reason, String why, Map<String, String> explanations) {
        String outcome = NOT_ATTEMPTED + reason;
        explanations.putIfAbsent(outcome, why);
        return outcome;
    }

    private void take(SourceRequestThrottle own, URI uri, AtomicLong requests) throws InterruptedException {
        own.acquire(uri);
        shared.acquire(uri);
        requests.incrementAndGet();
    }

    /**
     * @param asked the URI the source was asked at
     * @param admitted whether this process's trust check admitted it: only then does the attempt keep it
     */
    private QuarantineRecord recordFailure(String runId, QuarantineRecord record, URI asked, boolean admitted,
                                           FetchedDocument fetched, String stage, Exception failure) {
        Classification c = classifier.classify(failure);
        // the error fields by the ingest route's rule (QuarantineRecorder): the root cause first, a worker's
        // RemoteCause by the worker's type, so a drain attempt keeps the evidence ingest recorded
        FailureEvidence.Builder e = FailureEvidence.builder(record.source(), record.docId())
                .stage(stage).errorClass(c.errorClass()).failure(failure, c.cause()).reasonCode(c.reasonCode())
                .deliveryKey("drain/" + runId + "/" + record.dlqId()).deliveryCount(1)
                .sourceUri(admitted ? asked.toString() : null)
                .connectorVersion(versions.connectorFor(asked)).parserVersion(versions.parser())
                .chunkerVersion(versions.chunker()).embedderVersion(versions.embedder());
        if (fetched != null) {
            e.sourceVersion(fetched.sourceVersion()).sourceUpdatedAt(fetched.sourceUpdatedAt())
                    .contentType(fetched.contentType()).payload(fetched.file());
        }
        return store.record(e.build());
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

    private record Selection(int cohortDocuments, List<String> dlqIds) {
    }

    /** @return the WHERE clause of the request's cohort (open records), its parameters bound by {@link #bind} */
    static String cohortWhere(Request r) {
        return " WHERE disposition = 'open' AND error_fingerprint = ?"
                + (r.parserVersion() == null ? "" : " AND parser_version = ?")
                + (r.errorClass() == null ? "" : " AND error_class = ?")
                + (r.source() == null ? "" : " AND source = ?");
    }

    private static BadOperatorInputException noSuchCohort(Request r) {
        return CohortSelection.of(r).matchesNothing();
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
        request.check();
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT count(*) FROM quarantine" + cohortWhere(request))) {
            bind(s, request);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                if (rs.getInt(1) == 0) {
                    throw noSuchCohort(request);
                }
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw failure("the cohort could not be read", e);
        }
    }

    private Selection select(String runId, Request r, Integer expectedCohort) {
        String where = cohortWhere(r);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                int cohort;
                try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM quarantine" + where)) {
                    bind(s, r);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        cohort = rs.getInt(1);
                    }
                }
                if (expectedCohort != null && cohort != expectedCohort) {
                    c.rollback();
                    throw ActionRefusedException.countChanged(cohort, expectedCohort);
                }
                if (cohort == 0) {
                    c.rollback();
                    throw noSuchCohort(r);
                }
                List<String> ids = new ArrayList<>();
                try (PreparedStatement s = c.prepareStatement("SELECT dlq_id FROM quarantine" + where
                        + " ORDER BY first_seen_at, dlq_id LIMIT ?")) {
                    int next = bind(s, r);
                    s.setInt(next, r.limit());
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getString(1));
                        }
                    }
                }
                try (PreparedStatement s = c.prepareStatement("INSERT INTO drain_runs (run_id, started_by, started_at,"
                        + " error_fingerprint, parser_version, error_class, limit_documents, rate_per_s,"
                        + " cohort_documents, selected) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    s.setString(1, runId);
                    s.setString(2, r.startedBy() == null ? "unknown" : r.startedBy());
                    SqlTime.set(s, 3, now());
                    s.setString(4, r.fingerprint());
                    s.setString(5, r.parserVersion());
                    s.setString(6, r.errorClass());
                    s.setInt(7, r.limit());
                    s.setDouble(8, r.ratePerSecond());
                    s.setInt(9, cohort);
                    s.setInt(10, ids.size());
                    s.executeUpdate();
                }
                try (PreparedStatement s = c.prepareStatement(
                        "INSERT INTO drain_run_items (run_id, dlq_id) SELECT ?, unnest(?::text[])")) {
                    s.setString(1, runId);
                    s.setArray(2, c.createArrayOf("text", ids.toArray()));
                    s.executeUpdate();
                }
                c.commit();
                return new Selection(cohort, List.copyOf(ids));
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw failure("the drain did not start", e);
        }
    }

    /** @return the next parameter index after binding {@link #cohortWhere}'s parameters */
    static int bind(PreparedStatement s, Request r) throws SQLException {
        int i = 1;
        s.setString(i++, r.fingerprint().trim());
        if (r.parserVersion() != null) {
            s.setString(i++, r.parserVersion());
        }
        if (r.errorClass() != null) {
            s.setString(i++, ErrorClass.fromCode(r.errorClass()).code());
        }
        if (r.source() != null) {
            s.setString(i++, r.source());
        }
        return i;
    }

    /**
     * Writes the item's outcome and, for a record the run replayed, its replay history (schema V26: one more
     * {@code replay_count}, {@code last_replayed_at} now, {@code last_drain_run_id} this run), in one transaction.
     *
     * @param replayed whether the record's source was asked again (a HEAD or GET was made for it)
     */
    private void markItem(String runId, String dlqId, String outcome, RepairClose.Evidence by, boolean replayed) {
        try {
            new Jdbc(dataSource).inTransaction(c -> {
                Jdbc.update(c, "UPDATE drain_run_items SET outcome = ?, verdict_by = ? WHERE run_id = ? AND dlq_id = ?",
                        outcome, by == null ? null : by.code(), runId, dlqId);
                return replayed ? Jdbc.update(c, "UPDATE quarantine SET replay_count = replay_count + 1,"
                        + " last_replayed_at = ?, last_drain_run_id = ? WHERE dlq_id = ?", now(), runId, dlqId) : 0;
            });
        } catch (SQLException e) {
            throw failure("the outcome of " + dlqId + " in drain run " + runId + " was not written", e);
        }
    }

    private void finish(String runId, boolean interrupted, Map<String, Long> outcomes, long requests) {
        StringBuilder json = new StringBuilder("{");
        outcomes.forEach((k, v) -> json.append(json.length() > 1 ? "," : "").append('"')
                .append(k.replace("\\", "\\\\").replace("\"", "\\\"")).append("\":").append(v));
        json.append('}');
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "UPDATE drain_runs SET finished_at = ?, status = ?, outcome_counts = ?::jsonb, source_requests = ?"
                        + " WHERE run_id = ?")) {
            SqlTime.set(s, 1, now());
            s.setString(2, interrupted ? "interrupted" : DrainReport.attemptedNone(outcomes) ? NOTHING_ATTEMPTED
                    : "finished");
            s.setString(3, json.toString());
            s.setLong(4, requests);
            s.setString(5, runId);
            s.executeUpdate();
        } catch (SQLException e) {
            throw failure("drain run " + runId + " was not closed (its records are)", e);
        }
    }

    /**
     * @param spacing the run's time between two source requests, its rate's headroom included (the throttle's
     *     own figure, so the forecast time is what a drain at that rate takes: one spacing per request)
     */
    private static DrainReport.Forecast forecast(Selection selection, Map<String, Long> outcomes, long requests,
                                                 Duration spacing) {
        long tried = selection.dlqIds().size() - outcomes.getOrDefault("not_tried", 0L) - outcomes.entrySet().stream()
                .filter(e -> e.getKey().startsWith(NOT_ATTEMPTED)).mapToLong(Map.Entry::getValue).sum();
        long closed = outcomes.getOrDefault("repaired_parser_fixed", 0L)
                + outcomes.getOrDefault("repaired_content_changed", 0L) + outcomes.getOrDefault("deleted_at_source", 0L);
        double perDocument = tried == 0 ? 2.0 : (double) requests / tried;
        long expectedRequests = Math.round(perDocument * selection.cohortDocuments());
        double share = tried == 0 ? 0.0 : (double) closed / tried;
        double[] interval = wilson(closed, tried);
        return new DrainReport.Forecast(selection.cohortDocuments(), expectedRequests,
                spacing.multipliedBy(expectedRequests), share, interval[0], interval[1]);
    }

    /** 95% Wilson score interval of a share {@code k/n}; [0, 1] when n is 0. */
    static double[] wilson(long k, long n) {
        if (n == 0) {
            return new double[] {0.0, 1.0};
        }
        double z = 1.959964;
        double p = (double) k / n;
        double denominator = 1 + z * z / n;
        double centre = (p + z * z / (2.0 * n)) / denominator;
        double half = z * Math.sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / denominator;
        return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static DatabaseAccessException failure(String what, SQLException e) {
        return new DatabaseAccessException(what + " (" + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
    }

    /** Assembles a {@link Drain}. */
    public static final class Builder {
        private DataSource dataSource;
        private QuarantineStore store;
        private Map<String, SourceConnector> connectors = Map.of();
        private SourceAccess access;
        private Map<String, Path> missingRoots = Map.of();
        private DocumentParser parser;
        private Chunker chunker;
        private Embedder embedder;
        private DocumentIndex index;
        private PipelineVersions versions;
        private Function<String, Optional<URI>> baseUris;
        private Function<String, Optional<URI>> fallbackUris = source -> Optional.empty();
        private SourceRequestThrottle shared;
        private double headroomPercent;
        private Path workDir;
        private long maxBytes = Long.MAX_VALUE;
        private Clock clock;

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
