package org.ingestquarantine.ingest;

import java.time.Instant;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/** What the index holds, as {@link DocumentIndex}'s reads answer it. Thread-safe. */
final class IndexReads {

    private final JdbcTemplate jdbc;

    IndexReads(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** As {@link DocumentIndex#state}. */
    Optional<DocumentState> state(String source, String docId) {
        try {
            return jdbc.query("SELECT state FROM documents WHERE source = ? AND doc_id = ?",
                    (rs, n) -> DocumentState.fromCode(rs.getString(1)), source, docId).stream().findFirst();
        } catch (DataAccessException e) {
            throw readFailure(source + "/" + docId, e);
        }
    }

    /** As {@link DocumentIndex#writtenSince}. */
    Set<String> writtenSince(String source, Instant since) {
        try {
            return new HashSet<>(jdbc.query("SELECT doc_id FROM documents WHERE source = ? AND indexed_at >= ?",
                    (rs, n) -> rs.getString(1), source, SpringJdbc.time(since)));
        } catch (DataAccessException e) {
            throw readFailure(source, e);
        }
    }

    /** As {@link DocumentIndex#partiallyIndexed}. */
    Map<String, List<Integer>> partiallyIndexed(String source) {
        String sql = "SELECT doc_id, pages_lost FROM documents WHERE source = ? AND pages_lost_count > 0 ORDER BY doc_id";
        try {
            Map<String, List<Integer>> out = new LinkedHashMap<>();
            jdbc.query(sql, rs -> {
                out.put(rs.getString(1), List.of((Integer[]) rs.getArray(2).getArray()));
            }, source);
            return out;
        } catch (DataAccessException e) {
            throw readFailure(source, e);
        }
    }

    /** As {@link DocumentIndex#countsByState}. */
    Map<DocumentState, Long> countsByState(String source) {
        Map<DocumentState, Long> counts = new EnumMap<>(DocumentState.class);
        for (DocumentState state : DocumentState.values()) {
            counts.put(state, 0L);
        }
        try {
            jdbc.query("SELECT state, count(*) FROM documents WHERE source = ? GROUP BY state", rs -> {
                counts.put(DocumentState.fromCode(rs.getString(1)), rs.getLong(2));
            }, source);
            return counts;
        } catch (DataAccessException e) {
            throw readFailure(source, e);
        }
    }

    /** @return the failure to read the index for {@code what}, with the driver's exception as its cause */
    static IndexWriteException readFailure(String what, DataAccessException e) {
        java.sql.SQLException sql = SpringJdbc.cause(e);
        return new IndexWriteException("index could not be read for " + what + " (" + SqlFailure.describe(sql)
                + "); retry when PostgreSQL answers again", sql);
    }
}
