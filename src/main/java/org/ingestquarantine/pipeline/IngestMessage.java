package org.ingestquarantine.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;
import org.ingestquarantine.failure.PermanentInputException;

/**
 * One broker message naming one document. Wire form: a JSON object, see
 * {@code src/main/resources/schema/ingest-message.schema.json}:
 * <pre>{"source":"local","doc_id":"reports/a.pdf","uri":"file:///srv/docs/reports/a.pdf",
 *  "source_version":"…","cursor":"…","ingest_seq":42}</pre>
 *
 * @param source name of the source (a connector instance), required
 * @param docId the document's identity within its source, required
 * @param uri where to fetch it: {@code file://}, {@code http(s)://} (and {@code s3://} where a connector serves it);
 *     at most the schema's {@code maxLength} characters
 * @param sourceVersion the producer's idea of the version (etag), may be {@code null}
 * @param cursor the producer's cursor when it emitted the message, may be {@code null}
 * @param ingestSeq the producer's sequence number, may be {@code null}
 */
public record IngestMessage(String source, String docId, URI uri, String sourceVersion, String cursor, Long ingestSeq) {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The message schema on the class path; identity caps and patterns are read from it, stated only there. */
    static final String SCHEMA_RESOURCE = "/schema/ingest-message.schema.json";
    private static final IdentityRule SOURCE_RULE;
    private static final IdentityRule DOC_ID_RULE;
    /** The schema's {@code maxLength} of {@code uri}, in code points: a record keeps the URI, so it is bounded. */
    private static final int URI_MAX_LENGTH;
    /** The schema's {@code maxLength} of {@code source_version}, in code points: a record keeps it. */
    private static final int SOURCE_VERSION_MAX_LENGTH;
    /** The schema's {@code maxLength} of {@code cursor}, in code points: a record keeps it as cursor_at_arrival. */
    private static final int CURSOR_MAX_LENGTH;

    static {
        JsonNode properties = schema().path("properties");
        SOURCE_RULE = IdentityRule.of("source", properties.path("source"), RecordKey.RESERVED_SOURCE_PREFIX);
        DOC_ID_RULE = IdentityRule.of("doc_id", properties.path("doc_id"), RecordKey.INVALID_DOC_ID_PREFIX);
        URI_MAX_LENGTH = maxLength(properties, "uri");
        SOURCE_VERSION_MAX_LENGTH = maxLength(properties, "source_version");
        CURSOR_MAX_LENGTH = maxLength(properties, "cursor");
    }

    private static int maxLength(JsonNode properties, String field) {
        if (!properties.path(field).path("maxLength").canConvertToInt()) {
            throw new IllegalStateException(SCHEMA_RESOURCE + " must give " + field + " a maxLength");
        }
        return properties.path(field).path("maxLength").asInt();
    }

    /**
     * @param body the message body
     * @return the message
     * @throws PermanentInputException with reason {@code invalid_message} when the body is not a JSON
     *     object, or lacks {@code source}, {@code doc_id} or a valid {@code uri} (one longer than the schema's
     *     {@code maxLength} is not valid), or has a {@code source_version} or {@code cursor} longer than the
     *     schema's {@code maxLength} or an {@code ingest_seq} that is not a whole number from 0 to
     *     {@link Long#MAX_VALUE}; an
     *     {@link InvalidIdentityException} (same reason) when {@code source} or {@code doc_id} is longer
     *     than the schema's {@code maxLength} or breaks its {@code pattern} (no control characters; a doc_id
     *     does not begin with the reserved {@value RecordKey#INVALID_DOC_ID_PREFIX}, a source not with the
     *     reserved {@value RecordKey#RESERVED_SOURCE_PREFIX}); when only the doc_id is
     *     invalid, the exception names the valid source ({@link InvalidIdentityException#messageSource}) and
     *     the doc_id's digest ({@link InvalidIdentityException#docIdDigest})
     */
    public static IngestMessage parse(String body) {
        if (body == null || body.isBlank()) {
            throw PermanentInputException.invalidMessage("the message body is empty; expected a JSON object with source, doc_id and uri");
        }
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw PermanentInputException.invalidMessage("the message body is not valid JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw PermanentInputException.invalidMessage("the message body could not be read (" + e.getClass().getSimpleName() + ")");
        }
        if (node == null || !node.isObject()) {
            throw PermanentInputException.invalidMessage("the message body is not a JSON object");
        }
        String source = SOURCE_RULE.check(text(node, "source"));
        String docId = text(node, "doc_id");
        try {
            DOC_ID_RULE.check(docId);
        } catch (InvalidIdentityException e) {
            throw e.withMessageSource(source, docId);
        }
        String uri = bounded("uri", text(node, "uri"), URI_MAX_LENGTH);
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (URISyntaxException e) {
            throw PermanentInputException.invalidMessage("field uri is not a URI: " + e.getReason());
        }
        if (parsed.getScheme() == null) {
            throw PermanentInputException.invalidMessage("field uri has no scheme; expected file://, http(s):// or s3://");
        }
        String sourceVersion = optionalText(node, "source_version");
        String cursor = optionalText(node, "cursor");
        if (sourceVersion != null) {
            bounded("source_version", sourceVersion, SOURCE_VERSION_MAX_LENGTH);
        }
        if (cursor != null) {
            bounded("cursor", cursor, CURSOR_MAX_LENGTH);
        }
        return new IngestMessage(source, docId, parsed, sourceVersion, cursor, ingestSeq(node.get("ingest_seq")));
    }

    /** @return {@code value}, unless it has more than {@code maxLength} code points (as JSON Schema counts) */
    private static String bounded(String field, String value, int maxLength) {
        if (value.length() > maxLength && value.codePointCount(0, value.length()) > maxLength) {
            throw PermanentInputException.invalidMessage("field " + field + " has " + value.codePointCount(0, value.length())
                    + " characters, over the schema's maxLength " + maxLength);
        }
        return value;
    }

    /**
     * @return the schema's {@code ingest_seq}: absent or null is {@code null}; otherwise a whole number (1.0 is one,
     *     as JSON Schema's {@code integer} counts) from 0 ({@code minimum}) that fits a {@code long}
     */
    private static Long ingestSeq(JsonNode seq) {
        if (seq == null || seq.isNull()) {
            return null;
        }
        java.math.BigDecimal value = seq.isNumber() ? seq.decimalValue() : null;
        if (value == null || value.signum() != 0 && value.stripTrailingZeros().scale() > 0) {
            throw PermanentInputException.invalidMessage("field ingest_seq must be a whole number from 0");
        }
        if (value.signum() < 0 || value.compareTo(java.math.BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw PermanentInputException.invalidMessage("field ingest_seq must be a whole number from 0 to "
                    + Long.MAX_VALUE + ", was " + (value.signum() < 0 ? "negative" : "larger"));
        }
        return value.longValueExact();
    }

    /** @return the wire form of this message */
    public String toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("source", source);
        n.put("doc_id", docId);
        n.put("uri", uri.toString());
        if (sourceVersion != null) {
            n.put("source_version", sourceVersion);
        }
        if (cursor != null) {
            n.put("cursor", cursor);
        }
        if (ingestSeq != null) {
            n.put("ingest_seq", ingestSeq);
        }
        return n.toString();
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull() || !v.isTextual() || v.asText().isBlank()) {
            throw PermanentInputException.invalidMessage("field " + field + " is missing or not a non-empty string");
        }
        return v.asText();
    }

    private static JsonNode schema() {
        try (InputStream in = IngestMessage.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SCHEMA_RESOURCE + " is missing from the class path");
            }
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SCHEMA_RESOURCE, e);
        }
    }

    /**
     * Checks a source name against the message schema's rules for {@code source}, as a message naming it would be
     * checked (for names given on a command line, before any message is published).
     *
     * @param source the name
     * @return {@code source}, unchanged
     * @throws InvalidIdentityException if it is longer than the schema's maxLength or holds a control character;
     *     its message names the rule and the value in its {@link LogSafe} form
     */
    public static String checkSource(String source) {
        return SOURCE_RULE.check(source);
    }

    /**
     * An identity field's {@code maxLength} (in code points, as JSON Schema counts) and {@code pattern}, and the
     * prefix it may not begin with (null: none), which the schema's pattern refuses too.
     */
    private record IdentityRule(String field, int maxLength, Pattern pattern, String reservedPrefix) {

        static IdentityRule of(String field, JsonNode schema, String reservedPrefix) {
            if (!schema.path("maxLength").canConvertToInt() || !schema.path("pattern").isTextual()) {
                throw new IllegalStateException(SCHEMA_RESOURCE + " must give " + field + " a maxLength and a pattern");
            }
            Pattern pattern = Pattern.compile(schema.path("pattern").asText());
            if (reservedPrefix != null && pattern.matcher(reservedPrefix + "x").matches()) {
                throw new IllegalStateException(SCHEMA_RESOURCE + " must refuse a " + field + " beginning with "
                        + reservedPrefix + " in its pattern");
            }
            return new IdentityRule(field, schema.path("maxLength").asInt(), pattern, reservedPrefix);
        }

        String check(String value) {
            if (value.length() > maxLength && value.codePointCount(0, value.length()) > maxLength) {
                throw new InvalidIdentityException(field, value,
                        "has " + value.codePointCount(0, value.length()) + " characters, over the schema's maxLength " + maxLength);
            }
            if (reservedPrefix != null && value.startsWith(reservedPrefix)) {
                throw new InvalidIdentityException(field, value, "begins with the reserved " + reservedPrefix);
            }
            if (!pattern.matcher(value).matches()) {
                throw new InvalidIdentityException(field, value, "contains a control character");
            }
            // stored as UTF-8, a lone surrogate would become '?' and the identity another one's
            if (value.codePoints().anyMatch(cp -> cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
                throw new InvalidIdentityException(field, value, "contains a lone surrogate (a \\uD800-\\uDFFF escape"
                        + " without its pair), which is not Unicode text");
            }
            return value;
        }
    }

    private static String optionalText(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
