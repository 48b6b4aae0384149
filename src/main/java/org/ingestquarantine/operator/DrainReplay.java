package org.ingestquarantine.operator;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.ingest.Chunker;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.ingest.IndexWriteException;
import org.ingestquarantine.ingest.IndexedChunk;
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
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One record of a drain, replayed from its source ({@link Drain}): after the {@link ReplayPreflight}, HEAD
 * (404/410 → closed {@code deleted_at_source}), GET into a work file, parse, chunk, embed, and the index write with
 * the record's closing ({@link RepairClose}) in one transaction; a failure records a new attempt and the record stays
 * open. Every request first takes a token from the run's bucket and from the origin's shared one.
 */
final class DrainReplay {

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final QuarantineStore store;
    private final ReplayPreflight preflight;
    private final SourceAccess access;
    private final DocumentParser parser;
    private final Chunker chunker;
    private final Embedder embedder;
    private final DocumentIndex index;
    private final PipelineVersions versions;
    private final SourceRequestThrottle shared;
    private final Path workDir;
    private final long maxBytes;
    private final Clock clock;
    private final ErrorClassifier classifier = ErrorTaxonomy.standard();

    DrainReplay(Drain.Builder b, Clock clock) {
        this.jdbc = OperatorSql.jdbc(Objects.requireNonNull(b.dataSource, "dataSource"));
        this.transactions = OperatorSql.transactions(b.dataSource);
        this.store = Objects.requireNonNull(b.store, "store");
        this.access = Objects.requireNonNull(b.access, "access");
        this.preflight = new ReplayPreflight(Map.copyOf(b.connectors), access, b.missingRoots,
                new SourceUris(Objects.requireNonNull(b.baseUris, "baseUris"), b.fallbackUris));
        this.parser = Objects.requireNonNull(b.parser, "parser");
        this.chunker = Objects.requireNonNull(b.chunker, "chunker");
        this.embedder = Objects.requireNonNull(b.embedder, "embedder");
        this.index = Objects.requireNonNull(b.index, "index");
        this.versions = Objects.requireNonNull(b.versions, "versions");
        this.shared = b.shared == null ? SourceRequestThrottle.unlimited() : b.shared.slackOnly();
        this.workDir = Objects.requireNonNull(b.workDir, "workDir");
        this.maxBytes = b.maxBytes;
        this.clock = clock;
    }

    /**
     * @param own the run's own bucket
     * @param tally counts the requests made and keeps a not-attempted record's explanation
     * @param by told the evidence that decided a repaired record's verdict
     * @return the record's outcome
     * @throws InterruptedException if the thread was interrupted while the source was asked; the record is as before
     */
    String replay(String runId, String dlqId, SourceRequestThrottle own, DrainTally tally,
                  AtomicReference<RepairClose.Evidence> by) throws InterruptedException {
        QuarantineRecord record = store.findById(dlqId).orElseThrow();
        if (record.disposition() != Disposition.OPEN) {
            return "already_closed";
        }
        ReplayPreflight.Verdict verdict = preflight.check(record, tally);
        if (verdict.notAttempted() != null) {
            return verdict.notAttempted();
        }
        URI uri = verdict.uri();
        SourceConnector connector = verdict.connector();
        Path work = null;
        FetchedDocument fetched = null;
        String stage = "preflight";
        try {
            take(own, uri, tally);
            try {
                connector.head(uri, access.guard(record.source()));
            } catch (NoSuchFileException gone) {
                return deletedAtSource(record);
            }
            stage = "fetch";
            Files.createDirectories(workDir);
            work = Files.createTempFile(workDir, "drain-", ".bin");
            take(own, uri, tally);
            try {
                fetched = connector.fetch(uri, work, maxBytes, access.guard(record.source()));
            } catch (NoSuchFileException gone) {
                return deletedAtSource(record);
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
            QuarantineRecord after = recordFailure(runId, record, uri, verdict.admitted(), fetched, stage, e);
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

    private String deletedAtSource(QuarantineRecord record) {
        store.close(record.source(), record.docId(), Disposition.DELETED_AT_SOURCE, "not_found", record.owner());
        return Disposition.DELETED_AT_SOURCE.code();
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
            Optional<RepairClose.Closed> closed = transactions.execute(tx -> jdbc.execute(
                    (ConnectionCallback<Optional<RepairClose.Closed>>) c -> {
                        index.write(c, document);
                        return RepairClose.close(c, document, clock.instant().truncatedTo(ChronoUnit.MICROS));
                    }));
            closed.ifPresent(x -> by.set(x.by()));
            return closed.map(RepairClose.Closed::disposition).orElse("already_closed");
        } catch (DataAccessException | TransactionException e) {
            Throwable cause = OperatorSql.sqlCause(e);
            throw new IndexWriteException("document " + LogSafe.identity(record.source()) + "/"
                    + LogSafe.identity(record.docId()) + " was neither indexed nor closed (" + OperatorSql.describe(e)
                    + "); its record stays open", cause != null ? cause : e);
        }
    }

    private void take(SourceRequestThrottle own, URI uri, DrainTally tally) throws InterruptedException {
        own.acquire(uri);
        shared.acquire(uri);
        tally.requested();
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
}
