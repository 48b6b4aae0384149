package org.ingestquarantine.ingest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.DownstreamContractException;

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

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DocumentIndex.class);

    /**
     * The whole write in ONE statement, so one round trip and one commit (issue 12). The documents row is
     * inserted, or updated unless the stored version is later (stale) or the same version made by the same code
     * is already searchable (unchanged). Only if the row was written are the chunks no longer part of the
     * document deleted and every chunk upserted (the two touch disjoint rows). The delivery's attempt, if given,
     * is closed in the same transaction ({@code indexed}, or {@code skipped} for stale and unchanged), so the
     * outcome and the attempt's close commit together. The row is written as searchable: no reader sees it
     * before the statement commits, and then every chunk is there.
     *
     * <p>The document's open quarantine record ({@code rec}, a read of the unique index on (source, doc_id), none
     * for most documents) is locked FIRST, before the documents row, so every writer takes the record's row, the
     * documents row and the summary triggers' advisory lock of the document in that order (the record statement
     * takes the record's row before the advisory lock), and a failure of the same document written while a
     * transaction indexes it and closes its record waits for that transaction and then re-opens the record with
     * its attempt, instead of slipping in before the close and being closed with it. Guard (the
     * boolean parameter, set by {@link #index(IndexedDocument, Long)}'s first try): if there is such a record,
     * nothing is written and nothing is closed, the verdict is {@code open_record}, and the write runs again
     * unguarded in a transaction that closes the record too ({@link RepairClose}). Stale and unchanged keep
     * their verdicts (nothing would be written: the record stays open).
     *
     * <p>Concurrent writers of one document: the statement reads the row with its snapshot ({@code snap}) and
     * updates it only if the row it locks ({@code ON CONFLICT}) is that same version ({@code xmin}); if another
     * writer committed in between, nothing is written, nothing is closed, the verdict is {@code raced} and the
     * statement runs again with a fresh snapshot (so its chunk delete sees that writer's chunks).
     */
    private static final String WRITE = """
            WITH snap AS (
                SELECT xmin::text AS x, source_updated_at, source_version, state, parser_version, chunker_version,
                    embedder_version
                FROM documents WHERE source = ? AND doc_id = ?
            ), rec AS (
                SELECT CAST(? AS boolean) AS guard FROM quarantine
                WHERE source = ? AND doc_id = ? AND disposition = 'open'
                FOR UPDATE
            ), doc AS (
                INSERT INTO documents AS d (source, doc_id, source_version, source_updated_at, content_sha256,
                    parser_version, chunker_version, embedder_version, page_count, chunk_count, pages_lost_count,
                    pages_lost, state, indexed_at)
                SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::integer[], 'searchable', now()
                WHERE NOT EXISTS (SELECT 1 FROM rec WHERE guard)
                ON CONFLICT (source, doc_id) DO UPDATE SET source_version = EXCLUDED.source_version,
                    source_updated_at = EXCLUDED.source_updated_at, content_sha256 = EXCLUDED.content_sha256,
                    parser_version = EXCLUDED.parser_version, chunker_version = EXCLUDED.chunker_version,
                    embedder_version = EXCLUDED.embedder_version, page_count = EXCLUDED.page_count,
                    chunk_count = EXCLUDED.chunk_count, pages_lost_count = EXCLUDED.pages_lost_count,
                    pages_lost = EXCLUDED.pages_lost, state = 'searchable', indexed_at = now()
                WHERE d.xmin::text = coalesce((SELECT x FROM snap), '')
                  AND NOT (d.source_updated_at IS NOT NULL AND EXCLUDED.source_updated_at IS NOT NULL
                           AND d.source_updated_at > EXCLUDED.source_updated_at)
                  AND NOT (d.source_version = EXCLUDED.source_version AND d.state = 'searchable'
                           AND d.parser_version = EXCLUDED.parser_version
                           AND d.chunker_version = EXCLUDED.chunker_version
                           AND d.embedder_version = EXCLUDED.embedder_version)
                RETURNING 1
            ), verdict AS (
                SELECT CASE WHEN EXISTS (SELECT 1 FROM doc) THEN 'indexed'
                            WHEN s.source_updated_at IS NOT NULL AND CAST(? AS timestamptz) IS NOT NULL
                                 AND s.source_updated_at > CAST(? AS timestamptz) THEN 'stale'
                            WHEN s.source_version = ? AND s.state = 'searchable' AND s.parser_version = ?
                                 AND s.chunker_version = ? AND s.embedder_version = ? THEN 'unchanged'
                            WHEN EXISTS (SELECT 1 FROM rec WHERE guard) THEN 'open_record'
                            ELSE 'raced' END AS v
                FROM (SELECT 1) one LEFT JOIN snap s ON true
            ), incoming AS (
                SELECT c.seq, c.text, c.page_from, c.page_to, c.o
                FROM unnest(?::integer[], ?::text[], ?::integer[], ?::integer[])
                     WITH ORDINALITY AS c(seq, text, page_from, page_to, o)
            ), gone AS (
                DELETE FROM chunks WHERE source = ? AND doc_id = ? AND EXISTS (SELECT 1 FROM doc)
                    AND seq NOT IN (SELECT seq FROM incoming)
            ), written AS (
                INSERT INTO chunks AS k (source, doc_id, seq, text, embedding, page_from, page_to)
                SELECT ?, ?, i.seq, i.text, (?::real[])[(i.o - 1) * ? + 1 : i.o * ?], i.page_from, i.page_to
                FROM incoming i WHERE EXISTS (SELECT 1 FROM doc)
                ON CONFLICT (source, doc_id, seq) DO UPDATE SET text = EXCLUDED.text,
                    embedding = EXCLUDED.embedding, page_from = EXCLUDED.page_from, page_to = EXCLUDED.page_to
            ), closed AS (
                UPDATE attempt_journal SET stage = 'index', stage_at = ?, closed_at = ?,
                    outcome = CASE WHEN (SELECT v FROM verdict) = 'indexed' THEN 'indexed' ELSE 'skipped' END
                WHERE attempt_id = ? AND (SELECT v FROM verdict) NOT IN ('raced', 'open_record')
            )
            SELECT v FROM verdict
            """;

    /** How often the write runs again when a concurrent writer of the same document committed under it. */
    private static final int MAX_RACES = 5;

    private final Jdbc jdbc;
    private final DataSource dataSource;
    private final int vectorDims;

    /**
     * @param dataSource a pool on the migrated schema
     * @param vectorDims width every embedding must have, e.g. 384 for all-MiniLM-L6-v2; positive
     * @throws IllegalArgumentException if {@code vectorDims} is not positive
     */
    public DocumentIndex(DataSource dataSource, int vectorDims) {
        if (vectorDims <= 0) {
            throw new IllegalArgumentException("vectorDims must be positive, was " + vectorDims);
        }
        this.jdbc = new Jdbc(dataSource);
        this.dataSource = dataSource;
        this.vectorDims = vectorDims;
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
        try (Connection c = dataSource.getConnection()) {
            if (openRecordSeen) {
                return indexAndCloseRecord(c, document, attemptId);
            }
            IndexOutcome outcome = run(c, document, attemptId, true);
            return outcome != null ? outcome : indexAndCloseRecord(c, document, attemptId);
        } catch (SQLException e) {
            throw new IndexWriteException("document " + document.source() + "/" + document.docId()
                    + " was not indexed (" + SqlFailure.describe(e) + "); do not acknowledge the message,"
                    + " pause consumption until PostgreSQL answers again", e);
        }
    }

    /**
     * The document has an open quarantine record (the single statement found it and wrote nothing): the write,
     * the attempt's close and the record's close ({@link RepairClose}) in ONE transaction, as separate
     * statements. Not in the index statement itself: the summary triggers of {@code documents} and
     * {@code quarantine} (V6) would each see the other's final state at the end of that one statement, and the
     * document would leave {@code source_summary.open_indexed} counted -1.
     */
    private IndexOutcome indexAndCloseRecord(Connection c, IndexedDocument document, Long attemptId)
            throws SQLException {
        c.setAutoCommit(false);
        try {
            IndexOutcome outcome = run(c, document, attemptId, false);
            if (outcome == IndexOutcome.INDEXED) {
                closeRecord(c, document);
            }
            c.commit();
            c.setAutoCommit(true);
            return outcome;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
                c.setAutoCommit(true);
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void closeRecord(Connection c, IndexedDocument d) throws SQLException {
        RepairClose.close(c, d, Instant.now().truncatedTo(ChronoUnit.MICROS)).ifPresent(closed ->
                LOG.info("quarantine record {} closed as {}{} by={}: a later delivery of its document was indexed",
                        closed.dlqId(), closed.disposition(),
                        closed.reasonCode() == null ? "" : " (" + closed.reasonCode() + ")", closed.by().code()));
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
        return run(c, d, null, false);
    }

    /**
     * @param guard whether to write nothing when the document has an open quarantine record
     * @return the verdict; null when {@code guard} found an open record (nothing was written or closed)
     */
    private IndexOutcome run(Connection c, IndexedDocument document, Long attemptId, boolean guard)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(WRITE)) {
            bind(c, s, document, attemptId, guard);
            for (int run = 1; ; run++) {
                String verdict;
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    verdict = rs.getString(1);
                }
                switch (verdict) {
                    case "indexed":
                        return IndexOutcome.INDEXED;
                    case "stale":
                        return IndexOutcome.STALE_REJECTED;
                    case "unchanged":
                        return IndexOutcome.UNCHANGED;
                    case "open_record":
                        return null;
                    default:
                        if (run >= MAX_RACES) {
                            throw new SQLException("another writer of the document committed under each of " + run
                                    + " writes", "40001");
                        }
                }
            }
        }
    }

    private void bind(Connection c, PreparedStatement s, IndexedDocument d, Long attemptId, boolean guard)
            throws SQLException {
        int i = 1;
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        s.setBoolean(i++, guard);
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        i = bindVersion(s, i, d);
        SqlTime.set(s, i++, d.sourceUpdatedAt());
        SqlTime.set(s, i++, d.sourceUpdatedAt());
        s.setString(i++, d.sourceVersion());
        s.setString(i++, d.parserVersion());
        s.setString(i++, d.chunkerVersion());
        s.setString(i++, d.embedderVersion());
        int n = d.chunks().size();
        Integer[] seqs = new Integer[n];
        String[] texts = new String[n];
        Integer[] from = new Integer[n];
        Integer[] to = new Integer[n];
        Float[] vectors = new Float[n * vectorDims];
        for (int k = 0; k < n; k++) {
            IndexedChunk chunk = d.chunks().get(k);
            seqs[k] = chunk.seq();
            texts[k] = chunk.text();
            from[k] = chunk.pageFrom();
            to[k] = chunk.pageTo();
            for (int j = 0; j < vectorDims; j++) {
                vectors[k * vectorDims + j] = chunk.embedding()[j];
            }
        }
        s.setArray(i++, c.createArrayOf("integer", seqs));
        s.setArray(i++, c.createArrayOf("text", texts));
        s.setArray(i++, c.createArrayOf("integer", from));
        s.setArray(i++, c.createArrayOf("integer", to));
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        s.setArray(i++, c.createArrayOf("float4", vectors));
        s.setInt(i++, vectorDims);
        s.setInt(i++, vectorDims);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        SqlTime.set(s, i++, now);
        SqlTime.set(s, i++, now);
        if (attemptId == null) {
            s.setNull(i, java.sql.Types.BIGINT);
        } else {
            s.setLong(i, attemptId);
        }
    }

    /** Binds the ten columns from source_version to pages_lost; returns the next index. */
    private static int bindVersion(PreparedStatement s, int from, IndexedDocument d) throws SQLException {
        int i = from;
        s.setString(i++, d.sourceVersion());
        SqlTime.set(s, i++, d.sourceUpdatedAt());
        s.setString(i++, d.contentSha256());
        s.setString(i++, d.parserVersion());
        s.setString(i++, d.chunkerVersion());
        s.setString(i++, d.embedderVersion());
        s.setInt(i++, d.pageCount());
        s.setInt(i++, d.chunks().size());
        s.setInt(i++, d.pagesLost().size());
        s.setArray(i++, s.getConnection().createArrayOf("integer", d.pagesLost().toArray()));
        return i;
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
        Objects.requireNonNull(d.source(), "source");
        Objects.requireNonNull(d.docId(), "docId");
        Objects.requireNonNull(d.sourceVersion(), "sourceVersion");
        Objects.requireNonNull(d.parserVersion(), "parserVersion");
        Objects.requireNonNull(d.chunkerVersion(), "chunkerVersion");
        Objects.requireNonNull(d.embedderVersion(), "embedderVersion");
        if (d.chunks().isEmpty()) {
            throw new IllegalArgumentException("document " + d.source() + "/" + d.docId()
                    + " has no chunks; a document without text is quarantined (no_text_layer), not indexed");
        }
        Set<Integer> seqs = new HashSet<>();
        for (IndexedChunk chunk : d.chunks()) {
            if (!seqs.add(chunk.seq())) {
                throw new IllegalArgumentException("document " + d.source() + "/" + d.docId()
                        + " has two chunks with seq " + chunk.seq());
            }
            if (chunk.pageFrom() > chunk.pageTo()) {
                throw new IllegalArgumentException("chunk " + chunk.seq() + " of " + d.source() + "/" + d.docId()
                        + " has pageFrom " + chunk.pageFrom() + " after pageTo " + chunk.pageTo());
            }
            int width = chunk.embedding() == null ? 0 : chunk.embedding().length;
            if (width != vectorDims) {
                throw new DownstreamContractException(DownstreamContractException.VECTOR_WIDTH,
                        "chunk " + chunk.seq() + " of " + d.source() + "/" + d.docId() + " has a vector of width "
                                + width + " but the index holds width " + vectorDims
                                + "; configure an embedder of that width or rebuild the index");
            }
        }
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
        String sql = "SELECT 1 FROM documents WHERE source = ? AND doc_id = ? AND source_version = ?"
                + " AND parser_version = ? AND chunker_version = ? AND embedder_version = ? AND state = 'searchable'";
        try {
            return jdbc.queryFirst(sql, rs -> true, source, docId, sourceVersion, parserVersion, chunkerVersion,
                    embedderVersion).isPresent();
        } catch (SQLException e) {
            throw readFailure(source + "/" + docId, e);
        }
    }

    /**
     * @return the document's state, empty if it was never indexed
     * @throws IndexWriteException if the database cannot be read
     */
    public Optional<DocumentState> state(String source, String docId) {
        String sql = "SELECT state FROM documents WHERE source = ? AND doc_id = ?";
        try {
            return jdbc.queryFirst(sql, rs -> DocumentState.fromCode(rs.getString(1)), source, docId);
        } catch (SQLException e) {
            throw readFailure(source + "/" + docId, e);
        }
    }

    /**
     * @param source a source
     * @param since an instant, e.g. when a run started
     * @return the doc_ids of the source's documents whose index entry was (re)written at or after {@code since}
     *     (a skipped unchanged write does not count)
     * @throws IndexWriteException if the database cannot be read
     */
    public Set<String> writtenSince(String source, Instant since) {
        String sql = "SELECT doc_id FROM documents WHERE source = ? AND indexed_at >= ?";
        try {
            return new HashSet<>(jdbc.query(sql, rs -> rs.getString(1), source,
                    java.sql.Timestamp.from(since)));
        } catch (SQLException e) {
            throw readFailure(source, e);
        }
    }

    /**
     * @param source a source
     * @return its indexed documents some of whose pages could not be extracted: doc_id → 1-based page
     *     numbers lost, by doc_id
     * @throws IndexWriteException if the database cannot be read
     */
    public Map<String, List<Integer>> partiallyIndexed(String source) {
        String sql = "SELECT doc_id, pages_lost FROM documents WHERE source = ? AND pages_lost_count > 0 ORDER BY doc_id";
        try {
            Map<String, List<Integer>> out = new LinkedHashMap<>();
            jdbc.query(sql, rs -> Map.entry(rs.getString(1), List.of((Integer[]) rs.getArray(2).getArray())), source)
                    .forEach(e -> out.put(e.getKey(), e.getValue()));
            return out;
        } catch (SQLException e) {
            throw readFailure(source, e);
        }
    }

    /**
     * @param source connector name
     * @return documents per state for the source; every state is present, 0 when none
     * @throws IndexWriteException if the database cannot be read
     */
    public Map<DocumentState, Long> countsByState(String source) {
        Map<DocumentState, Long> counts = new EnumMap<>(DocumentState.class);
        for (DocumentState state : DocumentState.values()) {
            counts.put(state, 0L);
        }
        String sql = "SELECT state, count(*) FROM documents WHERE source = ? GROUP BY state";
        try {
            jdbc.query(sql, rs -> counts.put(DocumentState.fromCode(rs.getString(1)), rs.getLong(2)), source);
            return counts;
        } catch (SQLException e) {
            throw readFailure(source, e);
        }
    }

    private static IndexWriteException readFailure(String what, SQLException e) {
        return new IndexWriteException("index could not be read for " + what + " (" + SqlFailure.describe(e)
                + "); retry when PostgreSQL answers again", e);
    }
}
