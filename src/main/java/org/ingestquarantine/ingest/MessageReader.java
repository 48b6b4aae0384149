package org.ingestquarantine.ingest;

import java.nio.charset.StandardCharsets;
import org.ingestquarantine.pipeline.IngestMessage;

/** Reads the message body into an {@link IngestMessage}; a body that is not one is permanent_input. */
public final class MessageReader {

    /**
     * @param body the consumed message's body: bytes (Kafka, RabbitMQ), read as UTF-8, or text (SQS)
     * @return the message
     * @throws org.ingestquarantine.failure.PermanentInputException with reason {@code invalid_message}
     */
    public IngestMessage read(Object body) {
        if (body instanceof byte[] bytes) {
            return IngestMessage.parse(new String(bytes, StandardCharsets.UTF_8));
        }
        return IngestMessage.parse(body == null ? "" : body.toString());
    }
}
