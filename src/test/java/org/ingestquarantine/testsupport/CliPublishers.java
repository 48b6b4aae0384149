package org.ingestquarantine.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The command-line producers a user would type, run as real processes: {@code amqp-publish} from Debian's
 * {@code amqp-tools} for RabbitMQ and {@code kcat} (Debian package {@code kcat}) for Kafka. Both are
 * installed by {@code .ci/services}. Each call waits at most {@value #TIMEOUT_SECONDS} s and throws
 * with the tool's output when it exits with a non-zero code.
 *
 * <pre>{@code
 * CliPublishers.amqpPublish(rabbit.amqpUri(), "ingest", "ingest", "{\"doc_id\":\"d1\",...}");
 * CliPublishers.kcatProduce(kafka.bootstrapServers(), "ingest", "d1", "{\"doc_id\":\"d1\",...}");
 * }</pre>
 */
public final class CliPublishers {
    /** Time limit of one command, in seconds. */
    public static final int TIMEOUT_SECONDS = 30;

    private CliPublishers() {
    }

    /**
     * Publishes one persistent message with content type {@code application/json}:
     * {@code amqp-publish -u <uri> -e <exchange> -r <routingKey> -p -C application/json -b <json>}.
     */
    public static void amqpPublish(String amqpUri, String exchange, String routingKey, String json) {
        run(List.of("amqp-publish", "-u", amqpUri, "-e", exchange, "-r", routingKey, "-p",
                "-C", "application/json", "-b", json), new byte[0]);
    }

    /**
     * Produces one record with {@code kcat -P -b <bootstrap> -t <topic> -k <key>}, the value read from
     * standard input. {@code json} must be one line: kcat splits its input into records at newlines.
     */
    public static void kcatProduce(String bootstrapServers, String topic, String key, String json) {
        if (json.contains("\n")) {
            throw new IllegalArgumentException("kcat takes one record per line; pass compact JSON");
        }
        run(List.of("kcat", "-P", "-b", bootstrapServers, "-t", topic, "-k", key),
                (json + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void run(List<String> command, byte[] stdin) {
        Exec result = Exec.run(command, stdin, Duration.ofSeconds(TIMEOUT_SECONDS));
        if (result.exitCode() == 127) {
            throw new IllegalStateException(command.get(0) + " is not installed; run .ci/services (apt-get install amqp-tools kcat)");
        }
        if (result.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command.subList(0, 2)) + "... exited with "
                    + result.exitCode() + ":\n" + result.output());
        }
    }
}
