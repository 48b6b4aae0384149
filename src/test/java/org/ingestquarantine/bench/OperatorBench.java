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
 * multiples of it, then the quarantine's write throughput through {@link QuarantineStore#record} (one record
 * per transaction, with a stack-trace object each, as the pipeline writes them). Embedded PostgreSQL in a
 * temporary folder. Arguments: scales (default {@code 1,10}), rounds per query (default 21), records written
 * per writer count (default 5000).
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
                new SeedDemo(db.dataSource()).generate(shape);
                System.out.printf(Locale.ROOT, "scale %d: seeded %d attempts over %d documents in %.1f s%n", scale,
                        shape.attempts(), shape.documents(), (System.nanoTime() - t0) / 1e9);
                LocalPayloadStore payloads = new LocalPayloadStore(dir.resolve("objects"));
                QuarantineStore store = new QuarantineStore(db.dataSource(), payloads, Clock.systemUTC());
                OperatorService service = new OperatorService(db.dataSource(), store, payloads, Clock.systemUTC());
                String ref = "demo-contracts/doc/00000001.pdf";
                time("stats", rounds, () -> service.stats(null));
                time("stats --source", rounds, () -> service.stats("demo-scans"));
                time("cohorts", rounds, () -> service.cohorts(null, null, null));
                time("cohorts --class", rounds, () -> service.cohorts(null, "resource_fatal", null));
                time("coverage", rounds, service::coverage);
                time("show", rounds, () -> service.show(ref));
                time("overdue 90d", rounds, () -> service.overdue(Duration.ofDays(90)));
                if (scale == scales.get(0)) {
                    for (int writers : new int[] {1, 4}) {
                        writeThroughput(store, writes, writers);
                    }
                    for (int writers : new int[] {1, 4}) {
                        routeWriteThroughput(db, store, writes, writers);
                    }
                }
            } finally {
                PostgresTestBase.deleteTree(dir);
            }
        }
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
    private static void routeWriteThroughput(Database db, QuarantineStore store, int records, int writers)
            throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("dataSource", db.dataSource());
            camel.getRegistry().bind("namedSqlStrategy", new NamedSqlStrategy());
            QuarantineRecorder recorder = new QuarantineRecorder(store, new PipelineVersions(Map.of(),
                    ParserVersion.CURRENT, "bench", "bench"), new PipelineMetrics(new SimpleMeterRegistry()));
            camel.getRegistry().bind("quarantineRecorder", recorder);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:quarantine").routeId("bench-quarantine")
                            .bean("quarantineRecorder", "evidence")
                            .to("sql:classpath:" + QuarantineStore.RECORD_SQL + "?dataSource=#dataSource"
                                    + "&prepareStatementStrategy=#namedSqlStrategy&parametersCount="
                                    + QuarantineStore.recordParameters())
                            .bean("quarantineRecorder", "committed");
                }
            });
            camel.start();
            ProducerTemplate producer = camel.createProducerTemplate();
            double seconds = writeConcurrently(records, writers, n -> {
                Exchange result = producer.send("direct:quarantine", e -> {
                    IllegalStateException failure = new IllegalStateException("seeded " + n);
                    e.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
                    e.setProperty(PipelineKeys.FAILURE, new Classification(ErrorClass.AMBIGUOUS_PARSE,
                            "bench", failure));
                    e.setProperty(PipelineKeys.MESSAGE, new IngestMessage("bench-route-w" + writers,
                            "doc-" + n, URI.create("file:///bench/doc-" + n), "v1", null, null));
                    e.setProperty(PipelineKeys.DELIVERY_KEY, "bench-route/" + writers + "/" + n);
                    e.setProperty(PipelineKeys.DELIVERY_COUNT, 1);
                    e.setProperty(PipelineKeys.STAGE, "parse");
                });
                if (result.getException() != null) {
                    throw result.getException();
                }
            });
            System.out.printf(Locale.ROOT, "  quarantine writes through the route's sql: endpoint, %d writer(s): %d records"
                    + " in %.2f s = %.0f records/s%n", writers, records, seconds, records / seconds);
        }
    }

    private static void writeThroughput(QuarantineStore store, int records, int writers) throws Exception {
        String trace = "java.lang.IllegalStateException: seeded\n\tat org.example.Bench.write(Bench.java:1)\n";
        double seconds = writeConcurrently(records, writers, i ->
                store.record(FailureEvidence.builder("bench-w" + writers, "doc-" + i).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                        .errorType("java.lang.IllegalStateException").errorMessage("seeded " + i)
                        .errorFingerprint("benchfp").stackTrace(trace + i).parserVersion("bench")
                        .deliveryKey("bench/" + writers + "/" + i).deliveryCount(1).build()));
        System.out.printf(Locale.ROOT, "  quarantine writes, %d writer(s): %d records in %.2f s = %.0f records/s%n",
                writers, records, seconds, records / seconds);
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
