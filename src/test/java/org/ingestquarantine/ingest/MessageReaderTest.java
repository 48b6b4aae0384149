package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.ingestquarantine.pipeline.RecordKey;
import org.junit.jupiter.api.Test;

/**
 * Ensures the key of an unreadable message's record (issue 8): under its source only when only the doc_id is invalid
 * and the source is valid, configured and not reserved; otherwise under {@value RecordKey#INVALID_MESSAGES_SOURCE}.
 */
class MessageReaderTest {

    private static final String KEY = "sqs:0f3c";
    private final MessageReader reader = new MessageReader(Set.of("docs", RecordKey.INVALID_MESSAGES_SOURCE)::contains);

    @Test
    void shouldKeyAReadableMessageByItsOwnIdentity() {
        assertThat(reader.keyOf(body("docs", "a/b.pdf"), KEY)).isEqualTo(new RecordKey("docs", "a/b.pdf"));
        assertThat(reader.keyOf(body("other", "a/b.pdf").getBytes(StandardCharsets.UTF_8), KEY))
                .isEqualTo(new RecordKey("other", "a/b.pdf"));
    }

    @Test
    void shouldKeepAnInvalidDocIdUnderItsConfiguredSourceByTheDeliveryKey() {
        for (String docId : new String[] {"bad\nname.pdf", "x".repeat(513), RecordKey.INVALID_DOC_ID_PREFIX + "forged"}) {
            assertThat(reader.keyOf(body("docs", docId), KEY)).as(docId)
                    .isEqualTo(new RecordKey("docs", RecordKey.INVALID_DOC_ID_PREFIX + KEY));
        }
    }

    @Test
    void shouldKeepEveryOtherUnreadableMessageUnderTheReservedSource() {
        RecordKey unreadable = new RecordKey(RecordKey.INVALID_MESSAGES_SOURCE, KEY);
        assertThat(reader.keyOf(body("unknown", "bad\nname.pdf"), KEY)).as("an unconfigured source").isEqualTo(unreadable);
        assertThat(reader.keyOf(body("docs\u0007", "bad\nname.pdf"), KEY)).as("an invalid source").isEqualTo(unreadable);
        assertThat(reader.keyOf(body("d".repeat(65), "bad\nname.pdf"), KEY)).as("a source too long").isEqualTo(unreadable);
        assertThat(reader.keyOf(body(RecordKey.INVALID_MESSAGES_SOURCE, "bad\nname.pdf"), KEY)).as("the reserved source")
                .isEqualTo(unreadable);
        assertThat(reader.keyOf("{\"source\":\"docs\",\"uri\":\"file:///x\"}", KEY)).as("no doc_id").isEqualTo(unreadable);
        assertThat(reader.keyOf("not json", KEY)).isEqualTo(unreadable);
        assertThat(reader.keyOf(null, KEY)).isEqualTo(unreadable);
    }

    private static String body(String source, String docId) {
        return new ObjectMapper().createObjectNode().put("source", source).put("doc_id", docId).put("uri", "file:///x")
                .toString();
    }
}
