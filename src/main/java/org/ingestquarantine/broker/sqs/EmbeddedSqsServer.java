package org.ingestquarantine.broker.sqs;

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
 */
public final class EmbeddedSqsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedSqsServer.class);
    /** H2 database file name (without H2's {@code .mv.db}) in the store folder. */
    static final String DATABASE = "elasticmq";
    private static final Duration RESTORE_TIMEOUT = Duration.ofSeconds(30);

    private final SQSRestServer server;
    private final ActorSystem actors;
    private final int port;

    private EmbeddedSqsServer(SQSRestServer server, ActorSystem actors, int port) {
        this.server = server;
        this.actors = actors;
        this.port = port;
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
        return new EmbeddedSqsServer(server, null, bound);
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
        String url = "jdbc:h2:file:" + storeDir.toAbsolutePath().resolve(DATABASE);
        ActorSystem actors = ActorSystem.create("embedded-sqs");
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
            return new EmbeddedSqsServer(server, actors, bound);
        } catch (Exception | Error e) {
            actors.terminate();
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

    @Override
    public void close() throws Exception {
        server.stopAndWait();
        if (actors != null) {
            Await.result(actors.terminate(), scala.concurrent.duration.Duration.create(RESTORE_TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS));
        }
    }
}
