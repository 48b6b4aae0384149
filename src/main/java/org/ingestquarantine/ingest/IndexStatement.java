package org.ingestquarantine.ingest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.db.SpringJdbc;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCallback;

/**
 * The index write of {@link DocumentIndex}: the whole write in ONE statement ({@code index-write.sql}), so one
 * round trip and one commit (issue 12). The documents row is inserted, or updated unless the stored version is
 * later (stale) or the same version made by the same code is already searchable (unchanged). Only if the row was
 * written are the chunks no longer part of the document deleted and every chunk upserted (the two touch disjoint
 * rows). The delivery's attempt, if given, is closed in the same transaction ({@code indexed}, or {@code skipped}
 * for stale and unchanged), so the outcome and the attempt's close commit together. The row is written as
 * searchable: no reader sees it before the statement commits, and then every chunk is there.
 *
 * <p>The document's open quarantine record ({@code rec}, a read of the unique index on (source, doc_id), none
 * for most documents) is locked FIRST, before the documents row, so every writer takes the record's row, the
 * documents row and the summary triggers' advisory lock of the document in that order (the record statement
 * takes the record's row before the advisory lock), and a failure of the same document written while a
 * transaction indexes it and closes its record waits for that transaction and then re-opens the record with
 * its attempt, instead of slipping in before the close and being closed with it. Guard (set by
 * {@link DocumentIndex#index(IndexedDocument, Long)}'s first try): if there is such a record, nothing is written
 * and nothing is closed, the verdict is {@code open_record}, and the write runs again unguarded in a transaction
 * that closes the record too ({@link ClosingWrite}). Stale and unchanged keep their verdicts (nothing would be
 * written: the record stays open).
 *
 * <p>Concurrent writers of one document: the statement reads the row with its snapshot ({@code snap}) and
 * updates it only if the row it locks ({@code ON CONFLICT}) is that same version ({@code xmin}); if another
 * writer committed in between, nothing is written, nothing is closed, the verdict is {@code raced} and the
 * statement runs again with a fresh snapshot (so its chunk delete sees that writer's chunks). Stateless apart
 * from the width; thread-safe.
 */
final class IndexStatement {

    private static final String WRITE = SpringJdbc.sql(IndexStatement.class, "index-write.sql");

    /** How often the write runs again when a concurrent writer of the same document committed under it. */
    private static final int MAX_RACES = 5;

    private final int vectorDims;

    IndexStatement(int vectorDims) {
        this.vectorDims = vectorDims;
    }

    /**
     * Runs the statement with the template's connection (its own, auto-commit, or the Spring transaction's).
     *
     * @param jdbc the template
     * @param document the document, validated
     * @param attemptId the delivery's attempt to close, or null
     * @param guard whether to write nothing when the document has an open quarantine record
     * @return the verdict; null when {@code guard} found an open record (nothing was written or closed)
     * @throws DataAccessException if the database fails, or ({@link ConcurrencyFailureException}, SQLSTATE
     *     40001) another writer of the document committed under each of {@value #MAX_RACES} runs
     */
    IndexOutcome run(JdbcTemplate jdbc, IndexedDocument document, Long attemptId, boolean guard) {
        return jdbc.execute(WRITE, (PreparedStatementCallback<IndexOutcome>) s -> {
            bind(s, document, attemptId, guard);
            for (int run = 1; ; run++) {
                String verdict;
                try (var rs = s.executeQuery()) {
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
                            String message = "another writer of the document committed under each of " + run
                                    + " writes";
                            throw new ConcurrencyFailureException(message, new SQLException(message, "40001"));
                        }
                }
            }
        });
    }

    private void bind(PreparedStatement s, IndexedDocument d, Long attemptId, boolean guard) throws SQLException {
        Connection c = s.getConnection();
        int i = 1;
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        s.setBoolean(i++, guard);
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        s.setString(i++, d.source());
        s.setString(i++, d.docId());
        i = bindVersion(c, s, i, d);
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
    private static int bindVersion(Connection c, PreparedStatement s, int from, IndexedDocument d)
            throws SQLException {
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
        s.setArray(i++, c.createArrayOf("integer", d.pagesLost().toArray()));
        return i;
    }
}
