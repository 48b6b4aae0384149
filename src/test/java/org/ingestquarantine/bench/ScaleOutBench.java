package org.ingestquarantine.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.RabbitMqBroker;
import org.ingestquarantine.testsupport.SqlCount;

/**
 * Benchmark, not a test: production mode scaled out. N {@code run} processes (RabbitMQ profile, each on its own data
 * folder, all on one PostgreSQL and one queue: competing consumers) against 1, on the same messages naming real corpus
 * PDFs, in one run, the counts alternating per repetition. A round starts its consumers, waits until every one has
 * registered with the queue (so start-up is not timed), publishes the messages and times until each has its outcome
 * (searchable or quarantined) in PostgreSQL; documents/s and the ratio to the one-consumer round of the same
 * repetition are printed, then medians. CPU-seconds of the whole machine over the round ({@code /proc/stat}) show
 * whether the cores were the limit.
 *
 * <p>Run with {@code bench/scaleout-bench [consumer counts, default 1,2,3] [copies of the corpus per round, default 2]
 * [repetitions, default 2]}. RabbitMQ runs on a vhost of its own, {@value #VHOST}, made fresh and deleted at the end.
 */
public final class ScaleOutBench {

    static final String VHOST = "iq-scaleout";
    private static final Duration ROUND_LIMIT = Duration.ofMinutes(20);

    private ScaleOutBench() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> counts = Stream.of((args.length > 0 ? args[0] : "1,2,3").split(",")).map(Integer::parseInt).toList();
        int copies = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int repetitions = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        Path corpus = Path.of("..", "shared", "corpus", "pdfs").toAbsolutePath().normalize();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(corpus)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        int messages = files.size() * copies;
        System.out.printf(Locale.ROOT, "scaleout-bench: %d messages per round (%d corpus files x %d), consumers %s,"
                + " %d repetitions, %d cores, load %.1f%n", messages, files.size(), copies, counts, repetitions,
                Runtime.getRuntime().availableProcessors(), BrokerBench.loadAverage());
        RabbitMqBroker.freshVhost(VHOST);
        Path tmp = Files.createTempDirectory("iq-scaleout-bench-");
        Map<Integer, List<Double>> rates = new HashMap<>();
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
            int round = 0;
            for (int rep = 0; rep < repetitions; rep++) {
                List<Integer> order = new ArrayList<>(counts);
                if (rep % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (int n : order) {
                    round++;
                    double rate = round(db, pg, tmp, round, n, files, copies, corpus);
                    rates.computeIfAbsent(n, k -> new ArrayList<>()).add(rate);
                }
            }
        } finally {
            RabbitMqBroker.deleteVhost(VHOST);
        }
        List<Double> base = rates.get(counts.get(0));
        System.out.println("consumers | documents/s median (min-max) | ratio to " + counts.get(0) + " (per repetition)");
        for (int n : counts) {
            List<Double> r = rates.get(n);
            List<String> ratios = new ArrayList<>();
            for (int i = 0; i < r.size(); i++) {
                ratios.add(String.format(Locale.ROOT, "%.2f", r.get(i) / base.get(i)));
            }
            System.out.printf(Locale.ROOT, "%d | %s | %s%n", n,
                    BrokerBench.stats(r.stream().mapToDouble(Double::doubleValue).toArray(), "%.2f"), ratios);
        }
    }

    private static double round(Database db, EmbeddedPostgresService pg, Path tmp, int round, int consumers,
                                List<Path> files, int copies, Path corpus) throws Exception {
        String source = "scale" + round;
        Map<String, String> props = new HashMap<>();
        props.put("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:5672/" + VHOST);
        props.put("db.mode", "external");
        props.put("db.url", pg.jdbcUrl());
        props.put("db.user", pg.user());
        props.put("db.password", pg.password());
        props.put("sources." + source + ".file-roots", corpus.toString());
        props.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
        props.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        Path log = Path.of("target", "scaleout-bench-" + round + ".log").toAbsolutePath();
        Files.deleteIfExists(log);
        List<ConsumerProcess> running = new ArrayList<>();
        try (Connection amqp = connection(); Channel channel = amqp.createChannel()) {
            for (int i = 0; i < consumers; i++) {
                running.add(ConsumerProcess.start("rabbitmq", Files.createDirectories(tmp.resolve("data-" + round + "-" + i)),
                        props, Map.of(), log));
            }
            // each consumer process listens with its profile's concurrent consumers; wait until all are there
            int perProcess = 2;
            long deadline = System.nanoTime() + ROUND_LIMIT.toNanos();
            while (consumerCount(amqp) < (long) consumers * perProcess) {
                if (System.nanoTime() > deadline || running.stream().anyMatch(p -> !p.isAlive())) {
                    throw new IllegalStateException("consumers did not all register with the queue; see " + log);
                }
                Thread.sleep(200);
            }
            long cpuBefore = MachineCpu.jiffies();
            long began = System.nanoTime();
            for (int copy = 0; copy < copies; copy++) {
                for (Path f : files) {
                    String docId = copy + "/" + f.getFileName();
                    String body = new IngestMessage(source, docId, f.toUri(), null, null, null).toJson();
                    channel.basicPublish("ingest", "ingest", new AMQP.BasicProperties.Builder().messageId(source + "/" + docId)
                            .deliveryMode(2).contentType("application/json").build(), body.getBytes(StandardCharsets.UTF_8));
                }
            }
            int expected = files.size() * copies;
            while (settled(db, source) < expected) {
                if (System.nanoTime() - began > ROUND_LIMIT.toNanos()) {
                    throw new IllegalStateException("round " + round + " did not settle " + expected + " messages in "
                            + ROUND_LIMIT + "; see " + log);
                }
                Thread.sleep(100);
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            double cpu = MachineCpu.secondsSince(cpuBefore);
            double rate = expected / seconds;
            System.out.printf(Locale.ROOT, "round %d: %d consumer process(es): %d messages in %.1f s = %.2f documents/s,"
                    + " machine CPU %.0f of %.0f core-s (%.0f%% busy), load %.1f%n", round, consumers, expected, seconds,
                    rate, cpu, seconds * Runtime.getRuntime().availableProcessors(),
                    100 * cpu / (seconds * Runtime.getRuntime().availableProcessors()), BrokerBench.loadAverage());
            return rate;
        } finally {
            for (ConsumerProcess p : running) {
                p.terminate();
                p.close();
            }
        }
    }

    private static long settled(Database db, String source) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT (SELECT count(*) FROM documents WHERE source = ? AND state = 'searchable')"
                + " + (SELECT count(*) FROM quarantine WHERE source = ?)", source, source);
    }

    private static long consumerCount(Connection amqp) throws Exception {
        try (Channel ch = amqp.createChannel()) {
            return ch.consumerCount("ingest");
        } catch (java.io.IOException e) {
            return 0; // the queue is declared by the first consumer to start
        }
    }

    private static Connection connection() throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri("amqp://guest:guest@127.0.0.1:5672/" + VHOST);
        return f.newConnection("scaleout-bench");
    }



    /** The whole machine's busy CPU time, from {@code /proc/stat}'s first line (user + nice + system + irq + softirq). */
    static final class MachineCpu {

        private static final double JIFFIES_PER_S = 100.0;

        private MachineCpu() {
        }

        static long jiffies() throws java.io.IOException {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            return Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]);
        }

        static double secondsSince(long before) throws java.io.IOException {
            return (jiffies() - before) / JIFFIES_PER_S;
        }
    }
}
