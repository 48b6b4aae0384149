package org.ingestquarantine.broker.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;

/**
 * The identity of a topic ({@code TopicDescription.topicId()}, a UUID the cluster gives a topic when it is
 * created), so that delivery keys of a deleted and re-created topic, or of a new cluster, never meet the
 * attempts journalled for the old one. Asked of the cluster once per topic name and process, then kept: a
 * topic re-created while a consumer runs is seen by the next process (restart the consumers after
 * re-creating a topic).
 */
final class KafkaTopicIds {

    private final Admin admin;
    private final Duration timeout;
    private final Map<String, String> ids = new ConcurrentHashMap<>();

    /**
     * @param admin an admin client the caller closes
     * @param timeout how long one describe may take
     */
    KafkaTopicIds(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /**
     * @param topic a topic name
     * @return its topic id (base64, as Kafka prints it)
     * @throws KafkaException when the cluster cannot describe the topic within the timeout
     */
    String of(String topic) {
        return ids.computeIfAbsent(topic, this::describe);
    }

    private String describe(String topic) {
        try {
            return admin.describeTopics(List.of(topic)).topicNameValues().get(topic)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).topicId().toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while describing topic " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException("could not describe topic " + topic + " within " + timeout.toMillis()
                    + " ms; check that the broker answers and the topic exists", e);
        }
    }
}
