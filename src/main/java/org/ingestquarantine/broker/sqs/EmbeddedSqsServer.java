package org.ingestquarantine.broker.sqs;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import org.elasticmq.StrictSQSLimits$;
import org.elasticmq.actor.QueueManagerActor;
import org.elasticmq.actor.queue.QueueEvent;
import org.elasticmq.persistence.sql.SqlQueuePersistenceActor;
import org.elasticmq.persistence.sql.SqlQueuePersistenceConfig;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.elasticmq.rest.sqs.TheSQSRestServerBuilder;
import org.elasticmq.util.NowProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.collection.immutable.List$;
import scala.concurrent.Await;

/**
 * The SQS protocol in this JVM: an ElasticMQ server on loopback, for the embedded profile and tests.
 * Started with a store folder, its queues and their messages are kept in an H2 database there
 * (ElasticMQ's SQL persistence: every queue event is written through, and restored at the next start),
 * so stopping {@code run} or {@code ingest} loses nothing queued. {@link SqsQueues} creates the queues from
 * {@code broker-configs/sqs/} when they are not there yet.
 *
 * <p>A server with a store stops only when {@link #close()} is called, never by itself when the JVM exits:
 * its actor system runs no JVM shutdown hook ({@code pekko.coordinated-shutdown.run-by-jvm-shutdown-hook=off})
 * and its H2 store does not close on exit ({@code DB_CLOSE_ON_EXIT=FALSE}); {@link #close()} stops the server,
 * then the actors, then closes the store ({@code SHUTDOWN}). The application closes it after its consumers
 * have finished or handed back their messages, so a hand-back during a shutdown is still written to the store.
 */
public final class EmbeddedSqsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedSqsServer.class);
    /** H2 database file name (without H2's {@code .mv.db}) in the store folder. */
    static final String DATABASE = "elasticmq";
    private static final Duration RESTORE_TIMEOUT = Duration.ofSeconds(30);

    /** Pekko settings of a server with a store: nothing of it stops in a JVM shutdown hook. */
    private static final String NO_EXIT_HOOKS = "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
            + "pekko.jvm-shutdown-hooks = off\n";

    private final SQSRestServer server;
    private final ActorSystem actors;
    private final int port;
    /** JDBC URL of the H2 store, or null in memory. */
    private final String storeUrl;

    private EmbeddedSqsServer(SQSRestServer server, ActorSystem actors, int port, String storeUrl) {
        this.server = server;
        this.actors = actors;
        this.port = port;
        this.storeUrl = storeUrl;
    }

    /**
     * Queues in memory only: what is queued is lost when the server stops.
     *
     * @param port TCP port on 127.0.0.1, or 0 for any free port
     * @return the started server
     */
    public static EmbeddedSqsServer start(int port) {
        SQSRestServer server = (port == 0 ? SQSRestServerBuilder.withDynamicPort() : SQSRestServerBuilder.withPort(port))
                .withInterface("127.0.0.1").start();
        int bound = server.waitUntilStarted().localAddress().getPort();
        LOG.info("embedded SQS (ElasticMQ, in memory) listening on 127.0.0.1:{}", bound);
        return new EmbeddedSqsServer(server, null, bound, null);
    }

    /**
     * Queues and messages kept in {@code storeDir}, restored from it before the server answers.
     *
     * @param port TCP port on 127.0.0.1, or 0 for any free port
     * @param storeDir folder for the H2 database; created if missing
     * @return the started server
     * @throws Exception when the store cannot be opened or restored
     */
    public static EmbeddedSqsServer start(int port, Path storeDir) throws Exception {
        Files.createDirectories(storeDir);
        // closed by close(), never by H2's own JVM shutdown hook
        String url = "jdbc:h2:file:" + storeDir.toAbsolutePath().resolve(DATABASE) + ";DB_CLOSE_ON_EXIT=FALSE";
        useStore(url);
        ActorSystem actors = ActorSystem.create("embedded-sqs",
                ConfigFactory.parseString(NO_EXIT_HOOKS).withFallback(ConfigFactory.load()));
        try {
            SqlQueuePersistenceConfig config = new SqlQueuePersistenceConfig(true, "org.h2.Driver", url, "", "", false);
            ActorRef store = actors.actorOf(Props.create(SqlQueuePersistenceActor.class,
                    () -> new SqlQueuePersistenceActor(config, List$.MODULE$.empty())));
            ActorRef manager = actors.actorOf(Props.create(QueueManagerActor.class,
                    () -> new QueueManagerActor(new NowProvider(), StrictSQSLimits$.MODULE$, Option.apply(store))));
            TheSQSRestServerBuilder builder = SQSRestServerBuilder.withActorSystem(actors).withQueueManagerActor(manager)
                    .withInterface("127.0.0.1");
            SQSRestServer server = (port == 0 ? builder.withDynamicPort() : builder.withPort(port)).start();
            int bound = server.waitUntilStarted().localAddress().getPort();
            Object restored = Patterns.ask(store, new QueueEvent.Restore(manager), RESTORE_TIMEOUT).toCompletableFuture()
                    .get(RESTORE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (restored instanceof scala.util.Left<?, ?> errors) {
                server.stopAndWait();
                throw new IllegalStateException("the embedded SQS store " + storeDir + " could not be restored: " + errors.value());
            }
            LOG.info("embedded SQS (ElasticMQ, queues kept in {}) listening on 127.0.0.1:{}", storeDir, bound);
            return new EmbeddedSqsServer(server, actors, bound, url);
        } catch (Exception | Error e) {
            actors.terminate();
            shutDownStore(url);
            throw e;
        }
    }

    /** @return the endpoint URL an SQS client is pointed at */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** @return the port it listens on */
    public int port() {
        return port;
    }

    /**
     * Stops answering, stops the actors (the store's writes of what they handled included) and closes the
     * H2 store, in that order.
     *
     * @throws Exception when the actors do not stop within 30 s or the store cannot be closed
     */
    @Override
    public void close() throws Exception {
        server.stopAndWait();
        if (actors != null) {
            Await.result(actors.terminate(), scala.concurrent.duration.Duration.create(RESTORE_TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS));
        }
        if (storeUrl != null) {
            shutDownStore(storeUrl);
        }
    }

    /**
     * ElasticMQ's SQL persistence writes through scalikejdbc's one JVM-wide default pool, which it sets up only
     * the first time a store starts in the JVM: a second server (a test starting one after another) would write
     * to the FIRST server's file. Each start therefore points that pool at its own store; so only one server
     * with a store may run in a JVM at a time (the application runs one).
     */
    private static void useStore(String url) throws ClassNotFoundException {
        Class.forName("org.h2.Driver");
        scalikejdbc.ConnectionPool$ pools = scalikejdbc.ConnectionPool$.MODULE$;
        scalikejdbc.ConnectionPoolSettings settings = pools.singleton$default$4();
        pools.singleton(url, "", "", settings, pools.singleton$default$5(url, "", "", settings));
    }

    /** Closes the pool and the H2 database at {@code url}, writing everything to its file. */
    private static void shutDownStore(String url) throws java.sql.SQLException {
        scalikejdbc.ConnectionPool$ pools = scalikejdbc.ConnectionPool$.MODULE$;
        pools.close(pools.DEFAULT_NAME());
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, "", "");
             java.sql.Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }
}
