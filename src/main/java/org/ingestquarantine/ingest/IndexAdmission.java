package org.ingestquarantine.ingest;

import java.sql.ResultSet;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.ingestquarantine.failure.DownstreamContractException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;

/**
 * What the index admits, before anything is written: a document's shape and width ({@link #validate}) and the
 * version guard that skips a document before parsing when the same version is already searchable
 * ({@link #isCurrent}). Thread-safe.
 */
final class IndexAdmission {

    private static final String IS_CURRENT = "SELECT 1 FROM documents WHERE source = ? AND doc_id = ?"
            + " AND source_version = ? AND parser_version = ? AND chunker_version = ? AND embedder_version = ?"
            + " AND state = 'searchable'";

    private final JdbcTemplate jdbc;
    private final int vectorDims;

    IndexAdmission(JdbcTemplate jdbc, int vectorDims) {
        this.jdbc = jdbc;
        this.vectorDims = vectorDims;
    }

    /** As {@link DocumentIndex#validate(IndexedDocument)}. */
    void validate(IndexedDocument d) {
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
     * As {@link DocumentIndex#isCurrent}.
     *
     * @throws DataAccessException if the database cannot be read
     */
    boolean isCurrent(String source, String docId, String sourceVersion, String parserVersion,
                      String chunkerVersion, String embedderVersion) {
        return jdbc.query(IS_CURRENT, (ResultSetExtractor<Boolean>) ResultSet::next, source, docId, sourceVersion, parserVersion, chunkerVersion,
                embedderVersion);
    }
}
