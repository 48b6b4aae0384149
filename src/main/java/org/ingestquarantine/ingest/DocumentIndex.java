package org.ingestquarantine.ingest;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
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
 * <p>{@link #index(IndexedDocument)} runs in ONE transaction: it locks the document's row, rejects a stale
 * write, skips an unchanged one, and otherwise replaces the chunks; the row is written as
 * {@link DocumentState#INDEXING} first and becomes {@link DocumentState#SEARCHABLE} only after every chunk is
 * written, so a reader never sees a searchable document with missing chunks. Thread-safe.
 */
public final class DocumentIndex {

    private static final String INSERT_NEW = """
            INSERT INTO documents (source, doc_id, source_version, source_updated_at, content_sha256, parser_version,
                chunker_version, embedder_version, page_count, chunk_count, pages_lost_count, pages_lost, state,
                indexed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'indexing', now())
            ON CONFLICT (source, doc_id) DO NOTHING
            """;

    private static final String LOCK = """
            SELECT source_version, source_updated_at, state, parser_version, chunker_version, embedder_version
            FROM documents WHERE source = ? AND doc_id = ? FOR UPDATE
            """;

    private static final String UPDATE_INDEXING = """
            UPDATE documents SET source_version = ?, source_updated_at = ?, content_sha256 = ?, parser_version = ?,
                chunker_version = ?, embedder_version = ?, page_count = ?, chunk_count = ?, pages_lost_count = ?,
                pages_lost = ?, state = 'indexing', indexed_at = now()
            WHERE source = ? AND doc_id = ?
            """;

    private final Jdbc jdbc;
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
        this.vectorDims = vectorDims;
    }

    /** @return the embedding width this index accepts */
    public int vectorDims() {
        return vectorDims;
    }

    /**
     * Writes a document and its chunks, replacing any earlier version.
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
        validate(document);
        try {
            // a write that is not INDEXED changed nothing, so committing it is the same as rolling it back
            return jdbc.inTransaction(c -> write(c, document));
        } catch (SQLException e) {
            throw new IndexWriteException("document " + document.source() + "/" + document.docId()
                    + " was not indexed (" + SqlFailure.describe(e) + "); do not acknowledge the message,"
                    + " pause consumption until PostgreSQL answers again", e);
        }
    }

    /**
     * {@link #index(IndexedDocument)}'s writes on a connection whose transaction the caller owns (and commits
     * or rolls back), so that another write can share it: the drain closes the document's quarantine record in
     * the same transaction. Call {@link #validate(IndexedDocument)} first.
     *
     * @param c a connection with auto-commit off
     * @param d the document, validated
     * @return as {@link #index(IndexedDocument)}
     * @throws SQLException if the database fails; the caller rolls back
     */
    public IndexOutcome write(Connection c, IndexedDocument d) throws SQLException {
        boolean created;
        // A new document: insert it as 'indexing'. A concurrent writer of the same document waits on the
        // unique key until this transaction ends, then takes the row lock below.
        try (PreparedStatement s = c.prepareStatement(INSERT_NEW)) {
            s.setString(1, d.source());
            s.setString(2, d.docId());
            bindVersion(s, 3, d);
            created = s.executeUpdate() == 1;
        }
        if (!created) {
            try (PreparedStatement s = c.prepareStatement(LOCK)) {
                s.setString(1, d.source());
                s.setString(2, d.docId());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    Instant storedUpdatedAt = SqlTime.get(rs, "source_updated_at");
                    if (storedUpdatedAt != null && d.sourceUpdatedAt() != null
                            && storedUpdatedAt.isAfter(d.sourceUpdatedAt())) {
                        return IndexOutcome.STALE_REJECTED;
                    }
                    if (d.sourceVersion().equals(rs.getString("source_version"))
                            && DocumentState.SEARCHABLE.code().equals(rs.getString("state"))
                            && d.parserVersion().equals(rs.getString("parser_version"))
                            && d.chunkerVersion().equals(rs.getString("chunker_version"))
                            && d.embedderVersion().equals(rs.getString("embedder_version"))) {
                        return IndexOutcome.UNCHANGED;
                    }
                }
            }
            try (PreparedStatement s = c.prepareStatement(UPDATE_INDEXING)) {
                int i = bindVersion(s, 1, d);
                s.setString(i++, d.source());
                s.setString(i, d.docId());
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement("DELETE FROM chunks WHERE source = ? AND doc_id = ?")) {
                s.setString(1, d.source());
                s.setString(2, d.docId());
                s.executeUpdate();
            }
        }
        insertChunks(c, d);
        try (PreparedStatement s = c.prepareStatement(
                "UPDATE documents SET state = 'searchable' WHERE source = ? AND doc_id = ?")) {
            s.setString(1, d.source());
            s.setString(2, d.docId());
            s.executeUpdate();
        }
        return IndexOutcome.INDEXED;
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

    private static void insertChunks(Connection c, IndexedDocument d) throws SQLException {
        String sql = "INSERT INTO chunks (source, doc_id, seq, text, embedding, page_from, page_to)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (IndexedChunk chunk : d.chunks()) {
                Float[] boxed = new Float[chunk.embedding().length];
                for (int i = 0; i < boxed.length; i++) {
                    boxed[i] = chunk.embedding()[i];
                }
                Array vector = c.createArrayOf("float4", boxed);
                s.setString(1, d.source());
                s.setString(2, d.docId());
                s.setInt(3, chunk.seq());
                s.setString(4, chunk.text());
                s.setArray(5, vector);
                s.setInt(6, chunk.pageFrom());
                s.setInt(7, chunk.pageTo());
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    /**
     * @param d a document about to be written
     * @throws DownstreamContractException (reason {@code vector_width}) if an embedding's width differs from
     *         {@link #vectorDims()}
     * @throws IllegalArgumentException if the document has no chunks, duplicate seq numbers or a bad page range
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
