package org.ingestquarantine.operator;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.parse.ParserVersion;

/**
 * {@code seed-demo}: a seed-scale quarantine for demonstrations and benchmarks, written in bulk by SQL
 * ({@code generate_series}, one transaction), never through the pipeline.
 *
 * <p>Shape (the figures come from configuration, {@code seed-demo.*}): {@code documents} records in three
 * sources ({@value #SOURCES_TEXT}), {@code attempts} attempts in all (each record gets
 * {@code floor(attempts / documents)} or one more), three parser versions (two older ones and
 * {@link ParserVersion#CURRENT}), cohorts by fingerprint with the given shares of the documents and the rest
 * spread evenly over {@code tailFingerprints} more; about one record in ten is closed as repaired (chosen independently of
 * the fingerprint, so every cohort keeps open records). Document ids,
 * fingerprints and cohort membership are assigned by multiplicative permutations, so every share is exact to
 * the document. Each source gets a total ({@code source_totals}, stated) equal to its records. The summaries the
 * operator's questions read ({@code quarantine_summary}, {@code source_summary}) are filled by the same
 * triggers as for any write, inside the same transaction.
 */
public final class SeedDemo {

    static final String SOURCES_TEXT = "demo-contracts, demo-invoices, demo-scans";
    private static final List<String> SOURCES = List.of("demo-contracts", "demo-invoices", "demo-scans");
    private static final List<String> CLASSES = List.of("ambiguous_parse", "permanent_input", "resource_fatal",
            "unclassified", "downstream_contract", "transient");

    /**
     * Documents written per statement: each statement stays well under the connection's socket timeout
     * ({@link org.ingestquarantine.db.Database#SOCKET_TIMEOUT_SECONDS}) even at ten times the seed scale.
     */
    static final int DOCUMENTS_PER_STATEMENT = 20_000;

    private final DataSource dataSource;

    /** @param dataSource a pool on the migrated schema */
    public SeedDemo(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * The data set's shape.
     *
     * @param documents records, at least 1
     * @param attempts attempts over all records, at least {@code documents}
     * @param cohortSharesPercent the largest cohorts' shares of the documents, percent, summing to less than 100
     * @param tailFingerprints fingerprints the remaining documents are spread over, at least 1
     */
    public record Shape(int documents, long attempts, List<Integer> cohortSharesPercent, int tailFingerprints) {

        /** @throws BadOperatorInputException if the figures cannot make a data set */
        public void check() {
            int shares = cohortSharesPercent.stream().mapToInt(Integer::intValue).sum();
            if (documents < 1 || attempts < documents || tailFingerprints < 1 || shares >= 100
                    || cohortSharesPercent.stream().anyMatch(p -> p <= 0)) {
                throw new BadOperatorInputException("seed-demo needs documents >= 1, attempts >= documents, positive"
                        + " shares summing below 100% and at least one tail fingerprint; got " + this);
            }
        }

        /**
         * @param settings the properties {@code seed-demo.documents}, {@code .attempts},
         *     {@code .cohort-shares-percent} (comma-separated) and {@code .tail-fingerprints}
         * @param scale multiplies documents and attempts, at least 1
         * @return the configured shape times {@code scale}
         * @throws IllegalStateException if a property is missing or malformed
         */
        public static Shape fromSettings(org.ingestquarantine.pipeline.Settings settings, int scale) {
            List<Integer> shares;
            try {
                shares = java.util.Arrays.stream(settings.required("seed-demo.cohort-shares-percent").split(","))
                        .map(String::trim).map(Integer::valueOf).toList();
            } catch (NumberFormatException e) {
                throw new IllegalStateException("seed-demo.cohort-shares-percent must be whole percents separated by"
                        + " commas, e.g. 43,22,9");
            }
            return new Shape(Math.toIntExact(settings.requiredNumber("seed-demo.documents") * scale),
                    settings.requiredNumber("seed-demo.attempts") * scale, shares,
                    (int) settings.requiredNumber("seed-demo.tail-fingerprints"));
        }

        /** @return fingerprints in all */
        public int fingerprints() {
            return cohortSharesPercent.size() + tailFingerprints;
        }
    }

    /**
     * Writes the data set in one transaction.
     *
     * @param shape the figures
     * @throws BadOperatorInputException if the shape is impossible, or the quarantine already holds records
     *     (demo data never mixes with real records); nothing written
     * @throws DatabaseAccessException if the database fails; nothing written
     */
    public void generate(Shape shape) {
        shape.check();
        int n = shape.documents();
        StringBuilder cohort = new StringBuilder("CASE");
        long bound = 0;
        for (int i = 0; i < shape.cohortSharesPercent().size(); i++) {
            bound += Math.round(n * shape.cohortSharesPercent().get(i) / 100.0);
            cohort.append(" WHEN u < ").append(bound).append(" THEN ").append(i);
        }
        cohort.append(" ELSE ").append(shape.cohortSharesPercent().size()).append(" + (u % ")
                .append(shape.tailFingerprints()).append(") END");
        long base = shape.attempts() / n;
        long extra = shape.attempts() - base * n;
        String docs = """
                CREATE TEMP TABLE seed_docs ON COMMIT DROP AS
                SELECT i, (i::bigint * 104729) %% %1$d AS u, (i::bigint * 7919) %% %1$d AS v FROM generate_series(0, %1$d - 1) i
                """.formatted(n);
        String records = """
                INSERT INTO quarantine (dlq_id, source, doc_id, source_version, parser_version, chunker_version,
                    embedder_version, connector_version, content_type, stage, error_class, error_type, error_message,
                    error_fingerprint, attempts, first_seen_at, last_seen_at, disposition, reason_code, closed_at)
                SELECT '01SEED' || lpad(i::text, 20, '0'), (?::text[])[1 + (i / 7) %% 3],
                       'doc/' || lpad(i::text, 8, '0') || '.pdf', 'etag-' || i,
                       (?::text[])[1 + i %% 3], 'window-1', 'all-minilm-l6-v2', 'folder-1', 'application/pdf', 'parse',
                       (?::text[])[1 + c %% 6], 'org.example.SeedFailure' || c, 'seeded failure of cohort ' || c,
                       'seedfp' || lpad(c::text, 10, '0'), a,
                       now() - make_interval(days => i %% 400, hours => a, secs => i %% 86400),
                       now() - make_interval(days => i %% 400, secs => i %% 86400),
                       CASE WHEN (u / 30) %% 10 = 0 THEN 'repaired_parser_fixed' ELSE 'open' END, 'seeded',
                       CASE WHEN (u / 30) %% 10 = 0 THEN now() END
                FROM (SELECT i, u, %1$s AS c, CASE WHEN v < %2$d THEN %3$d ELSE %4$d END AS a FROM seed_docs
                      WHERE i >= ? AND i < ?) d
                """.formatted(cohort, extra, base + 1, base);
        String attempts = """
                INSERT INTO quarantine_attempt (dlq_id, attempt_no, seen_at, error_class, error_type, error_fingerprint,
                    reason_code, stage, source_version, parser_version, delivery_count, delivery_key)
                SELECT q.dlq_id, k, q.first_seen_at + make_interval(hours => k - 1), q.error_class, q.error_type,
                       q.error_fingerprint, q.reason_code, q.stage, q.source_version, q.parser_version, k,
                       'seed/' || q.dlq_id
                FROM quarantine q, generate_series(1, q.attempts) k
                WHERE q.dlq_id >= '01SEED' || lpad(?::text, 20, '0') AND q.dlq_id < '01SEED' || lpad(?::text, 20, '0')
                """;
        String totals = """
                INSERT INTO source_totals (source, documents, counted_at, counted_by, obtained_by)
                SELECT source, count(*), now(), 'seed-demo', 'stated' FROM quarantine GROUP BY source
                ON CONFLICT (source) DO UPDATE SET documents = EXCLUDED.documents, counted_at = now(),
                    obtained_by = EXCLUDED.obtained_by
                """;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM quarantine)")) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        c.rollback();
                        throw new BadOperatorInputException("the quarantine already holds records; seed-demo writes"
                                + " only into an empty one (use a fresh --data-dir)");
                    }
                }
                s.execute(docs);
                s.execute("CREATE INDEX ON seed_docs (i)");
                for (int from = 0; from < n; from += DOCUMENTS_PER_STATEMENT) {
                    int to = Math.min(n, from + DOCUMENTS_PER_STATEMENT);
                    try (PreparedStatement p = c.prepareStatement(records)) {
                        p.setArray(1, c.createArrayOf("text", SOURCES.toArray()));
                        p.setArray(2, c.createArrayOf("text", new String[] {"pdfbox-3.0.4+iq-parse-1",
                                "pdfbox-3.0.5+iq-parse-1", ParserVersion.CURRENT}));
                        p.setArray(3, c.createArrayOf("text", CLASSES.toArray()));
                        p.setInt(4, from);
                        p.setInt(5, to);
                        p.executeUpdate();
                    }
                    try (PreparedStatement p = c.prepareStatement(attempts)) {
                        p.setInt(1, from);
                        p.setInt(2, to);
                        p.executeUpdate();
                    }
                }
                s.executeUpdate(totals);
                s.execute("ANALYZE quarantine");
                s.execute("ANALYZE quarantine_attempt");
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
            try (Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("VACUUM ANALYZE quarantine, quarantine_summary"); // index-only scans need the visibility map
            }
        } catch (SQLException e) {
            throw new DatabaseAccessException("the demo data set was not written (" + SqlFailure.describe(e)
                    + "); nothing was committed", e);
        }
    }
}
