package org.ingestquarantine.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.ConsumerGroupState;

/**
 * Waits until the application's Kafka consumer group has settled: {@code ingest.consumers} members, the group
 * stable, each member holding at least one partition. A bench round starts its routes, waits here, and only then
 * publishes, so what it measures is consumers working, not a group being formed.
 */
final class KafkaGroupBalance {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final String bootstrapServers;
    private final String groupId;
    private final int consumers;

    private KafkaGroupBalance(String bootstrapServers, String groupId, int consumers) {
        this.bootstrapServers = bootstrapServers;
        this.groupId = groupId;
        this.consumers = consumers;
    }

    /** @param context the application's context, whose properties name the brokers, group and consumer count */
    static KafkaGroupBalance of(CamelContext context) {
        return new KafkaGroupBalance(context.resolvePropertyPlaceholders("{{kafka.bootstrap-servers}}"),
                context.resolvePropertyPlaceholders("{{kafka.group-id}}"),
                Integer.parseInt(context.resolvePropertyPlaceholders("{{ingest.consumers}}")));
    }

    /** Blocks until the group is balanced; throws after {@link #TIMEOUT}. */
    void awaitBalanced() throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            String seen = "not described yet";
            while (System.nanoTime() < deadline) {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(groupId)).all()
                        .get(10, TimeUnit.SECONDS).get(groupId);
                seen = d.state() + " with " + d.members().size() + " members";
                if (d.state() == ConsumerGroupState.STABLE && d.members().size() == consumers
                        && d.members().stream().map(MemberDescription::assignment)
                                .allMatch(a -> !a.topicPartitions().isEmpty())) {
                    return;
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException("consumer group " + groupId + " not balanced within " + TIMEOUT
                    + ": " + seen);
        }
    }
}
