package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Postmaster;
import org.ingestquarantine.testsupport.RabbitMqBroker;
import org.ingestquarantine.testsupport.RabbitMqVhost;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures {@code run --profile rabbitmq} refuses a class budget that the quorum queue's delivery limit would cut
 * short (issue 22 item 3): {@code x-delivery-limit} 10 allows 11 deliveries, so a class with 10 retries (11
 * deliveries) would be dead-lettered by the broker and swept in as {@code unclassified/broker_dead_lettered}. The
 * start exits 1 with one line naming the property, and leaves its embedded PostgreSQL stopped.
 */
class RabbitMqBudgetGuardIT {

    private static final String VHOST = "iq-budget-guard-it";

    @TempDir
    Path tmp;

    @Test
    void shouldRefuseABudgetAtTheDeliveryLimitNamingTheProperty() throws Exception {
        Path log = ConsumerProcess.freshLog("rabbitmq-budget-guard-it.log");
        Path data = Files.createDirectories(tmp.resolve("data"));
        try (RabbitMqVhost vhost = RabbitMqVhost.fresh(VHOST)) {
            Map<String, String> props = new HashMap<>(TestPipeline.testProperties());
            props.put("rabbitmq.uri", vhost.uri(RabbitMqBroker.PORT));
            props.put("rabbitmq.delivery-limit", "10");
            props.put("failure.transient.retries", "10");
            long postmaster;
            int exit;
            try (ConsumerProcess run = ConsumerProcess.start("rabbitmq", data, props, Map.of(), log)) {
                postmaster = Postmaster.await(data, run, log);
                exit = run.awaitExit(RoutesCopy.START_LIMIT);
            }
            String out = Files.readString(log);
            String message = "run: failure.transient.retries=10 gives 11 deliveries, at or above the 11 deliveries of the"
                    + " RabbitMQ queue's x-delivery-limit 10 (rabbitmq.delivery-limit): raise the backstop above every"
                    + " budget or lower the budget";
            assertThat(exit).as("exit code; output:%n%s", out).isEqualTo(1);
            assertThat(out.lines().filter(message::equals)).as("output:%n%s", out).hasSize(1);
            assertThat(Postmaster.leftRunning(postmaster)).as("PostgreSQL (pid %d) still running", postmaster).isFalse();
        }
    }
}
