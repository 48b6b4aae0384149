package org.ingestquarantine.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * The machine's RabbitMQ server at {@value #HOST}:{@value #PORT} (user and password {@value #USER}), made
 * ready for a test: started if it is down, our topology imported from {@link #DEFINITIONS}, and able to
 * stop and start the broker application for restart tests.
 *
 * <p>The server is shared by everything on the machine; a test owns the queues and exchanges that
 * {@code definitions.json} names, in this JVM's vhost ({@link #VHOST}), and nothing else. The vhost is {@code /}
 * unless the system property {@value #VHOST_PER_JVM} is {@code true} (the integration lane sets it, pom.xml): then
 * it is {@code iq-it-<pid>}, made fresh with our topology at this JVM's first {@link #ensureRunning()} and deleted at
 * its exit, so that JVMs running tests at once (failsafe's forks) never see each other's messages. Stopping the
 * broker application is felt by every vhost: tests do it inside {@link RabbitMqAppLock#exclusively}. Slow steps ({@code rabbitmqctl}, about 1 s each) happen
 * only in {@link #ensureRunning()}, {@link #importDefinitions()}, {@link #stopApp()} and {@link #startApp()};
 * {@link #purgeQueues()} and {@link #messageCount(String)} use the AMQP client and take milliseconds.
 *
 * <pre>{@code
 * RabbitMqBroker rabbit = RabbitMqBroker.ensureRunning();   // server up, definitions imported
 * rabbit.purgeQueues();                                      // before each test
 * String uri = rabbit.amqpUri();                             // amqp://guest:guest@127.0.0.1:5672/%2f
 * }</pre>
 */
public final class RabbitMqBroker {
    public static final String HOST = "127.0.0.1";
    public static final int PORT = 5672;
    public static final String USER = "guest";
    /** Our topology, relative to the project root (the working directory of Maven's tests). */
    public static final Path DEFINITIONS = Path.of("broker-configs", "rabbitmq", "definitions.json");
    /** How long a start, an import or a restart may take before this class gives up, in seconds. */
    public static final int READY_TIMEOUT_SECONDS = 60;

    /** The system property that gives each JVM a vhost of its own ({@code iq-it-<pid>}) instead of {@code /}. */
    public static final String VHOST_PER_JVM = "it.rabbitmq-vhost-per-jvm";
    /** Prefix of the per-JVM vhosts; one whose JVM is gone is deleted by the next JVM that makes its own. */
    public static final String VHOST_PREFIX = "iq-it-";
    /** This JVM's vhost: {@code /}, or {@code iq-it-<pid>} under {@value #VHOST_PER_JVM}. */
    public static final String VHOST = Boolean.getBoolean(VHOST_PER_JVM) ? VHOST_PREFIX + ProcessHandle.current().pid() : "/";

    /** Set once this JVM has imported the definitions; a later {@link #ensureRunning()} skips the 1-2 s import. */
    private static volatile boolean imported;
    /** Set once this JVM's own vhost exists (under {@value #VHOST_PER_JVM}). */
    private static volatile boolean vhostMade;

    private final List<String> queues;
    private final List<String> exchanges;

    private RabbitMqBroker(JsonNode definitions) {
        this.queues = names(definitions.path("queues"));
        this.exchanges = names(definitions.path("exchanges"));
    }

    /**
     * Makes sure the server answers AMQP (starting {@code rabbitmq-server -detached}, or only the
     * application if the node is up), then imports {@link #DEFINITIONS} (once per JVM, or again when one
     * of its queues is missing) and waits until its queues exist.
     */
    public static RabbitMqBroker ensureRunning() {
        RabbitMqBroker broker = new RabbitMqBroker(readDefinitions());
        if (!broker.answersAmqp()) {
            if (run(List.of("rabbitmqctl", "-q", "ping")) != 0) {
                runOrThrow(List.of("rabbitmq-server", "-detached"));
            } else {
                runOrThrow(List.of("rabbitmqctl", "-q", "start_app"));
            }
        }
        broker.awaitAmqp(true);
        if (!VHOST.equals("/") && !vhostMade) {
            makeOwnVhost();
        }
        if (!imported || !broker.queues.stream().allMatch(broker::queueExists)) {
            broker.importDefinitions();
        }
        return broker;
    }

    /**
     * @return {@code amqp://guest:guest@127.0.0.1:5672/%2f}: the vhost ({@link #VHOST}; {@code /} percent-encoded, as
     *     the AMQP URI spec requires; a bare trailing {@code /} means the empty vhost, which amqp-publish rejects)
     */
    public String amqpUri() {
        return "amqp://" + USER + ":" + USER + "@" + HOST + ":" + PORT + "/"
                + (VHOST.equals("/") ? "%2f" : URLEncoder.encode(VHOST, StandardCharsets.UTF_8));
    }

    /** @return this JVM's vhost, {@link #VHOST}, e.g. for {@code rabbitmqctl -p} */
    public String vhost() {
        return VHOST;
    }

    /** @return the names of the queues {@code definitions.json} declares, e.g. {@code [ingest, ingest.dlq]} */
    public List<String> queues() {
        return queues;
    }

    /** @return a factory for plain AMQP connections to this broker, with a 2 s connection timeout */
    public ConnectionFactory connectionFactory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(HOST);
        factory.setPort(PORT);
        factory.setUsername(USER);
        factory.setPassword(USER);
        factory.setVirtualHost(VHOST);
        factory.setConnectionTimeout(2_000);
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }

    /**
     * Runs {@code rabbitmqctl import_definitions} on {@link #DEFINITIONS} (its objects moved to {@link #VHOST} when
     * that is not {@code /}) and waits until every queue it names exists (the import is asynchronous). Existing
     * objects with equal arguments are left as they are.
     */
    public void importDefinitions() {
        runOrThrow(List.of("rabbitmqctl", "-q", "import_definitions", definitionsForVhost().toString()));
        Instant deadline = Instant.now().plusSeconds(READY_TIMEOUT_SECONDS);
        while (!queues.stream().allMatch(this::queueExists)) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("queues " + queues + " did not appear after importing " + DEFINITIONS);
            }
            sleep(Duration.ofMillis(100));
        }
        imported = true;
    }

    /** Removes every message from our queues. */
    public void purgeQueues() {
        withChannel(ch -> {
            for (String q : queues) {
                ch.queuePurge(q);
            }
        });
    }

    /** Deletes our queues and exchanges, for example before importing changed queue arguments. */
    public void deleteTopology() {
        for (String q : queues) {
            withChannel(ch -> ch.queueDelete(q));
        }
        for (String x : exchanges) {
            withChannel(ch -> ch.exchangeDelete(x));
        }
    }

    /** @return the number of ready messages in {@code queue} (unacknowledged ones are not counted) */
    public long messageCount(String queue) {
        long[] count = new long[1];
        withChannel(ch -> count[0] = ch.queueDeclarePassive(queue).getMessageCount());
        return count[0];
    }

    /** Stops the broker application ({@code rabbitmqctl stop_app}); the Erlang node stays up. */
    public void stopApp() {
        runOrThrow(List.of("rabbitmqctl", "-q", "stop_app"));
        awaitAmqp(false);
    }

    /** Starts the broker application again and waits until AMQP answers and our queues exist. */
    public void startApp() {
        runOrThrow(List.of("rabbitmqctl", "-q", "start_app"));
        awaitAmqp(true);
        Instant deadline = Instant.now().plusSeconds(READY_TIMEOUT_SECONDS);
        while (!queues.stream().allMatch(this::queueExists) && Instant.now().isBefore(deadline)) {
            sleep(Duration.ofMillis(100));
        }
    }

    /** @return whether a connection to {@value #HOST}:{@value #PORT} (vhost {@code /}) can be opened now */
    public boolean answersAmqp() {
        ConnectionFactory root = connectionFactory();
        root.setVirtualHost("/");
        try (Connection ignored = root.newConnection("probe")) {
            return true;
        } catch (IOException | TimeoutException e) {
            return false;
        }
    }

    private boolean queueExists(String queue) {
        try (Connection c = connectionFactory().newConnection("probe"); Channel ch = c.createChannel()) {
            ch.queueDeclarePassive(queue);
            return true;
        } catch (IOException | TimeoutException e) {
            return false;
        }
    }

    private void awaitAmqp(boolean up) {
        Instant deadline = Instant.now().plusSeconds(READY_TIMEOUT_SECONDS);
        while (answersAmqp() != up) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("RabbitMQ at " + HOST + ":" + PORT + " did not "
                        + (up ? "come up" : "go down") + " within " + READY_TIMEOUT_SECONDS + " s; check `rabbitmqctl status`");
            }
            sleep(Duration.ofMillis(100));
        }
    }

    /** One AMQP action on a fresh channel; channel-level errors close only that channel. */
    private void withChannel(ChannelAction action) {
        try (Connection c = connectionFactory().newConnection("test-support"); Channel ch = c.createChannel()) {
            action.run(ch);
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException("RabbitMQ at " + amqpUri() + " refused the operation: " + e, e);
        }
    }

    @FunctionalInterface
    private interface ChannelAction {
        void run(Channel channel) throws IOException;
    }

    /** Creates this JVM's vhost, first deleting those of JVMs that are gone; it is deleted when this JVM exits. */
    private static synchronized void makeOwnVhost() {
        if (vhostMade) {
            return;
        }
        Exec listed = Exec.run(List.of("rabbitmqctl", "-q", "list_vhosts", "name"), Duration.ofSeconds(READY_TIMEOUT_SECONDS));
        for (String line : listed.output().split("\\R")) {
            String name = line.strip();
            if (name.startsWith(VHOST_PREFIX) && name.substring(VHOST_PREFIX.length()).chars().allMatch(Character::isDigit)
                    && !name.equals(VHOST_PREFIX) && ProcessHandle.of(Long.parseLong(name.substring(VHOST_PREFIX.length()))).isEmpty()) {
                deleteVhost(name);
            }
        }
        freshVhost(VHOST);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteVhost(VHOST), "delete-" + VHOST));
        vhostMade = true;
    }

    /** @return {@link #DEFINITIONS}, or under a vhost of our own a copy in the temporary folder naming that vhost */
    private static Path definitionsForVhost() {
        if (VHOST.equals("/")) {
            return DEFINITIONS.toAbsolutePath();
        }
        try {
            ObjectNode definitions = (ObjectNode) readDefinitions();
            ObjectMapper json = new ObjectMapper();
            definitions.set("vhosts", json.createArrayNode().add(json.createObjectNode().put("name", VHOST)));
            for (String kind : List.of("queues", "exchanges", "bindings")) {
                definitions.path(kind).forEach(o -> ((ObjectNode) o).put("vhost", VHOST));
            }
            Path copy = Files.createTempFile("iq-rabbitmq-definitions-" + VHOST + "-", ".json");
            copy.toFile().deleteOnExit();
            Files.writeString(copy, json.writeValueAsString(definitions));
            // read by the server (user rabbitmq), not by rabbitmqctl
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the definitions for vhost " + VHOST, e);
        }
    }

    private static JsonNode readDefinitions() {
        try {
            return new ObjectMapper().readTree(Files.readString(DEFINITIONS));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DEFINITIONS.toAbsolutePath() + "; run from the project root", e);
        }
    }

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> names.add(n.path("name").asText()));
        return List.copyOf(names);
    }

    private static void runOrThrow(List<String> command) {
        Exec result = Exec.run(command, Duration.ofSeconds(READY_TIMEOUT_SECONDS + 30L));
        if (result.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + result.exitCode()
                    + ":\n" + result.output());
        }
    }

    private static int run(List<String> command) {
        return Exec.run(command, Duration.ofSeconds(READY_TIMEOUT_SECONDS)).exitCode();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Deletes {@code vhost} if a run left it, creates it and gives {@value #USER} all rights on it: a test's or a
     * bench's own vhost, never {@code /}.
     */
    public static void freshVhost(String vhost) {
        deleteVhost(vhost);
        rabbitmqctl("add_vhost", vhost);
        rabbitmqctl("set_permissions", "-p", vhost, USER, ".*", ".*", ".*");
    }

    /** Deletes {@code vhost} and everything in it; one that does not exist is no error. */
    public static void deleteVhost(String vhost) {
        Exec.run(List.of("rabbitmqctl", "-q", "delete_vhost", vhost), Duration.ofSeconds(READY_TIMEOUT_SECONDS));
    }

    private static void rabbitmqctl(String... args) {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        command.addAll(List.of(args));
        Exec result = Exec.run(command, Duration.ofSeconds(READY_TIMEOUT_SECONDS));
        if (result.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.output());
        }
    }
}
