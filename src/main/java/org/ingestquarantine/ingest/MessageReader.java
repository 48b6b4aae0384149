package org.ingestquarantine.ingest;

import org.ingestquarantine.pipeline.IngestMessage;

/** Reads the message body into an {@link IngestMessage}; a body that is not one is permanent_input. */
public final class MessageReader {

    /**
     * @param body the consumed message's body, as text
     * @return the message
     * @throws PermanentInputException with reason {@code invalid_message}
     */
    public IngestMessage read(String body) {
        return IngestMessage.parse(body);
    }
}
