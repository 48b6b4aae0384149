package org.ingestquarantine.ingest;

import org.apache.camel.Exchange;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;

/** Reads the message body into an {@link IngestMessage}; a body that is not one is permanent_input. */
public final class MessageReader {

    /**
     * @param exchange the consumed message
     * @throws PermanentInputException with reason {@code invalid_message}
     */
    public void read(Exchange exchange) {
        exchange.setProperty(PipelineKeys.STAGE, "receive");
        exchange.setProperty(PipelineKeys.MESSAGE, IngestMessage.parse(exchange.getIn().getBody(String.class)));
    }
}
