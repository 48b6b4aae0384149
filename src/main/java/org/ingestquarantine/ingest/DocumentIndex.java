package org.ingestquarantine.ingest;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.failure.DownstreamContractException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;

/**
 * The search index in PostgreSQL: tables {@code documents} (one row per source and document) and
 * {@code chunks} (text, {@code real[]} embedding, page range).
 *
 * <p>{@link #index(IndexedDocument, Long)} is ONE statement (one round trip, one commit, with the close of the
 * delivery's attempt): it rejects a stale write and skips an unchanged one, judged on the document's row under
 * its lock, and otherwise replaces the chunks; the row becomes {@link DocumentState#SEARCHABLE} in the same
 * statement that writes every chunk, so a reader never sees a searchable document with missing chunks.
 * A document that has an OPEN quarantine record (an earlier delivery failed) is written in one transaction of
 * three statements and a commit instead, which also closes that record (repaired: the document is indexed now;
 * {@code repaired_content_changed} or {@code repaired_parser_fixed} by {@link RepairClose}'s rule, the drain's
 * too), so no indexed document keeps an open record; a document without one costs the single statement.
 * Thread-safe.
 */
public final class DocumentIndex {

    private final int vectorDims;
    private final JdbcTemplate jdbc;
    private final IndexAdmission admission;
    private final IndexStatement statement;
    private final ClosingWrite closingWrite;
    private final IndexReads reads;

    /**
     * @param dataSource a pool on the migrated schema
     * @param vectorDims width every embedding must have, e.g. 384 for all-MiniLM-L6-v2; positive
     * @throws IllegalArgumentException if {@code vectorDims} is not positive
     */
    public DocumentIndex(DataSource dataSource, int vectorDims) {
        if (vectorDims <= 0) {
            throw new IllegalArgumentException("vectorDims must be positive, was " + vectorDims);
        }
        this.vectorDims = vectorDims;
        this.jdbc = SpringJdbc.template(dataSource);
        this.admission = new IndexAdmission(jdbc, vectorDims);
        this.statement = new IndexStatement(vectorDims);
        this.closingWrite = new ClosingWrite(statement, dataSource);
        this.reads = new IndexReads(jdbc);
    }

    /** @return the embedding width this index accepts */
    public int vectorDims() {
        return vectorDims;
    }

    /**
     * Writes a document and its chunks, replacing any earlier version, and closes the document's open
     * quarantine record if it has one (as {@link #index(IndexedDocument, Long)}).
     *
     * @param document the document; at least one chunk, distinct seq numbers
     * @return {@link IndexOutcome#STALE_REJECTED} if the stored row has a later {@code source_updated_at};
     *         {@link IndexOutcome#UNCHANGED} if the same source version is already searchable with the same
     *         parser, chunker and embedder versions; else {@link IndexOutcome#INDEXED}
     * @throws DownstreamContractException (reason {@code vector_width}) if an embedding's width differs from
     *         {@link #vectorDims()}; nothing is written
     * @throws IllegalArgumentException if the document has no chunks, duplicate seq numbers or a bad page range
     * @throws IndexWriteException if the database fails; nothing was committed
     */
    public IndexOutcome index(IndexedDocument document) {
        return index(document, null);
    }

    /**
     * Writes a document and its chunks, replacing any earlier version, and closes the delivery's attempt in the
     * attempt journal in the same statement (one round trip, one commit): {@code indexed} if the document was
     * written, {@code skipped} if it was stale or unchanged. If the document has an open quarantine record, the
     * write, the attempt's close and, when the document was written, the record's close
     * ({@code repaired_content_changed} or {@code repaired_parser_fixed}, see {@link RepairClose}) commit in
     * one transaction instead (three round trips more than the single statement, which found the record and
     * wrote nothing: the write again, the record's close, the commit; see {@link #index(IndexedDocument, Long,
     * boolean)} to save the first).
     *
     * @param document the document; at least one chunk, distinct seq numbers
     * @param attemptId the delivery's attempt ({@code attempt_journal.attempt_id}), or null to close none
     * @return as {@link #index(IndexedDocument)}
     * @throws DownstreamContractException as {@link #index(IndexedDocument)}
     * @throws IllegalArgumentException as {@link #index(IndexedDocument)}
     * @throws IndexWriteException if the database fails; nothing was committed, the attempt and any quarantine
     *     record are still open
     */
    public IndexOutcome index(IndexedDocument document, Long attemptId) {
        return index(document, attemptId, false);
    }

    /**
     * {@link #index(IndexedDocument, Long)}, told whether the document is known to have an open quarantine record
     * (read with the delivery's admission): then the write goes straight to the transaction that closes it, three
     * round trips (write, close, commit) instead of four.
     *
     * @param document the document; at least one chunk, distinct seq numbers
     * @param attemptId the delivery's attempt, or null to close none
     * @param openRecordSeen whether an open record was seen before; a wrong guess costs only round trips: without
     *     one the single statement still finds a record written since, with one the close finds none to close
     * @return as {@link #index(IndexedDocument)}
     * @throws DownstreamContractException as {@link #index(IndexedDocument)}
     * @throws IllegalArgumentException as {@link #index(IndexedDocument)}
     * @throws IndexWriteException as {@link #index(IndexedDocument, Long)}
     */
    public IndexOutcome index(IndexedDocument document, Long attemptId, boolean openRecordSeen) {
        validate(document);
        try {
            if (openRecordSeen) {
                return closingWrite.write(document, attemptId);
            }
            IndexOutcome outcome = statement.run(jdbc, document, attemptId, true);
            return outcome != null ? outcome : closingWrite.write(document, attemptId);
        } catch (DataAccessException | TransactionException e) {
            SQLException cause = SpringJdbc.cause(e);
            throw new IndexWriteException("document " + document.source() + "/" + document.docId()
                    + " was not indexed (" + SqlFailure.describe(cause) + "); do not acknowledge the message,"
                    + " pause consumption until PostgreSQL answers again", cause);
        }
    }

    /**
     * {@link #index(IndexedDocument)}'s write on a connection whose transaction the caller owns (and commits
     * or rolls back), so that another write can share it: the drain closes the document's quarantine record in
     * the same transaction ({@link RepairClose#close}, the rule of this index's own close). Closes no journal
     * attempt and no quarantine record, and writes whether or not the document has an open record (the caller
     * closes it). Call {@link #validate(IndexedDocument)} first.
     *
     * @param c a connection with auto-commit off
     * @param d the document, validated
     * @return as {@link #index(IndexedDocument)}
     * @throws SQLException if the database fails; the caller rolls back
     */
    public IndexOutcome write(Connection c, IndexedDocument d) throws SQLException {
        try {
            return statement.run(SpringJdbc.on(c), d, null, false);
        } catch (DataAccessException e) {
            throw SpringJdbc.cause(e);
        }
    }

    /**
     * Checks a document before it is written.
     *
     * @param d the document
     * @throws NullPointerException if its identity or a version is missing
     * @throws IllegalArgumentException if it has no chunks, duplicate seq numbers or a bad page range
     * @throws DownstreamContractException (reason {@code vector_width}) if an embedding's width differs from
     *         {@link #vectorDims()}
     */
    public void validate(IndexedDocument d) {
        admission.validate(d);
    }

    /**
     * Tells whether a document can be skipped before parsing: the same source version is searchable with the
     * same parser, chunker and embedder versions.
     *
     * @return whether an identical indexed version exists
     * @throws IndexWriteException if the database cannot be read
     */
    public boolean isCurrent(String source, String docId, String sourceVersion, String parserVersion,
                             String chunkerVersion, String embedderVersion) {
        try {
            return admission.isCurrent(source, docId, sourceVersion, parserVersion, chunkerVersion, embedderVersion);
        } catch (DataAccessException e) {
            throw IndexReads.readFailure(source + "/" + docId, e);
        }
    }

    /**
     * @return the document's state, empty if it was never indexed
     * @throws IndexWriteException if the database cannot be read
     */
    public Optional<DocumentState> state(String source, String docId) {
        return reads.state(source, docId);
    }

    /**
     * @param source a source
     * @param since an instant, e.g. when a run started
     * @return the doc_ids of the source's documents whose index entry was (re)written at or after {@code since}
     *     (a skipped unchanged write does not count)
     * @throws IndexWriteException if the database cannot be read
     */
    public Set<String> writtenSince(String source, Instant since) {
        return reads.writtenSince(source, since);
    }

    /**
     * @param source a source
     * @return its indexed documents some of whose pages could not be extracted: doc_id → 1-based page
     *     numbers lost, by doc_id
     * @throws IndexWriteException if the database cannot be read
     */
    public Map<String, List<Integer>> partiallyIndexed(String source) {
        return reads.partiallyIndexed(source);
    }

    /**
     * @param source connector name
     * @return documents per state for the source; every state is present, 0 when none
     * @throws IndexWriteException if the database cannot be read
     */
    public Map<DocumentState, Long> countsByState(String source) {
        return reads.countsByState(source);
    }
}
