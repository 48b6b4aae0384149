package org.ingestquarantine.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.delivery.SettledOutcomes;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.ingest.FolderDocIds;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The scenario half of {@code check-routes}: one message per file of the sample folder, published to the running
 * application (the user's routes loaded), consumed until each has an outcome or a fault of the routes holds the
 * consumer, then checked: no failure of the routes themselves ({@link RouteFaults}; first, since it explains the
 * rest), and the accounting against the database: every message one outcome, no attempt left open, each
 * quarantined message delivered exactly its class's {@code failure.<class>.retries} + 1 times, the summary's counts
 * the database's.
 */
final class ScenarioCheck {

    /** One named check and its verdict. */
    record Verdict(String name, boolean passed, String detail) {

        @Override
        public String toString() {
            return (passed ? "PASS " : "FAIL ") + name + (detail.isEmpty() ? "" : ": " + detail);
        }
    }

    private final PipelineApp app;
    private final String source;

    ScenarioCheck(PipelineApp app, String source) {
        this.app = app;
        this.source = source;
    }

    /**
     * @param samples the folder whose files are published (recursively, in name order)
     * @param timeout how long every message may take to settle
     * @param faults the route faults seen meanwhile
     * @return the run's summary and the verdicts, in the order above
     * @throws Exception when the folder cannot be read or the database answers no query
     */
    Result run(Path samples, Duration timeout, RouteFaults faults) throws Exception {
        List<Path> files = listFiles(samples);
        try (SettledOutcomes settled = SettledOutcomes.listen(app.context())) {
            long started = System.nanoTime();
            IngestPublisher publisher = app.bean("ingestPublisher", IngestPublisher.class);
            Map<String, String> keys = new LinkedHashMap<>();
            for (Path file : files) {
                keys.put(publisher.publish(new IngestMessage(source, FolderDocIds.of(samples, file), file.toUri(),
                        null, null, null)), FolderDocIds.of(samples, file));
            }
            ConsumerCircuitBreaker breaker = app.bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            List<String> unsettled = await(keys, settled, publisher, breaker, timeout);
            long elapsedMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
            RunSummary summary = RunSummary.collect(app, source, keys, settled::outcomeOf, unsettled, elapsedMs, 0,
                    breaker.routeFault().orElse(null));
            List<Verdict> verdicts = new ArrayList<>();
            // first: a fault of the routes themselves explains the verdicts after it (no outcome, unsettled)
            List<RouteProblem> seen = faults.faults();
            verdicts.add(new Verdict("no failure of the routes themselves", seen.isEmpty(),
                    seen.isEmpty() ? "" : seen.size() + ": " + seen.get(0)
                            + (seen.size() > 1 ? " (and " + (seen.size() - 1) + " more)" : "")));
            verdicts.add(oneOutcomeEach(keys, settled, unsettled, !seen.isEmpty()));
            JdbcTemplate db = SpringJdbc.template(app.bean("dataSource", DataSource.class));
            try {
                verdicts.add(noOpenAttempt(db, seen.isEmpty() ? Duration.ZERO : IngestCommand.QUIET_LIMIT));
                verdicts.add(deliveriesPerClass(db, keys, settled));
                verdicts.add(summaryIsTheDatabase(db, summary));
            } catch (DataAccessException e) {
                throw SpringJdbc.cause(e);
            }
            return new Result(summary, verdicts, seen);
        }
    }

    /** What the scenario saw: the summary, the verdicts, and each route fault (for one line each). */
    record Result(RunSummary summary, List<Verdict> verdicts, List<RouteProblem> faults) {

        boolean passed() {
            return verdicts.stream().allMatch(Verdict::passed);
        }
    }

    /** @return the keys still unsettled when all settled, the time ran out or a fault of the routes holds the consumer */
    private static List<String> await(Map<String, String> keys, SettledOutcomes settled, IngestPublisher publisher,
                                      ConsumerCircuitBreaker breaker, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long quietSince = -1;
        while (true) {
            List<String> open = keys.keySet().stream().filter(k -> settled.outcomeOf(k) == null).toList();
            if (open.isEmpty() || System.nanoTime() > deadline || breaker.routeFault().isPresent()) {
                return open;
            }
            if (publisher.pending() == 0) { // dead-lettered by the broker, or acknowledged without an outcome
                quietSince = quietSince < 0 ? System.nanoTime() : quietSince;
                if (System.nanoTime() - quietSince > IngestCommand.QUIET_LIMIT.toNanos()) {
                    return open;
                }
            } else {
                quietSince = -1;
            }
            Thread.sleep(100);
        }
    }

    private static Verdict oneOutcomeEach(Map<String, String> keys, SettledOutcomes settled, List<String> unsettled,
                                          boolean routeFault) {
        String name = "every message one outcome";
        if (!unsettled.isEmpty()) {
            return new Verdict(name, false, unsettled.size() + " of " + keys.size() + " have none (e.g. "
                    + keys.get(unsettled.get(0)) + ")" + (routeFault ? ": released by the fault of the routes above"
                    : ": still on the broker or in its dead-letter queue"));
        }
        List<String> abandoned = keys.keySet().stream().filter(k -> "abandoned".equals(settled.outcomeOf(k))).toList();
        if (!abandoned.isEmpty()) {
            return new Verdict(name, false, abandoned.size() + " of " + keys.size() + " abandoned (e.g. "
                    + keys.get(abandoned.get(0)) + "): a route ended the delivery without an outcome bean (a stop, a"
                    + " filter or a choice that skips it; routes/README.md)");
        }
        return settled.count() == keys.size() ? new Verdict(name, true, keys.size() + " messages")
                : new Verdict(name, false, settled.count() + " outcomes for " + keys.size() + " messages");
    }

    private static long count(JdbcTemplate jdbc, String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0L : n;
    }

    /** @param settle how long deliveries still in flight (a route fault ended the wait early) may take to close */
    private static Verdict noOpenAttempt(JdbcTemplate db, Duration settle) throws InterruptedException {
        long deadline = System.nanoTime() + settle.toNanos();
        long open = count(db, "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL");
        while (open > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            open = count(db, "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL");
        }
        return new Verdict("no open attempt", open == 0, open == 0 ? "" : open + " attempt_journal rows never closed");
    }

    private Verdict deliveriesPerClass(JdbcTemplate jdbc, Map<String, String> keys, SettledOutcomes settled) {
        RedeliveryPolicies policies = app.bean("redeliveryPolicies", RedeliveryPolicies.class);
        QuarantineStore store = app.bean("quarantineStore", QuarantineStore.class);
        Map<ErrorClass, Integer> byClass = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> e : keys.entrySet()) {
            if (!"quarantined".equals(settled.outcomeOf(e.getKey()))) {
                continue;
            }
            QuarantineRecord record = store.find(source, e.getValue()).orElse(null);
            if (record == null) {
                wrong.add(e.getValue() + ": quarantined without a record under its own (source, doc_id)");
                continue;
            }
            int expected = policies.forClass(record.errorClass()).maxDeliveries();
            long deliveries = count(jdbc, "SELECT count(*) FROM attempt_journal WHERE delivery_key = ? AND outcome IS DISTINCT FROM 'pipeline_fault'", e.getKey());
            if (deliveries != expected) {
                wrong.add(e.getValue() + " (" + record.errorClass().code() + "): " + deliveries + " deliveries, expected "
                        + expected);
            }
            byClass.merge(record.errorClass(), (int) deliveries, (a, b) -> a);
        }
        StringBuilder seen = new StringBuilder();
        byClass.forEach((c, d) -> seen.append(seen.isEmpty() ? "" : ", ").append(c.code()).append(' ').append(d));
        return wrong.isEmpty() ? new Verdict("deliveries = retries + 1 per class", true, seen.toString())
                : new Verdict("deliveries = retries + 1 per class", false, wrong.size() + ": " + wrong.get(0));
    }

    private Verdict summaryIsTheDatabase(JdbcTemplate jdbc, RunSummary summary) {
        long indexed = count(jdbc, "SELECT count(*) FROM documents WHERE source = ? AND state = 'searchable'", source);
        Map<String, Integer> quarantined = new TreeMap<>();
        for (ErrorClass c : ErrorClass.values()) {
            long n = count(jdbc, "SELECT count(*) FROM quarantine WHERE source = ? AND disposition = 'open'"
                    + " AND error_class = ?", source, c.code());
            if (n > 0) {
                quarantined.put(c.code(), (int) n);
            }
        }
        Map<String, Integer> skipped = new TreeMap<>();
        jdbc.query("SELECT reason, count(*) FROM skipped_documents WHERE source = ? GROUP BY reason",
                rs -> {
                    skipped.put(rs.getString(1), rs.getInt(2));
                }, source);
        String name = "summary counts = database counts";
        if (indexed != summary.indexed()) {
            return new Verdict(name, false, "indexed " + summary.indexed() + ", database " + indexed);
        }
        if (!quarantined.equals(summary.quarantined())) {
            return new Verdict(name, false, "quarantined " + summary.quarantined() + ", database " + quarantined);
        }
        if (!skipped.equals(summary.skipped())) {
            return new Verdict(name, false, "skipped " + summary.skipped() + ", database " + skipped);
        }
        return new Verdict(name, true, "indexed " + indexed + ", quarantined " + quarantined
                + (skipped.isEmpty() ? "" : ", skipped " + skipped));
    }

    private static List<Path> listFiles(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> !Files.isDirectory(p)).sorted().toList();
        }
    }
}
