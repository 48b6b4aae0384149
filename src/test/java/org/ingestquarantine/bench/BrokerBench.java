package org.ingestquarantine.bench;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.camel.Route;
import org.apache.camel.spi.RouteController;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.Exec;
import org.ingestquarantine.testsupport.RabbitMqBroker;
import org.ingestquarantine.testsupport.KafkaKraftBroker;
import org.ingestquarantine.testsupport.KafkaTopicSpec;

/**
 * Benchmark (bench/broker-bench): per broker, the throughput of the full consumer path against an honest bare
 * route on the same endpoint ({@code ingest.from-uri} of the profile, same options), and a poison run
 * ({@link PoisonBench}).
 *
 * <p><b>Path comparison.</b> One application per broker holds three kinds of route, never running together:
 * <ul>
 *   <li>full: the product's own route files from {@code routes/} (consumer, circuit breaker, delivery guard,
 *       attempt journal, stage marks, closing outcome, error-policy) with only process-document replaced by
 *       {@code bench/routes/process-document.camel.yaml}, which keeps its steps but does no document work;</li>
 *   <li>bare: consume, INSERT one row in PostgreSQL in its own transaction, acknowledge
 *       ({@code bench/routes/bench-bare-consumer.camel.yaml}, {@link BenchMeter#bare}): the durable minimum of
 *       any at-least-once consumer, on the same pool;</li>
 *   <li>consume-only: consume and acknowledge, nothing written: what the broker endpoint itself allows
 *       (reported, not part of the ratio).</li>
 * </ul>
 * Each round publishes {@code messages} fresh messages, starts the routes of one mode and measures from the
 * first finished message to the last. After one unmeasured warm-up round of each (same size), every repetition runs
 * consume-only, then bare and full in alternating order; the ratio full/bare is taken per repetition. Each
 * round also counts the database's <em>writing transactions</em> per message: the advance of the next
 * transaction id ({@code pg_snapshot_xmax(pg_current_snapshot())}), which PostgreSQL assigns to every
 * transaction that writes or locks a row and only to those, so it counts the commits that reach the WAL
 * (plus any rolled-back writer, and the attempt heartbeat's one UPDATE a second); read-only statements and
 * the pool's validation are not in it.
 *
 * <p>Brokers: SQS is the embedded profile's in-JVM ElasticMQ; RabbitMQ is the machine's broker at
 * 127.0.0.1:5672 on a vhost of its own, {@value #RABBIT_VHOST}, created fresh for the run with
 * {@code rabbitmqctl} (guest given all rights) and deleted at the end; Kafka a KRaft child JVM. PostgreSQL:
 * embedded, in a temporary folder.
 *
 * <p>Arguments: {@code [path|poison|all] [brokers] [messages] [repetitions]}; path defaults: sqs,rabbitmq,kafka,
 * 500 messages, 3 repetitions; poison defaults: see {@link PoisonBench}.
 */
public final class BrokerBench {

    private static final String BARE_ROUTE = "bench-bare-consumer";
    private static final String CONSUME_ONLY_ROUTE = "bench-consume-only";
    private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(10);
    /** The RabbitMQ vhost of the benchmark (never {@code /}). */
    static final String RABBIT_VHOST = "iq-bench";
    /**
     * {@code -Dbench.synchronous-commit=off} (bench only, default on): the bench's database commits without
     * waiting for its WAL flush, to separate the disk's flush per commit from the consumer path's own cost.
     */
    static final boolean SYNCHRONOUS_COMMIT = !"off".equals(System.getProperty("bench.synchronous-commit", "on"));

    private BrokerBench() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "all";
        String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        List<String> summary = new ArrayList<>();
        if (mode.equals("path") || mode.equals("all")) {
            List<String> brokers = List.of((rest.length > 0 ? rest[0] : "sqs,rabbitmq,kafka").split(","));
            int messages = rest.length > 1 ? Integer.parseInt(rest[1]) : 500;
            int reps = rest.length > 2 ? Integer.parseInt(rest[2]) : 3;
            System.out.printf(Locale.ROOT, "broker-bench path: %d messages per round, %d repetitions, load %.1f,"
                    + " synchronous_commit %s%n", messages, reps, loadAverage(), SYNCHRONOUS_COMMIT ? "on" : "off");
            for (String broker : brokers) {
                summary.add(bench(broker.trim(), messages, reps));
            }
            System.out.println();
            System.out.printf(Locale.ROOT, "%d messages per round, %d repetitions; msg/s and writing transactions"
                    + " per message as median (min-max); load at end %.1f%n", messages, reps, loadAverage());
            summary.forEach(System.out::println);
        }
        if (mode.equals("poison") || mode.equals("all")) {
            PoisonBench.run(mode.equals("poison") ? rest : new String[0]);
        }
        if (!List.of("path", "poison", "all").contains(mode)) {
            throw new IllegalArgumentException("first argument: path, poison or all, not " + mode);
        }
        System.exit(0);
    }

    /** A broker made ready for one application: its profile, the overrides it needs, and how to take it down. */
    record BrokerUnderTest(String profile, AutoCloseable teardown) {
    }

    /**
     * Starts or prepares the broker and puts the properties the application needs into {@code p}.
     *
     * @param broker sqs, rabbitmq or kafka
     * @param p overrides for {@link PipelineApp#start}
     * @return the profile to start and the broker's teardown
     */
    static BrokerUnderTest prepare(String broker, Map<String, String> p) {
        switch (broker) {
            case "sqs":
                return new BrokerUnderTest("embedded", () -> { });
            case "rabbitmq":
                RabbitMqBroker.freshVhost(RABBIT_VHOST);
                p.put("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:5672/" + RABBIT_VHOST);
                return new BrokerUnderTest("rabbitmq", () -> RabbitMqBroker.deleteVhost(RABBIT_VHOST));
            case "kafka":
                KafkaKraftBroker kafka = KafkaKraftBroker.start();
                kafka.createTopic(KafkaTopicSpec.forTopic("ingest"));
                kafka.createTopic(KafkaTopicSpec.forTopic("ingest.dlq"));
                p.put("kafka.bootstrap-servers", kafka.bootstrapServers());
                return new BrokerUnderTest("kafka", kafka);
            default:
                throw new IllegalArgumentException("unknown broker " + broker + "; use sqs, rabbitmq or kafka");
        }
    }



    private static String bench(String broker, int messages, int reps) throws Exception {
        Path work = Files.createTempDirectory("broker-bench-" + broker);
        Map<String, String> p = new HashMap<>();
        p.put("iq.routes-dir", routesDir(work.resolve("routes")).toString());
        p.put("camel.main.auto-startup", "false");
        // the parser is never called; no worker JVMs competing for the two cores
        p.put("parse.mode", "in-process");
        // the messages name file:///bench/doc-<n>.pdf, never read (no document work); the source must be configured
        // all the same, or every message is quarantined at receive as unknown_source
        p.put(org.ingestquarantine.ingest.SourceAccess.PREFIX + "bench.file-roots", "/");
        // -Dbench.journal-open-commit=synchronous: the journal's open as it was before issue 26, for a before/after
        String openCommit = System.getProperty("bench.journal-open-commit");
        if (openCommit != null) {
            p.put(org.ingestquarantine.delivery.OpenCommit.PROPERTY, openCommit);
        }
        BrokerUnderTest b = prepare(broker, p);
        try (AutoCloseable teardown = b.teardown(); PipelineApp app = PipelineApp.start(b.profile(), work.resolve("data"), p)) {
            Bench bench = new Bench(broker, app);
            if (!SYNCHRONOUS_COMMIT) {
                bench.commitWithoutFlushWait();
            }
            bench.declare();
            // warm-up, unmeasured: a whole round of each (a quarter round left the first repetition JIT-cold)
            bench.round(Mode.CONSUME_ONLY, messages);
            bench.round(Mode.BARE, messages);
            bench.round(Mode.FULL, messages);
            double[] only = new double[reps];
            double[] bare = new double[reps];
            double[] full = new double[reps];
            double[] ratio = new double[reps];
            double[] bareTx = new double[reps];
            double[] fullTx = new double[reps];
            for (int i = 0; i < reps; i++) {
                only[i] = bench.round(Mode.CONSUME_ONLY, messages).rate();
                Round r1 = bench.round(i % 2 == 0 ? Mode.BARE : Mode.FULL, messages);
                Round r2 = bench.round(i % 2 == 0 ? Mode.FULL : Mode.BARE, messages);
                Round bareRound = i % 2 == 0 ? r1 : r2;
                Round fullRound = i % 2 == 0 ? r2 : r1;
                bare[i] = bareRound.rate();
                full[i] = fullRound.rate();
                bareTx[i] = bareRound.writesPerMessage();
                fullTx[i] = fullRound.writesPerMessage();
                ratio[i] = full[i] / bare[i];
                System.out.printf(Locale.ROOT, "%s rep %d: consume-only %.0f msg/s, bare %.0f msg/s (%.2f writing tx/msg),"
                                + " full %.0f msg/s (%.2f writing tx/msg), ratio full/bare %.3f, load %.1f%n",
                        broker, i + 1, only[i], bare[i], bareTx[i], full[i], fullTx[i], ratio[i], loadAverage());
            }
            return String.format(Locale.ROOT, "%-8s consume-only %s  bare %s  full %s  ratio %s  writing tx/msg bare %s"
                            + " full %s", broker, stats(only, "%.0f"), stats(bare, "%.0f"), stats(full, "%.0f"),
                    stats(ratio, "%.3f"), stats(bareTx, "%.2f"), stats(fullTx, "%.2f"));
        }
    }

    /** The real route files, with process-document replaced by the bench's, plus the bare routes. */
    static Path routesDir(Path dir) throws Exception {
        Files.createDirectories(dir);
        for (Path from : List.of(Path.of("routes"), Path.of("bench", "routes"))) {
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".camel.yaml"))::iterator) {
                    Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return dir;
    }

    /**
     * @param db the bench's database
     * @return the next transaction id PostgreSQL will assign; it advances once per writing transaction
     */
    static long nextXid(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String stats(double[] values, String format) {
        double[] s = values.clone();
        Arrays.sort(s);
        double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median, s[0], s[s.length - 1]);
    }

    private enum Mode { CONSUME_ONLY, BARE, FULL }

    /** One measured round: messages/s and writing transactions per message. */
    private record Round(double rate, double writesPerMessage) {
    }

    /** One application and the rounds run on it. */
    private static final class Bench {

        private final String broker;
        private final PipelineApp app;
        private final BenchMeter meter;
        private final IngestPublisher publisher;
        private final DataSource db;
        private final KafkaGroupBalance group;
        private int published;

        Bench(String broker, PipelineApp app) throws SQLException {
            this.broker = broker;
            this.app = app;
            this.group = broker.equals("kafka") ? KafkaGroupBalance.of(app.context()) : null;
            this.meter = app.bean("benchMeter", BenchMeter.class);
            this.publisher = app.bean("ingestPublisher", IngestPublisher.class);
            this.db = app.bean("dataSource", DataSource.class);
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute(BenchMeter.CREATE_BARE_TABLE);
            }
        }

        /**
         * Makes the bench database's sessions commit without waiting for the WAL flush
         * ({@code synchronous_commit=off} as the database's default, which overrides the server's command line)
         * and has the pool replace its open connections, so every later session has it.
         */
        void commitWithoutFlushWait() throws SQLException {
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = off',"
                        + " current_database()); END $$");
            }
            ((com.zaxxer.hikari.HikariDataSource) db).getHikariPoolMXBean().softEvictConnections();
            try (Connection c = db.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
                rs.next();
                System.out.println(broker + ": synchronous_commit " + rs.getString(1) + " (bench.synchronous-commit=off)");
            }
        }

        /** Starts and stops the bare route once, so its endpoint declares the queues (RabbitMQ). */
        void declare() throws Exception {
            app.context().getRouteController().startRoute(BARE_ROUTE);
            app.context().getRouteController().stopRoute(BARE_ROUTE);
        }

        /** @return messages per second of the mode's routes over {@code n} fresh messages, and writes per message */
        Round round(Mode mode, int n) throws Exception {
            List<String> routes = routes(mode);
            RouteController control = app.context().getRouteController();
            long xid0 = nextXid(db);
            if (group == null) {
                publish(n);
                meter.reset();
                for (String id : routes) {
                    control.startRoute(id);
                }
            } else {
                // Kafka: the consumers join their group one by one and a cooperative rebalance hands partitions
                // out over several rounds; measured from the first record, a round would time one consumer
                // working alone while the others wait for partitions. So the group settles first (every member
                // holding a partition), then the round's records are published (faster than any consumer).
                meter.reset();
                for (String id : routes) {
                    control.startRoute(id);
                }
                group.awaitBalanced();
                publish(n);
            }
            long deadline = System.nanoTime() + ROUND_TIMEOUT.toNanos();
            while (meter.count() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(broker + ": only " + meter.count() + " of " + n
                            + " messages finished within " + ROUND_TIMEOUT);
                }
                Thread.sleep(20);
            }
            double rate = meter.rate();
            for (int i = routes.size() - 1; i >= 0; i--) {
                control.stopRoute(routes.get(i));
            }
            long writes = nextXid(db) - xid0;
            return new Round(rate, (double) writes / n);
        }

        private void publish(int n) {
            for (int i = 0; i < n; i++) {
                published++;
                publisher.publish(new IngestMessage("bench", "doc-" + published,
                        URI.create("file:///bench/doc-" + published + ".pdf"), null, null, null));
            }
        }

        private List<String> routes(Mode mode) {
            if (mode == Mode.BARE) {
                return List.of(BARE_ROUTE);
            }
            if (mode == Mode.CONSUME_ONLY) {
                return List.of(CONSUME_ONLY_ROUTE);
            }
            // inner routes first, the consumer (ingest-consumer) last
            List<String> ids = new ArrayList<>();
            for (Route r : app.context().getRoutes()) {
                String id = r.getRouteId();
                if (!id.equals(BARE_ROUTE) && !id.equals(CONSUME_ONLY_ROUTE) && !id.equals("ingest-consumer")) {
                    ids.add(id);
                }
            }
            ids.add("ingest-consumer");
            return ids;
        }
    }
}
