package org.ingestquarantine.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.ingestquarantine.failure.PermanentInputException;
import org.junit.jupiter.api.Test;

/** Ensures the wire form round-trips and every malformed body is a permanent, clearly named failure. */
class IngestMessageTest {

    @Test
    void shouldRoundTripTheWireForm() {
        IngestMessage m = new IngestMessage("s3docs", "a/b.pdf", URI.create("file:///tmp/a/b.pdf"), "v1", "c9", 42L);
        assertThat(IngestMessage.parse(m.toJson())).isEqualTo(m);
    }

    @Test
    void shouldRejectBodiesThatAreNotMessages() {
        for (String body : new String[] {"", "not json", "[1,2]", "{\"source\":\"s\",\"uri\":\"file:///x\"}",
                "{\"source\":\"s\",\"doc_id\":\"d\",\"uri\":\"no scheme\"}",
                "{\"source\":\"s\",\"doc_id\":\"d\",\"uri\":\"file:///x\",\"ingest_seq\":\"soon\"}"}) {
            assertThatThrownBy(() -> IngestMessage.parse(body)).as(body)
                    .isInstanceOf(PermanentInputException.class)
                    .extracting(e -> ((PermanentInputException) e).reasonCode()).isEqualTo("invalid_message");
        }
    }

    @Test
    void shouldNameTheMissingField() {
        assertThatThrownBy(() -> IngestMessage.parse("{\"source\":\"s\",\"uri\":\"file:///x\"}"))
                .hasMessageContaining("doc_id");
    }
}
