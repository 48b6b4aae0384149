package org.ingestquarantine.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka 3.9 broker in KRaft mode (broker and controller in one process), run as a
 * child JVM from the {@code kafka_2.13} artifact on the test classpath.
 *
 * <p>Both listeners bind to free ports on 127.0.0.1. Data, the generated {@code server.properties},
 * and the child's log ({@link #logFile()}: stdout, stderr and Kafka's own logging at WARN, plus the
 * "started" line) live in one temporary directory that {@link #close()} deletes. Internal topics use
 * replication factor 1 and consumer groups start without the initial rebalance delay.
 *
 * <p>{@link #start()} returns once an {@link Admin} client can describe the cluster, or throws after
 * {@value #START_TIMEOUT_SECONDS} s with the tail of the log. Measured on this 2-core machine under load:
 * start 4 to 6 s, {@link #restart()} after {@link #kill()} about 6 s. The child halts by itself if the
 * test JVM dies (see {@link KafkaKraftChild}).
 *
 * <pre>{@code
 * try (KafkaKraftBroker kafka = KafkaKraftBroker.start()) {
 *     kafka.createTopic("ingest", 3, Map.of("retention.ms", "604800000"));
 *     String bootstrap = kafka.bootstrapServers();   // "127.0.0.1:<port>"
 * }
 * }</pre>
 */
public final class KafkaKraftBroker implements AutoCloseable {
    /** Default partitions of auto-created topics ({@code num.partitions}). */
    public static final int DEFAULT_PARTITIONS = 1;
    /** How long {@link #start()} and {@link #restart()} wait for the broker to answer, in seconds. */
    public static final int START_TIMEOUT_SECONDS = 60;
    /** Heap of the child JVM, in MiB. */
    public static final int CHILD_HEAP_MB = 512;

    private final Path dir;
    private final int brokerPort;
    private final int controllerPort;
    private Process process;

    private KafkaKraftBroker(Path dir, int brokerPort, int controllerPort) {
        this.dir = dir;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
    }

    /** Starts a broker whose auto-created topics get {@value #DEFAULT_PARTITIONS} partition. */
    public static KafkaKraftBroker start() {
        return start(DEFAULT_PARTITIONS);
    }

    /**
     * Starts a broker and waits until it answers.
     *
     * @param numPartitions {@code num.partitions}: partitions of topics created without a count, at least 1
     */
    public static KafkaKraftBroker start(int numPartitions) {
        if (numPartitions < 1) {
            throw new IllegalArgumentException("numPartitions must be at least 1, was " + numPartitions);
        }
        try {
            Path dir = Files.createTempDirectory("kafka-kraft-");
            KafkaKraftBroker broker = new KafkaKraftBroker(dir, freePort(), freePort());
            Files.writeString(broker.serverProperties(), broker.properties(numPartitions));
            broker.launch(Optional.of(Uuid.randomUuid().toString()));
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return {@code 127.0.0.1:<port>} of the PLAINTEXT listener, for {@code bootstrap.servers} */
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** @return the child's combined stdout, stderr and log output */
    public Path logFile() {
        return dir.resolve("kafka.log");
    }

    /** @return whether the child JVM is running */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Creates a topic with replication factor 1 and waits for the broker to confirm it.
     *
     * @param configs topic-level configs such as {@code retention.ms}; may be empty
     */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        try (Admin admin = admin()) {
            NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(configs);
            admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create topic " + name + "; see " + logFile(), e);
        }
    }

    /** Creates the topic a file in {@code broker-configs/kafka/} describes (see {@link KafkaTopicSpec}). */
    public void createTopic(KafkaTopicSpec spec) {
        createTopic(spec.name(), spec.partitions(), spec.configs());
    }

    /** @return a new admin client for this broker; the caller closes it */
    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 250,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000));
    }

    /** Kills the child JVM at once (SIGKILL, no controlled shutdown), keeping its data and ports. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(process);
        }
    }

    /** Starts the broker again on the same ports and data after {@link #kill()}, and waits until it answers. */
    public void restart() {
        if (isRunning()) {
            throw new IllegalStateException("the broker is still running; kill() it first");
        }
        launch(Optional.empty());
    }

    /** Kills the child JVM and deletes its directory. */
    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launch(Optional<String> clusterIdToFormat) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java,
                "-Xms128m", "-Xmx" + CHILD_HEAP_MB + "m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true",
                "-Dlogback.configurationFile=" + writeLogbackConfig(),
                "-cp", testClassPath(),
                KafkaKraftChild.class.getName(), serverProperties().toString()));
        clusterIdToFormat.ifPresent(command::add);
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the Kafka child JVM", e);
        }
        awaitReady();
    }

    private void awaitReady() {
        Instant deadline = Instant.now().plusSeconds(START_TIMEOUT_SECONDS);
        try (Admin admin = admin()) {
            while (Instant.now().isBefore(deadline)) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("Kafka exited with " + process.exitValue() + ":\n" + logTail());
                }
                try {
                    if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException notYet) {
                    sleep(Duration.ofMillis(100));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
        throw new IllegalStateException("Kafka did not answer within " + START_TIMEOUT_SECONDS + " s:\n" + logTail());
    }

    private String properties(int numPartitions) {
        return String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=" + numPartitions,
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "group.initial.rebalance.delay.ms=0",
                // a restart after kill() re-registers the broker; the default 9 s session made that take 15 s
                "broker.session.timeout.ms=2000",
                "broker.heartbeat.interval.ms=500",
                "auto.create.topics.enable=true",
                "");
    }

    private Path serverProperties() {
        return dir.resolve("server.properties");
    }

    private Path writeLogbackConfig() {
        Path file = dir.resolve("logback.xml");
        String xml = """
                <configuration>
                  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <logger name="kafka.server.KafkaRaftServer" level="INFO"/>
                  <root level="WARN"><appender-ref ref="OUT"/></root>
                </configuration>
                """;
        try {
            Files.writeString(file, xml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Surefire puts the real test classpath here; {@code java.class.path} may be its manifest-only jar. */
    private static String testClassPath() {
        return Optional.ofNullable(System.getProperty("surefire.test.class.path"))
                .orElse(System.getProperty("java.class.path"));
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile());
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log at " + logFile() + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void waitFor(Process p) {
        try {
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
