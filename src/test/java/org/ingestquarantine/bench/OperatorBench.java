package org.ingestquarantine.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.NamedSqlStrategy;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.SeedDemo;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.PostgresTestBase;

/**
 * Benchmark (a program, not a test): times each operator query on the seed-scale data set and on larger
 * multiples of it, from the summary tables and as plain queries ({@link PlainQueries}), then the quarantine's write
 * throughput (with the summary triggers, then without them and with the plain queries' indexes) through {@link QuarantineStore#record} (one record
 * per transaction, with a stack-trace object each, as the pipeline writes them), beside raw single-row upserts and
 * through routes/quarantine.camel.yaml loaded from the file. Embedded PostgreSQL in a
 * temporary folder. Arguments: scales (default {@code 1,10}), rounds per query (default 21), records written
 * per writer count (default 5000). Before the write cells each path writes as many records with 2 writers, not
 * reported (JIT warm-up; {@code -Dbench.warm-up-records=0} skips it); each cell also gives the CPU per record of
 * this JVM and of the embedded server ({@link CpuMeter}).
 */
public final class OperatorBench {

    private OperatorBench() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> scales = Arrays.stream((args.length > 0 ? args[0] : "1,10").split(",")).map(Integer::valueOf).toList();
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        int writes = args.length > 2 ? Integer.parseInt(args[2]) : 5000;
        Settings settings = ProfileProperties.load("embedded", Map.of());
        for (int scale : scales) {
            Path dir = Files.createTempDirectory("iq-operator-bench-");
            try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(dir.resolve("postgres"), 0);
                 Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
                SeedDemo.Shape shape = SeedDemo.Shape.fromSettings(settings, scale);
                long t0 = System.nanoTime();
                new SeedDemo(db.dataSource(), org.ingestquarantine.operator.SeedDemoSample.fromSettings(settings,
                        new LocalPayloadStore(dir.resolve("objects")), dir.resolve("seed-demo"))).generate(shape);
                System.out.printf(Locale.ROOT, "scale %d: seeded %d attempts over %d documents in %.1f s%n", scale,
                        shape.attempts(), shape.documents(), (System.nanoTime() - t0) / 1e9);
                LocalPayloadStore payloads = new LocalPayloadStore(dir.resolve("objects"));
                QuarantineStore store = new QuarantineStore(db.dataSource(), payloads, Clock.systemUTC());
                OperatorService service = new OperatorService(db.dataSource(), store, payloads, Clock.systemUTC());
                String ref = "demo-contracts/doc/00000001.pdf";
                System.out.println("  today: the questions through OperatorService, reading the summary tables:");
                time("stats", rounds, () -> service.stats(null));
                time("stats --source", rounds, () -> service.stats("demo-scans"));
                time("cohorts", rounds, () -> service.cohorts(null, null, null));
                time("cohorts --class", rounds, () -> service.cohorts(null, "resource_fatal", null));
                time("coverage", rounds, service::coverage);
                time("show", rounds, () -> service.show(ref));
                time("overdue 90d", rounds, () -> service.overdue(Duration.ofDays(90)));
                boolean writeCells = writes > 0 && scale == scales.get(0);
                if (writeCells) {
                    // side by side in one run: raw single-row upserts, QuarantineStore.record and the YAML route on
                    // today's schema (summary triggers), then the two quarantine paths again without the triggers
                    // and with the plain queries' indexes (what dropping the summaries would leave a write)
                    writeCells(db, store, dir, writes, false);
                }
                PlainQueries.createIndexes(pg);
                if (writeCells) {
                    PlainQueries.disableSummaryTriggers(db);
                    System.out.println("  (summary triggers disabled, plain queries' indexes created: the summaries"
                            + " go stale from here)");
                    writeCells(db, store, dir, writes, true);
                    PlainQueries.dropBenchRecords(db);
                }
                PlainQueries plain = new PlainQueries(db);
                System.out.println("  plain GROUP BY queries over quarantine / documents (no summary tables):");
                time("stats", rounds, () -> plain.stats(null));
                time("stats --source", rounds, () -> plain.stats("demo-scans"));
                time("cohorts", rounds, () -> plain.cohorts(null, null));
                time("cohorts --class", rounds, () -> plain.cohorts(null, "resource_fatal"));
                time("coverage", rounds, plain::coverage);
                time("overdue 90d", rounds, () -> plain.overdue(Duration.ofDays(90)));
                plain.explain(System.out);
            } finally {
                PostgresTestBase.deleteTree(dir);
            }
        }
    }

    /**
     * The write cells: records/s and CPU per record at 1, 4 and 8 writers, each path writing its own new keys of
     * one cohort (a poison storm). {@code plain}: only the two quarantine paths, labelled as written without the
     * summary triggers.
     */
    private static void writeCells(Database db, QuarantineStore store, Path dir, int writes, boolean plain)
            throws Exception {
        String tag = plain ? ", no summary triggers" : "";
        Map<String, double[]> rates = new java.util.LinkedHashMap<>();
        Map<String, String[]> cpu = new java.util.LinkedHashMap<>();
        int[] writerCounts = {1, 4, 8};
        CpuMeter meter = new CpuMeter(dir.resolve("postgres"));
        // warm-up, not reported: each path once with 2 writers (keys of their own), so that the JIT's
        // compilation of the write paths is not charged to whichever cell runs first (the 1-writer one)
        int warmUp = plain ? 0 : Integer.getInteger("bench.warm-up-records", writes);
        if (warmUp > 0) {
            System.out.printf(Locale.ROOT, "  warm-up (%d records per path, 2 writers, not reported):%n", warmUp);
            rawUpsertThroughput(db, warmUp, 2, "warm");
            writeThroughput(store, warmUp, 2, "warm");
            routeWriteThroughput(db, store, warmUp, 2, "warm");
        }
        String round = plain ? "plain" : "today";
        for (int w = 0; w < writerCounts.length; w++) {
            int writers = writerCounts[w];
            int cell = w;
            Map<String, Callable<Double>> paths = new java.util.LinkedHashMap<>();
            if (!plain) {
                paths.put("raw single-row upsert", () -> rawUpsertThroughput(db, writes, writers, round));
            }
            paths.put("QuarantineStore.record" + tag, () -> writeThroughput(store, writes, writers, round));
            paths.put("quarantine.camel.yaml" + tag, () -> routeWriteThroughput(db, store, writes, writers, round));
            for (Map.Entry<String, Callable<Double>> path : paths.entrySet()) {
                CpuMeter.Reading before = meter.read();
                rates.computeIfAbsent(path.getKey(), k -> new double[writerCounts.length])[cell] =
                        path.getValue().call();
                cpu.computeIfAbsent(path.getKey(), k -> new String[writerCounts.length])[cell] =
                        meter.read().since(before, writes);
            }
        }
        System.out.printf(Locale.ROOT, "  records/s, one record per transaction (%d records each):%n", writes);
        System.out.printf(Locale.ROOT, "  %-44s %10s %10s %10s%n", "path", "1 writer", "4 writers", "8 writers");
        rates.forEach((path, r) -> System.out.printf(Locale.ROOT, "  %-44s %10.0f %10.0f %10.0f%n", path,
                r[0], r[1], r[2]));
        System.out.printf(Locale.ROOT, "  CPU ms per record, JVM + PostgreSQL (machine busy %%), 2 cores:%n");
        cpu.forEach((path, c) -> System.out.printf(Locale.ROOT, "  %-44s %s | %s | %s%n", path, c[0], c[1], c[2]));
    }

    private static void time(String name, int rounds, Runnable query) {
        for (int i = 0; i < 3; i++) {
            query.run();
        }
        double[] ms = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            long t = System.nanoTime();
            query.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "  %-16s median %7.1f ms   p90 %7.1f ms   min %7.1f ms%n", name, ms[rounds / 2],
                ms[(int) (rounds * 0.9)], ms[0]);
    }

    /**
     * Writes through the pipeline's own quarantine write path: {@link QuarantineRecorder#evidence} (stack trace
     * to the payload store), the {@code sql:} endpoint running {@value QuarantineStore#RECORD_SQL} as
     * routes/quarantine.camel.yaml does (with its parse-once strategy and parameter count), then {@link QuarantineRecorder#committed}; one record per transaction.
     */
    private static double routeWriteThroughput(Database db, QuarantineStore store, int records, int writers,
            String round)
            throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("dataSource", db.dataSource());
            camel.getRegistry().bind("namedSqlStrategy", new NamedSqlStrategy());
            QuarantineRecorder recorder = new QuarantineRecorder(store, new PipelineVersions(Map.of(),
                    ParserVersion.CURRENT, "bench", "bench"), new PipelineMetrics(new SimpleMeterRegistry(), org.ingestquarantine.metrics.SourceTags.of(java.util.Set.of())));
            camel.getRegistry().bind("quarantineRecorder", recorder);
            // the failure path's beans (never called while the store answers), the attempt's close (the journal
            // is not part of this benchmark) and the broker's dead-letter copy (none, as on SQS): no-ops
            NoOps noOps = new NoOps();
            for (String bean : List.of("consumerCircuitBreaker", "failureDisposition", "rethrow", "outcomes",
                    "brokerAdapter")) {
                camel.getRegistry().bind(bean, noOps);
            }
            camel.getPropertiesComponent().addInitialProperty(QuarantineStore.RECORD_PARAMETERS_PROPERTY,
                    Integer.toString(QuarantineStore.recordParameters()));
            camel.addRoutesConfigurations(new org.apache.camel.builder.RouteConfigurationBuilder() {
                @Override
                public void configuration() {
                    // as routes/error-policy.camel.yaml's inner-stage: no error handler of its own
                    routeConfiguration("inner-stage").errorHandler(noErrorHandler());
                }
            });
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:release").routeId("bench-release").log("released: the write failed");
                }
            });
            org.apache.camel.support.PluginHelper.getRoutesLoader(camel).loadRoutes(
                    org.apache.camel.support.ResourceHelper.resolveMandatoryResource(camel,
                            "file:routes/quarantine.camel.yaml"));
            camel.start();
            ProducerTemplate producer = camel.createProducerTemplate();
            double seconds = writeConcurrently(records, writers, n -> {
                Exchange result = producer.send("direct:quarantine", e -> {
                    IllegalStateException failure = new IllegalStateException("seeded " + n);
                    e.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
                    e.setProperty(PipelineKeys.FAILURE, new Classification(ErrorClass.AMBIGUOUS_PARSE,
                            "bench", failure));
                    e.setProperty(PipelineKeys.MESSAGE, new IngestMessage("bench-route-" + round + "-w" + writers,
                            "doc-" + n, URI.create("file:///bench/doc-" + n), "v1", null, null));
                    e.setProperty(PipelineKeys.DELIVERY_KEY, "bench-route/" + round + "/" + writers + "/" + n);
                    e.setProperty(PipelineKeys.DELIVERY_COUNT, 1);
                    e.setProperty(PipelineKeys.STAGE, "parse");
                });
                if (result.getException() != null) {
                    throw result.getException();
                }
            });
            System.out.printf(Locale.ROOT, "  quarantine writes through routes/quarantine.camel.yaml, %d writer(s): %d records"
                    + " in %.2f s = %.0f records/s%n", writers, records, seconds, records / seconds);
            return records / seconds;
        }
    }

    /** The route's beans that only the failure path (and the journal's close) call. */
    public static final class NoOps {
        public void onStoreFailure(Exchange e) {
        }

        public void recordNotWritten(Exchange e) {
        }

        /** As SQS and RabbitMQ: no dead-letter copy. */
        public void addDeadLetterCopy(Exchange e) {
        }

        public void caught(Exchange e) throws Exception {
            Exception caught = e.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
            if (caught != null) {
                throw caught;
            }
        }

        public void quarantined(Exchange e) {
        }
    }

    /** The floor: one single-row upsert per transaction (autocommit) through the same pool, new keys. */
    private static double rawUpsertThroughput(Database db, int records, int writers, String round) throws Exception {
        try (java.sql.Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS bench_raw (k text PRIMARY KEY, v text, n integer NOT NULL)");
        }
        String sql = "INSERT INTO bench_raw (k, v, n) VALUES (?, ?, 1) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v,"
                + " n = bench_raw.n + 1";
        double seconds = writeConcurrently(records, writers, n -> {
            try (java.sql.Connection c = db.dataSource().getConnection();
                 java.sql.PreparedStatement s = c.prepareStatement(sql)) {
                s.setString(1, "raw-" + round + "-w" + writers + "-" + n);
                s.setString(2, "seeded " + n);
                s.executeUpdate();
            }
        });
        System.out.printf(Locale.ROOT, "  raw single-row upserts, %d writer(s): %d in %.2f s = %.0f/s%n", writers,
                records, seconds, records / seconds);
        return records / seconds;
    }

    private static double writeThroughput(QuarantineStore store, int records, int writers, String round) throws Exception {
        String trace = "java.lang.IllegalStateException: seeded\n\tat org.example.Bench.write(Bench.java:1)\n";
        double seconds = writeConcurrently(records, writers, i ->
                store.record(FailureEvidence.builder("bench-" + round + "-w" + writers, "doc-" + i).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                        .errorType("java.lang.IllegalStateException").errorMessage("seeded " + i)
                        .errorFingerprint("benchfp").stackTrace(trace + i).parserVersion("bench")
                        .deliveryKey("bench/" + round + "/" + writers + "/" + i).deliveryCount(1).build()));
        System.out.printf(Locale.ROOT, "  quarantine writes, %d writer(s): %d records in %.2f s = %.0f records/s%n",
                writers, records, seconds, records / seconds);
        return records / seconds;
    }

    /**
     * CPU spent per record during one cell: this JVM's (all its threads: writers, JIT, GC) and the embedded
     * server's (postmaster and its children: backends, WAL writer, checkpointer), from /proc (Linux only; blank
     * elsewhere), and how busy the whole machine was (all processes, other users' jobs included).
     */
    static final class CpuMeter {
        private final Path dataDirectory;
        /** Milliseconds per clock tick of /proc (USER_HZ 100 on every Linux this runs on). */
        private static final double MS_PER_TICK = 10.0;

        CpuMeter(Path dataDirectory) {
            this.dataDirectory = dataDirectory;
        }

        record Reading(long jvmNanos, long serverTicks, long machineBusyTicks, long machineTicks) {
            String since(Reading b, int records) {
                if (serverTicks < 0 || b.serverTicks < 0) {
                    return "n/a";
                }
                double jvm = (jvmNanos - b.jvmNanos) / 1e6 / records;
                double server = (serverTicks - b.serverTicks) * MS_PER_TICK / records;
                double busy = 100.0 * (machineBusyTicks - b.machineBusyTicks) / Math.max(1, machineTicks - b.machineTicks);
                return String.format(Locale.ROOT, "%.2f + %.2f (%.0f%%)", jvm, server, busy);
            }
        }

        Reading read() {
            long jvm = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime();
            try {
                long postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
                long server = 0;
                try (var procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                    for (Path proc : procs) {
                        String[] f;
                        try {
                            String stat = Files.readString(proc.resolve("stat"));
                            f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        } catch (java.io.IOException gone) {
                            continue;
                        }
                        long pid = Long.parseLong(proc.getFileName().toString());
                        // after the command's ")": state(0) ppid(1) ... utime(11) stime(12)
                        if (pid == postmaster || Long.parseLong(f[1]) == postmaster) {
                            server += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                        }
                    }
                }
                String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                long all = 0;
                for (int i = 1; i < cpu.length; i++) {
                    all += Long.parseLong(cpu[i]);
                }
                long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
                return new Reading(jvm, server, all - idle, all);
            } catch (java.io.IOException | RuntimeException e) {
                return new Reading(jvm, -1, 0, 0);
            }
        }
    }

    /** One record's write, by its number. */
    private interface Write {
        void record(int n) throws Exception;
    }

    /**
     * Writes records 0 to {@code records - 1}, each once, from {@code writers} threads that take the next number.
     *
     * @return the wall-clock seconds it took
     */
    private static double writeConcurrently(int records, int writers, Write write) throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        long t = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            done.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < records; i = next.getAndIncrement()) {
                    write.record(i);
                }
                return null;
            }));
        }
        try {
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return (System.nanoTime() - t) / 1e9;
    }
}
