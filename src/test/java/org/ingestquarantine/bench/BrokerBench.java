package org.ingestquarantine.bench;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.camel.Route;
import org.apache.camel.spi.RouteController;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.KafkaKraftBroker;
import org.ingestquarantine.testsupport.KafkaTopicSpec;
import org.ingestquarantine.testsupport.RabbitMqBroker;

/**
 * Benchmark (bench/broker-bench): per broker, the throughput of the full consumer path with the error
 * machinery on (circuit breaker, delivery guard, attempt journal, stage marks, closing outcome, the
 * error-policy route configuration) against a bare consume-and-acknowledge route on the same endpoint
 * ({@code ingest.from-uri}), both with a trivial processor instead of the document work.
 *
 * <p>One application per broker runs both: the real route files with process-document replaced by
 * {@code bench/routes/process-document.camel.yaml}, plus {@code bench/routes/bench-bare-consumer.camel.yaml}.
 * No route starts by itself; each round publishes {@code messages} fresh messages, starts the routes of
 * one mode, and measures from the first finished message to the last (start-up is not measured). Rounds
 * alternate the order bare/full, after one unmeasured warm-up round of each; the ratio full/bare is taken
 * per repetition, so both sides of a ratio saw the same machine load.
 *
 * <p>Arguments: brokers (comma list of sqs, rabbitmq, kafka; default all), messages per round (default
 * 2000), repetitions (default 5). RabbitMQ: the machine's broker at 127.0.0.1:5672, with queues of its own
 * ({@code iq-bench}, {@code iq-bench.dlq}), deleted at the end. Kafka: a KRaft child JVM. SQS: the embedded
 * profile's in-JVM ElasticMQ. PostgreSQL: embedded, in a temporary folder.
 */
public final class BrokerBench {

    private static final String BARE_ROUTE = "bench-bare-consumer";
    private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(10);
    private static final String RABBIT_NAME = "iq-bench";

    private BrokerBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> brokers = List.of((args.length > 0 ? args[0] : "sqs,rabbitmq,kafka").split(","));
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        List<String> summary = new ArrayList<>();
        for (String broker : brokers) {
            summary.add(bench(broker.trim(), messages, reps));
        }
        System.out.println();
        System.out.printf("%d messages per round, %d repetitions; msg/s as median (min-max)%n", messages, reps);
        summary.forEach(System.out::println);
        System.exit(0);
    }

    private static String bench(String broker, int messages, int reps) throws Exception {
        Path work = Files.createTempDirectory("broker-bench-" + broker);
        Map<String, String> p = new HashMap<>();
        p.put("iq.routes-dir", routesDir(work.resolve("routes")).toString());
        p.put("camel.main.auto-startup", "false");
        // the parser is never called; no worker JVMs competing for the two cores
        p.put("parse.mode", "in-process");
        AutoCloseable brokerProcess = () -> { };
        String profile = broker;
        switch (broker) {
            case "sqs" -> profile = "embedded";
            case "rabbitmq" -> {
                RabbitMqBroker rabbit = RabbitMqBroker.ensureRunning();
                p.put("rabbitmq.uri", rabbit.amqpUri());
                p.put("rabbitmq.exchange", RABBIT_NAME);
                p.put("rabbitmq.routing-key", RABBIT_NAME);
                p.put("rabbitmq.queue", RABBIT_NAME);
                p.put("rabbitmq.dlx", RABBIT_NAME + ".dlx");
                p.put("rabbitmq.dlq", RABBIT_NAME + ".dlq");
                p.put("rabbitmq.retry-queue", RABBIT_NAME + ".retry");
                brokerProcess = () -> deleteRabbitTopology(rabbit);
            }
            case "kafka" -> {
                KafkaKraftBroker kafka = KafkaKraftBroker.start();
                kafka.createTopic(KafkaTopicSpec.forTopic("ingest"));
                kafka.createTopic(KafkaTopicSpec.forTopic("ingest.dlq"));
                p.put("kafka.bootstrap-servers", kafka.bootstrapServers());
                brokerProcess = kafka;
            }
            default -> throw new IllegalArgumentException("unknown broker " + broker + "; use sqs, rabbitmq or kafka");
        }
        try (AutoCloseable b = brokerProcess; PipelineApp app = PipelineApp.start(profile, work.resolve("data"), p)) {
            Bench bench = new Bench(broker, app);
            bench.declare();
            bench.round(false, Math.max(1, messages / 4));
            bench.round(true, Math.max(1, messages / 4));
            double[] bare = new double[reps];
            double[] full = new double[reps];
            double[] ratio = new double[reps];
            for (int i = 0; i < reps; i++) {
                boolean fullFirst = i % 2 == 1;
                if (fullFirst) {
                    full[i] = bench.round(true, messages);
                    bare[i] = bench.round(false, messages);
                } else {
                    bare[i] = bench.round(false, messages);
                    full[i] = bench.round(true, messages);
                }
                ratio[i] = full[i] / bare[i];
                System.out.printf(Locale.ROOT, "%s rep %d: bare %.0f msg/s, full %.0f msg/s, ratio %.3f%n",
                        broker, i + 1, bare[i], full[i], ratio[i]);
            }
            return String.format(Locale.ROOT, "%-8s bare %s  full %s  ratio %s", broker, stats(bare, "%.0f"),
                    stats(full, "%.0f"), stats(ratio, "%.3f"));
        }
    }

    /** The real route files, with process-document replaced by the bench's, plus the bare route. */
    private static Path routesDir(Path dir) throws Exception {
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

    private static void deleteRabbitTopology(RabbitMqBroker rabbit) throws Exception {
        try (var c = rabbit.connectionFactory().newConnection("broker-bench"); var ch = c.createChannel()) {
            ch.queueDelete(RABBIT_NAME);
            ch.queueDelete(RABBIT_NAME + ".dlq");
            ch.queueDelete(RABBIT_NAME + ".retry");
            ch.exchangeDelete(RABBIT_NAME);
            ch.exchangeDelete(RABBIT_NAME + ".dlx");
        }
    }

    private static String stats(double[] values, String format) {
        double[] s = values.clone();
        java.util.Arrays.sort(s);
        double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        return String.format(Locale.ROOT, format + " (" + format + "-" + format + ")", median, s[0], s[s.length - 1]);
    }

    /** One application and the rounds run on it. */
    private static final class Bench {

        private final String broker;
        private final PipelineApp app;
        private final BenchMeter meter;
        private final IngestPublisher publisher;
        private int published;

        Bench(String broker, PipelineApp app) {
            this.broker = broker;
            this.app = app;
            this.meter = app.bean("benchMeter", BenchMeter.class);
            this.publisher = app.bean("ingestPublisher", IngestPublisher.class);
        }

        /** Starts and stops the bare route once, so its endpoint declares the queues (RabbitMQ). */
        void declare() throws Exception {
            app.context().getRouteController().startRoute(BARE_ROUTE);
            app.context().getRouteController().stopRoute(BARE_ROUTE);
        }

        /** @return messages per second of the mode's routes over {@code n} fresh messages */
        double round(boolean full, int n) throws Exception {
            for (int i = 0; i < n; i++) {
                published++;
                publisher.publish(new IngestMessage("bench", "doc-" + published,
                        URI.create("file:///bench/doc-" + published + ".pdf"), null, null, null));
            }
            meter.reset();
            List<String> routes = routes(full);
            RouteController control = app.context().getRouteController();
            for (String id : routes) {
                control.startRoute(id);
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
            return rate;
        }

        private List<String> routes(boolean full) {
            if (!full) {
                return List.of(BARE_ROUTE);
            }
            // inner routes first, the consumer (ingest-consumer) last
            List<String> ids = new ArrayList<>();
            for (Route r : app.context().getRoutes()) {
                if (!r.getRouteId().equals(BARE_ROUTE) && !r.getRouteId().equals("ingest-consumer")) {
                    ids.add(r.getRouteId());
                }
            }
            ids.add("ingest-consumer");
            return ids;
        }
    }
}
