package org.ingestquarantine.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.ErrorClass;
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

    @Test
    void shouldRefuseADocIdOverTheSchemasCapCarryingItTruncated() {
        String huge = "d".repeat(5 * 1024 * 1024);
        assertThatThrownBy(() -> IngestMessage.parse(body("s", huge)))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> {
                    assertThat(e.reasonCode()).isEqualTo("invalid_message");
                    assertThat(e.field()).isEqualTo("doc_id");
                    assertThat(e.truncatedValue()).hasSizeLessThan(LogSafe.MAX_CHARS + 40).endsWith("(5242880 chars)");
                    assertThat(e.getMessage()).hasSizeLessThan(LogSafe.MAX_CHARS + 200).contains("maxLength 512");
                    assertThat(ErrorTaxonomy.standard().classify(e).errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
                });
    }

    /** A record keeps the URI it was fetched from, so a message's URI is bounded by the schema's maxLength. */
    @Test
    void shouldRefuseAUriOverTheSchemasCapAndAcceptOneAtIt() {
        int cap = schemaUri().path("maxLength").asInt();
        String prefix = "http://h/";
        String atCap = prefix + "\u00e9".repeat(cap - prefix.length());
        assertThat(IngestMessage.parse(withUri(atCap)).uri().toString()).isEqualTo(atCap);
        assertThatThrownBy(() -> IngestMessage.parse(withUri(atCap + "x")))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> {
                    assertThat(e.reasonCode()).isEqualTo("invalid_message");
                    assertThat(e.getMessage()).contains("uri").contains("maxLength " + cap).hasSizeLessThan(200);
                });
    }

    /** A record keeps source_version and cursor too: each is bounded by its schema maxLength, at it accepted. */
    @Test
    void shouldRefuseASourceVersionOrCursorOverTheSchemasCap() {
        for (String field : new String[] {"source_version", "cursor"}) {
            int cap = schemaProperty(field).path("maxLength").asInt();
            assertThat(cap).as(field + " maxLength").isPositive();
            String atCap = "\u00e9".repeat(cap);
            IngestMessage m = IngestMessage.parse(with(field, atCap));
            assertThat("source_version".equals(field) ? m.sourceVersion() : m.cursor()).isEqualTo(atCap);
            assertThatThrownBy(() -> IngestMessage.parse(with(field, atCap + "x"))).as(field)
                    .isInstanceOfSatisfying(PermanentInputException.class, e -> {
                        assertThat(e.reasonCode()).isEqualTo("invalid_message");
                        assertThat(e.getMessage()).contains(field).contains("maxLength " + cap).hasSizeLessThan(200);
                    });
        }
    }

    /** ingest_seq is the schema's integer with minimum 0: a negative or fractional one is refused, 1.0 is 1. */
    @Test
    void shouldAcceptOnlyAWholeNonNegativeIngestSeq() {
        assertThat(schemaProperty("ingest_seq").path("minimum").asInt(-1)).isZero();
        for (String seq : new String[] {"-1", "1.5", "-0.5", "9223372036854775808", "1e300", "\"7\"", "true"}) {
            assertThatThrownBy(() -> IngestMessage.parse(withRaw("ingest_seq", seq))).as(seq)
                    .isInstanceOfSatisfying(PermanentInputException.class, e -> {
                        assertThat(e.reasonCode()).isEqualTo("invalid_message");
                        assertThat(e.getMessage()).contains("ingest_seq");
                    });
        }
        assertThat(IngestMessage.parse(withRaw("ingest_seq", "0")).ingestSeq()).isZero();
        assertThat(IngestMessage.parse(withRaw("ingest_seq", "1.0")).ingestSeq()).isEqualTo(1L);
        assertThat(IngestMessage.parse(withRaw("ingest_seq", "9223372036854775807")).ingestSeq()).isEqualTo(Long.MAX_VALUE);
        assertThat(IngestMessage.parse(withRaw("ingest_seq", "null")).ingestSeq()).isNull();
    }

    /** A 100 KB file URI: one clear permanent_input/invalid_message line naming the bound, not unclassified. */
    @Test
    void shouldRefuseAHugeFileUriAsAnInvalidMessageNamingTheBound() {
        int cap = schemaUri().path("maxLength").asInt();
        String huge = "file:///" + "a/".repeat(50 * 1024);
        assertThatThrownBy(() -> IngestMessage.parse(withUri(huge)))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> {
                    assertThat(e.reasonCode()).isEqualTo("invalid_message");
                    assertThat(e.getMessage()).contains("maxLength " + cap).hasSizeLessThan(200);
                    assertThat(ErrorTaxonomy.standard().classify(e).errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
                });
    }

    /** Names beginning with _ are reserved (_invalid_messages, _other): no message may name one as its source. */
    @Test
    void shouldRefuseAReservedSource() {
        for (String source : new String[] {RecordKey.INVALID_MESSAGES_SOURCE, RecordKey.OTHER_SOURCES, "_x"}) {
            assertThatThrownBy(() -> IngestMessage.parse(body(source, "d"))).as(source)
                    .isInstanceOfSatisfying(InvalidIdentityException.class, e -> {
                        assertThat(e.field()).isEqualTo("source");
                        assertThat(e.messageSource()).isNull();
                        assertThat(e.getMessage()).contains("reserved");
                    });
        }
        assertThat(java.util.regex.Pattern.compile(schemaProperty("source").path("pattern").asText())
                .matcher("_invalid_messages").matches()).as("the schema's pattern refuses it too").isFalse();
        assertThat(IngestMessage.parse(body("a_b", "d")).source()).isEqualTo("a_b");
    }

    private static com.fasterxml.jackson.databind.JsonNode schemaProperty(String field) {
        try (var in = IngestMessage.class.getResourceAsStream(IngestMessage.SCHEMA_RESOURCE)) {
            return new ObjectMapper().readTree(in).path("properties").path(field);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String with(String field, String value) {
        return new ObjectMapper().createObjectNode().put("source", "s").put("doc_id", "d").put("uri", "file:///x")
                .put(field, value).toString();
    }

    private static String withRaw(String field, String json) {
        return "{\"source\":\"s\",\"doc_id\":\"d\",\"uri\":\"file:///x\",\"" + field + "\":" + json + "}";
    }

    private static com.fasterxml.jackson.databind.JsonNode schemaUri() {
        try (var in = IngestMessage.class.getResourceAsStream(IngestMessage.SCHEMA_RESOURCE)) {
            return new ObjectMapper().readTree(in).path("properties").path("uri");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String withUri(String uri) {
        return new ObjectMapper().createObjectNode().put("source", "s").put("doc_id", "d").put("uri", uri).toString();
    }

    @Test
    void shouldAcceptIdentitiesUpToTheCap() {
        String docId = "\u00e9".repeat(512);
        assertThat(IngestMessage.parse(body("s".repeat(64), docId)).docId()).isEqualTo(docId);
        assertThatThrownBy(() -> IngestMessage.parse(body("s".repeat(65), "d"))).isInstanceOf(InvalidIdentityException.class);
    }

    @Test
    void shouldRefuseControlCharactersInIdentitiesAndEscapeThemInTheMessage() {
        assertThatThrownBy(() -> IngestMessage.parse(body("s", "a\nFAKE LOG LINE \u001b[31mred")))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> {
                    assertThat(e.reasonCode()).isEqualTo("invalid_message");
                    assertThat(e.getMessage()).doesNotContain("\n", "\u001b").contains("a\\nFAKE", "\\u001B[31m");
                });
        assertThatThrownBy(() -> IngestMessage.parse(body("s\u0085", "d")))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> assertThat(e.field()).isEqualTo("source"));
    }

    /**
     * Issue 21: a lone surrogate (a JSON escape without its pair) is not text; stored as UTF-8 it became '?', so
     * "a\\ud800" and "a\\ud801" and a real "a?" were one record. It is refused, and the digest its record is kept
     * under tells the two apart (and leaves every well-formed doc_id's digest as it was).
     */
    @Test
    void shouldRefuseALoneSurrogateAndKeepItsDigestDistinct() {
        String high = "{\"source\":\"s\",\"doc_id\":\"a\\ud800.pdf\",\"uri\":\"file:///x\"}";
        String low = "{\"source\":\"s\",\"doc_id\":\"a\\udc01.pdf\",\"uri\":\"file:///x\"}";
        for (String body : new String[] {high, low}) {
            assertThatThrownBy(() -> IngestMessage.parse(body))
                    .isInstanceOfSatisfying(InvalidIdentityException.class, e -> {
                        assertThat(e.field()).isEqualTo("doc_id");
                        assertThat(e.getMessage()).contains("lone surrogate").doesNotContain("a?.pdf");
                    });
        }
        assertThatThrownBy(() -> IngestMessage.parse("{\"source\":\"s\\ud800\",\"doc_id\":\"d\",\"uri\":\"file:///x\"}"))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> assertThat(e.field()).isEqualTo("source"));
        assertThat(RecordKey.docIdDigest("a\ud800.pdf")).isNotEqualTo(RecordKey.docIdDigest("a\udc01.pdf"))
                .isNotEqualTo(RecordKey.docIdDigest("a?.pdf"));
        assertThat(RecordKey.docIdDigest("caf\u00e9 \ud83d\ude00.pdf")).as("a well-formed doc_id's digest, as before")
                .isEqualTo(java.util.HexFormat.of().formatHex(sha256("caf\u00e9 \ud83d\ude00.pdf"), 0, 16));
        assertThat(IngestMessage.parse(body("s", "\ud83d\ude00.pdf")).docId()).as("a pair is text").isEqualTo("\ud83d\ude00.pdf");
    }

    private static byte[] sha256(String s) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Issue 8: the reserved doc_id of an invalid one cannot be spelled by a producer, in the schema or here. */
    @Test
    void shouldRefuseADocIdBeginningWithTheReservedPrefix() throws Exception {
        assertThatThrownBy(() -> IngestMessage.parse(body("s", RecordKey.INVALID_DOC_ID_PREFIX + "x.pdf")))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> {
                    assertThat(e.field()).isEqualTo("doc_id");
                    assertThat(e.getMessage()).contains("reserved " + RecordKey.INVALID_DOC_ID_PREFIX);
                });
        String pattern = new ObjectMapper().readTree(IngestMessage.class.getResourceAsStream(IngestMessage.SCHEMA_RESOURCE))
                .at("/properties/doc_id/pattern").asText();
        assertThat(RecordKey.INVALID_DOC_ID_PREFIX + "x.pdf").as("the schema's own pattern").doesNotMatch(pattern);
        assertThat("_invalid_doc_id.pdf").matches(pattern);
        assertThat(IngestMessage.parse(body("s", "a/" + RecordKey.INVALID_DOC_ID_PREFIX + "x.pdf")).docId())
                .as("only as a prefix").isEqualTo("a/" + RecordKey.INVALID_DOC_ID_PREFIX + "x.pdf");
    }

    /** Issue 8: a failing doc_id names the message's valid source, so the reader may keep the record under it. */
    @Test
    void shouldNameTheValidSourceOfAMessageWhoseDocIdAloneIsInvalid() {
        assertThatThrownBy(() -> IngestMessage.parse(body("s", "a\nb")))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> assertThat(e.messageSource()).isEqualTo("s"));
        assertThatThrownBy(() -> IngestMessage.parse(body("s\u0007", "a\nb")))
                .isInstanceOfSatisfying(InvalidIdentityException.class, e -> {
                    assertThat(e.field()).isEqualTo("source");
                    assertThat(e.messageSource()).isNull();
                });
    }

    private static String body(String source, String docId) {
        return new ObjectMapper().createObjectNode().put("source", source).put("doc_id", docId).put("uri", "file:///x")
                .toString();
    }
}
