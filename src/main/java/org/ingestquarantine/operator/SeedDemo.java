package org.ingestquarantine.operator;

import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.parse.ParserVersion;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code seed-demo}: a seed-scale quarantine that tells seed 003's story, for demonstrations and benchmarks,
 * written in bulk by SQL ({@code generate_series}, one transaction), never through the pipeline.
 *
 * <p>Shape (the figures come from configuration, {@code seed-demo.*}): {@code documents} records in the
 * configured sources (each with its share of the records, its coverage and its owner; a source without an owner is
 * the owner gap), {@code attempts} attempts in all (each record gets {@code floor(attempts / documents)} or one
 * more), three parser versions (two older ones and {@link ParserVersion#CURRENT}; the largest cohort all of
 * {@value #RETIRED_PARSER}, a retired one), cohorts by fingerprint with the given shares of the documents and the
 * rest spread evenly over {@code tailFingerprints} more; about one record in ten is closed as repaired (chosen
 * independently of the fingerprint, so every cohort keeps open records). Document ids, sources, fingerprints and
 * cohort membership are assigned by multiplicative permutations, so every share is exact to the document.
 *
 * <p>Each source gets indexed documents ({@code documents} rows, searchable, no chunks: the repaired records' and
 * more), so that its coverage is its configured figure to within one document, and a stated total of its indexed
 * and quarantined documents. The oldest open records of the largest cohort, the ones a canary drain selects first,
 * get a payload and a file in a local folder source ({@link SeedDemoSample}), so {@code reproduce} and
 * {@code drain} work against them. The summaries the operator's questions read ({@code quarantine_summary},
 * {@code source_summary}) are filled by the same triggers as for any write, inside the same transaction.
 */
public final class SeedDemo {

    /** The parser version every record of the largest cohort last failed under (no longer the running one). */
    static final String RETIRED_PARSER = "pdfbox-3.0.4+iq-parse-1";
    private static final List<String> CLASSES = List.of("ambiguous_parse", "permanent_input", "resource_fatal",
            "unclassified", "downstream_contract", "transient");

    /**
     * Documents written per statement: each statement stays well under the connection's socket timeout
     * ({@link org.ingestquarantine.db.Database#SOCKET_TIMEOUT_SECONDS}) even at ten times the seed scale.
     */
    static final int DOCUMENTS_PER_STATEMENT = 20_000;

    /** Indexed documents written per statement, for the same reason. */
    static final int INDEXED_PER_STATEMENT = 200_000;

    private static final String DOCS = OperatorSql.load("seed-docs.sql");
    private static final String RECORDS = OperatorSql.load("seed-records.sql");
    private static final String ATTEMPTS = OperatorSql.load("seed-attempts.sql");
    private static final String TOTALS = OperatorSql.load("seed-totals.sql");

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final SeedDemoSample sample;

    /**
     * @param dataSource a pool on the migrated schema
     * @param sample writes the payloads and the local source's files of the largest cohort's oldest records
     */
    public SeedDemo(DataSource dataSource, SeedDemoSample sample) {
        this.jdbc = OperatorSql.jdbc(Objects.requireNonNull(dataSource, "dataSource"));
        this.transactions = OperatorSql.transactions(dataSource);
        this.sample = Objects.requireNonNull(sample, "sample");
    }

    /**
     * One source of the data set.
     *
     * @param name the source's name
     * @param sharePercent its share of the records, percent
     * @param coveragePercent its coverage, percent, below 100: indexed documents are added to reach it
     * @param owner the team its records name, or null (the owner gap)
     */
    public record DemoSource(String name, int sharePercent, double coveragePercent, String owner) {
    }

    /**
     * The data set's shape.
     *
     * @param documents records, at least 1
     * @param attempts attempts over all records, at least {@code documents}
     * @param cohortSharesPercent the largest cohorts' shares of the documents, percent, summing to less than 100
     * @param tailFingerprints fingerprints the remaining documents are spread over, at least 1
     * @param sources the sources, their shares of the records summing to 100
     */
    public record Shape(int documents, long attempts, List<Integer> cohortSharesPercent, int tailFingerprints,
                        List<DemoSource> sources) {

        /** @throws BadOperatorInputException if the figures cannot make a data set */
        public void check() {
            int shares = cohortSharesPercent.stream().mapToInt(Integer::intValue).sum();
            if (documents < 1 || attempts < documents || tailFingerprints < 1 || shares >= 100
                    || cohortSharesPercent.stream().anyMatch(p -> p <= 0)) {
                throw new BadOperatorInputException("seed-demo needs documents >= 1, attempts >= documents, positive"
                        + " shares summing below 100% and at least one tail fingerprint; got " + this);
            }
            if (sources.isEmpty() || sources.stream().mapToInt(DemoSource::sharePercent).sum() != 100
                    || sources.stream().anyMatch(d -> d.sharePercent() <= 0 || !(d.coveragePercent() >= 0)
                    || !(d.coveragePercent() < 100))) {
                throw new BadOperatorInputException("seed-demo needs sources with positive shares summing to 100%"
                        + " and coverages in [0, 100); got " + sources);
            }
        }

        /**
         * @param settings the properties {@code seed-demo.documents}, {@code .attempts},
         *     {@code .cohort-shares-percent} (comma-separated), {@code .tail-fingerprints}, and per source (lists
         *     in the order of {@code .sources}) {@code .source-shares-percent}, {@code .coverage-percent} and
         *     {@code .owners} (an empty entry: no owner)
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
            List<String> names = list(settings, "seed-demo.sources");
            List<String> sourceShares = list(settings, "seed-demo.source-shares-percent");
            List<String> coverages = list(settings, "seed-demo.coverage-percent");
            List<String> owners = list(settings, "seed-demo.owners");
            if (sourceShares.size() != names.size() || coverages.size() != names.size()
                    || owners.size() != names.size()) {
                throw new IllegalStateException("seed-demo.source-shares-percent, .coverage-percent and .owners need"
                        + " one entry per source of seed-demo.sources (" + names.size() + ")");
            }
            List<DemoSource> sources = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < names.size(); i++) {
                    sources.add(new DemoSource(names.get(i), Integer.parseInt(sourceShares.get(i)),
                            Double.parseDouble(coverages.get(i)), owners.get(i).isEmpty() ? null : owners.get(i)));
                }
            } catch (NumberFormatException e) {
                throw new IllegalStateException("seed-demo.source-shares-percent must be whole percents and"
                        + " seed-demo.coverage-percent percents, separated by commas, e.g. 75,10,15 and 92.8,99.4,97");
            }
            return new Shape(Math.toIntExact(settings.requiredNumber("seed-demo.documents") * scale),
                    settings.requiredNumber("seed-demo.attempts") * scale, shares,
                    (int) settings.requiredNumber("seed-demo.tail-fingerprints"), List.copyOf(sources));
        }

        private static List<String> list(org.ingestquarantine.pipeline.Settings settings, String key) {
            return java.util.Arrays.stream(settings.required(key).split(",", -1)).map(String::trim).toList();
        }

        /** @return fingerprints in all */
        public int fingerprints() {
            return cohortSharesPercent.size() + tailFingerprints;
        }
    }

    /**
     * Indexes the source's repaired records' documents and as many more as bring its coverage to its figure:
     * {@code indexed = ceil(open * coverage / (100 - coverage))}.
     */
    private void index(DemoSource d) {
        long[] counts = jdbc.queryForObject("SELECT count(*) FILTER (WHERE disposition = 'open'),"
                + " count(*) FILTER (WHERE disposition <> 'open') FROM quarantine WHERE source = ?",
                (rs, n) -> new long[] {rs.getLong(1), rs.getLong(2)}, d.name());
        long open = counts[0];
        long repaired = counts[1];
        String columns = "INSERT INTO documents (source, doc_id, source_version, parser_version, chunker_version,"
                + " embedder_version, page_count, chunk_count, state, indexed_at) ";
        jdbc.update(columns + "SELECT source, doc_id, source_version, ?,"
                + " 'window-1', 'all-minilm-l6-v2', 1, 0, 'searchable', now() FROM quarantine"
                + " WHERE source = ? AND disposition <> 'open'", ParserVersion.CURRENT, d.name());
        // rounded up: the coverage printed (floored to a tenth) is the figure
        long more = (long) Math.ceil(open * d.coveragePercent() / (100 - d.coveragePercent())) - repaired;
        for (long from = 0; from < more; from += INDEXED_PER_STATEMENT) {
            jdbc.update(columns + "SELECT ?, 'indexed/' || lpad(k::text, 9, '0')"
                    + " || '.md', 'etag-indexed-' || k, ?, 'window-1', 'all-minilm-l6-v2', 1, 0, 'searchable', now()"
                    + " FROM generate_series(?, ?) k", d.name(), ParserVersion.CURRENT, from,
                    Math.min(more, from + INDEXED_PER_STATEMENT) - 1);
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
        StringBuilder source = new StringBuilder("CASE");
        bound = 0;
        for (int i = 0; i < shape.sources().size() - 1; i++) {
            bound += Math.round(n * shape.sources().get(i).sharePercent() / 100.0);
            source.append(" WHEN w < ").append(bound).append(" THEN ").append(i);
        }
        source.append(" ELSE ").append(shape.sources().size() - 1).append(" END");
        long base = shape.attempts() / n;
        long extra = shape.attempts() - base * n;
        String docs = DOCS.formatted(n);
        String records = RECORDS.formatted(cohort, extra, base + 1, base, source,
                // the demo stands for a quarantine of this release: its cohorts are of the running algorithm
                org.ingestquarantine.failure.ErrorFingerprint.VERSION);
        String[] sourceNames = shape.sources().stream().map(DemoSource::name).toArray(String[]::new);
        String[] parsers = {RETIRED_PARSER, "pdfbox-3.0.5+iq-parse-1", ParserVersion.CURRENT};
        String[] classes = CLASSES.toArray(new String[0]);
        String[] owners = shape.sources().stream().map(DemoSource::owner).toArray(String[]::new);
        try {
            transactions.executeWithoutResult(tx -> {
                if (Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM quarantine)", Boolean.class))) {
                    throw new BadOperatorInputException("the quarantine already holds records; seed-demo writes"
                            + " only into an empty one (use a fresh --data-dir)");
                }
                jdbc.execute(docs);
                jdbc.execute("CREATE INDEX ON seed_docs (i)");
                for (int from = 0; from < n; from += DOCUMENTS_PER_STATEMENT) {
                    int to = Math.min(n, from + DOCUMENTS_PER_STATEMENT);
                    jdbc.update(records, sourceNames, RETIRED_PARSER, parsers, classes, owners, from, to);
                    jdbc.update(ATTEMPTS, from, to);
                }
                for (DemoSource d : shape.sources()) {
                    index(d);
                }
                // a source's total: its indexed documents and its records whose document is not indexed
                jdbc.update(TOTALS);
                sample.write(jdbc, "seedfp" + "0".repeat(10), RETIRED_PARSER);
                jdbc.execute("ANALYZE quarantine");
                jdbc.execute("ANALYZE quarantine_attempt");
            });
            jdbc.execute("VACUUM ANALYZE quarantine, quarantine_summary, documents"); // index-only scans need the visibility map
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("the demo data set was not written", e, "nothing was committed");
        }
    }
}
