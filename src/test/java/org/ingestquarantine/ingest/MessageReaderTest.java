package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.ingestquarantine.pipeline.RecordKey;
import org.junit.jupiter.api.Test;

/**
 * Ensures the key of an unreadable message's record (issue 8): under its source only when only the doc_id is invalid
 * and the source is valid, configured and not reserved (then by a digest of the doc_id); otherwise, and for a
 * readable message of a source not configured or reserved (issue 21), under
 * {@value RecordKey#INVALID_MESSAGES_SOURCE} by the delivery key.
 */
class MessageReaderTest {

    private static final String KEY = "sqs:0f3c";
    private final MessageReader reader = new MessageReader(Set.of("docs", RecordKey.INVALID_MESSAGES_SOURCE, "_anything")::contains);

    @Test
    void shouldKeyAReadableMessageOfAConfiguredSourceByItsOwnIdentity() {
        assertThat(reader.keyOf(body("docs", "a/b.pdf"), KEY)).isEqualTo(new RecordKey("docs", "a/b.pdf"));
        assertThat(reader.keyOf(body("docs", "a/b.pdf").getBytes(StandardCharsets.UTF_8), KEY))
                .isEqualTo(new RecordKey("docs", "a/b.pdf"));
    }

    /**
     * Sources are configuration, never producer input (issue 21): a valid message naming a source this process
     * does not configure, or a reserved one, is refused unknown_source / invalid_message and keyed by its delivery
     * key under the reserved source, never under its own name nor by its own doc_id (which could name a record).
     */
    @Test
    void shouldRefuseAMessageOfAnUnconfiguredOrReservedSourceUnderTheReservedSourceByItsDeliveryKey() {
        RecordKey unreadable = new RecordKey(RecordKey.INVALID_MESSAGES_SOURCE, KEY);
        assertThat(reader.keyOf(body("other", "a/b.pdf").getBytes(StandardCharsets.UTF_8), KEY)).isEqualTo(unreadable);
        assertThat(reader.keyOf(body(RecordKey.INVALID_MESSAGES_SOURCE, "sqs:an-existing-record"), KEY))
                .as("the reserved source with another record's doc_id").isEqualTo(unreadable);
        assertThat(reader.keyOf(body("_anything", "a.pdf"), KEY)).as("any name beginning with _").isEqualTo(unreadable);

        org.apache.camel.Exchange exchange = new org.apache.camel.support.DefaultExchange(
                new org.apache.camel.impl.DefaultCamelContext());
        exchange.setProperty(org.ingestquarantine.pipeline.PipelineKeys.DELIVERY_KEY, KEY);
        exchange.getIn().setBody(body("other", "a/b.pdf"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> reader.read(exchange))
                .isInstanceOfSatisfying(org.ingestquarantine.failure.PermanentInputException.class, e -> {
                    assertThat(e.reasonCode()).isEqualTo("unknown_source");
                    assertThat(e.getMessage()).doesNotContain("other");
                });
        assertThat(exchange.getProperty(org.ingestquarantine.pipeline.PipelineKeys.RECORD_KEY)).isEqualTo(unreadable);
        assertThat(exchange.getProperty(org.ingestquarantine.pipeline.PipelineKeys.MESSAGE))
                .as("no message: its record keeps the body, as an unreadable one's").isNull();
    }

    /**
     * Keyed by a digest of the doc_id, not by the delivery key (new on every run): the same bad name on another
     * delivery names the same record, another bad name another one; the digest is the first 32 hex digits of
     * SHA-256 over the UTF-8 bytes (known answer from sha256sum), never the name itself.
     */
    @Test
    void shouldKeepAnInvalidDocIdUnderItsConfiguredSourceByADigestOfTheDocId() {
        assertThat(reader.keyOf(body("docs", "bad\nname.pdf"), KEY))
                .isEqualTo(new RecordKey("docs", RecordKey.INVALID_DOC_ID_PREFIX + "77efcd3abe4cec6defd9d38d4226b4b0"))
                .as("another delivery of the same name").isEqualTo(reader.keyOf(body("docs", "bad\nname.pdf"), "sqs:9e21"));
        assertThat(reader.keyOf(body("docs", "bad\nname\u00e9.pdf").getBytes(StandardCharsets.UTF_8), KEY).docId())
                .as("UTF-8, as the message carried it")
                .isEqualTo(RecordKey.INVALID_DOC_ID_PREFIX + "3a64e4e1bf176a8830c54c56c0dd7fe0");
        for (String docId : new String[] {"bad\nname2.pdf", "x".repeat(513), RecordKey.INVALID_DOC_ID_PREFIX + "forged"}) {
            RecordKey key = reader.keyOf(body("docs", docId), KEY);
            assertThat(key.source()).as(docId).isEqualTo("docs");
            assertThat(key.docId()).as(docId).matches(java.util.regex.Pattern.quote(RecordKey.INVALID_DOC_ID_PREFIX)
                    + "[0-9a-f]{32}").isNotEqualTo(RecordKey.INVALID_DOC_ID_PREFIX + "77efcd3abe4cec6defd9d38d4226b4b0")
                    .isEqualTo(RecordKey.invalidDocId("docs", RecordKey.docIdDigest(docId)).docId());
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
        assertThat(reader.keyOf("{\"source\":\"docs\",\"doc_id\":7,\"uri\":\"file:///x\"}", KEY))
                .as("a doc_id that is not a string: nothing to hash").isEqualTo(unreadable);
        assertThat(reader.keyOf("not json", KEY)).isEqualTo(unreadable);
        assertThat(reader.keyOf(null, KEY)).isEqualTo(unreadable);
    }

    private static String body(String source, String docId) {
        return new ObjectMapper().createObjectNode().put("source", source).put("doc_id", docId).put("uri", "file:///x")
                .toString();
    }
}
