package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Ensures the ingest-message schema keeps its contract (draft 2020-12, three required strings, the uri
 * schemes) and that its example obeys it. A structural check with Jackson: no schema validator is on the
 * classpath (the schema was also checked once with ajv 8 in strict 2020-12 mode).
 */
class IngestMessageSchemaTest {
    private static final String SCHEMA = "/schema/ingest-message.schema.json";

    @Test
    void shouldDeclareDraft2020AndTheRequiredFields() throws Exception {
        JsonNode schema = schema();

        assertThat(schema.path("$schema").asText()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
        assertThat(strings(schema.path("required"))).containsExactly("source", "doc_id", "uri");
        assertThat(schema.path("additionalProperties").asBoolean()).isTrue();
        assertThat(schema.path("properties").path("ingest_seq").path("type").asText()).isEqualTo("integer");
    }

    @Test
    void shouldAcceptTheFourUriSchemesAndNothingElse() throws Exception {
        Pattern uri = Pattern.compile(schema().path("properties").path("uri").path("pattern").asText());

        assertThat(List.of("file:///data/a.pdf", "http://h/a.pdf", "https://h/a.pdf", "s3://bucket/a.pdf"))
                .allMatch(u -> uri.matcher(u).find());
        assertThat(List.of("ftp://h/a.pdf", "/data/a.pdf", "S3:/bucket", "xs3://b/a")).noneMatch(u -> uri.matcher(u).find());
    }

    @Test
    void shouldCarryAnExampleThatObeysTheSchema() throws Exception {
        JsonNode schema = schema();
        JsonNode example = schema.path("examples").get(0);
        Pattern uri = Pattern.compile(schema.path("properties").path("uri").path("pattern").asText());

        for (String field : strings(schema.path("required"))) {
            assertThat(example.path(field).isTextual()).as(field).isTrue();
        }
        assertThat(uri.matcher(example.path("uri").asText()).find()).isTrue();
        schema.path("properties").fields().forEachRemaining(p -> {
            if (example.has(p.getKey())) {
                String type = p.getValue().path("type").asText();
                assertThat(type.equals("integer") ? example.get(p.getKey()).isIntegralNumber() : example.get(p.getKey()).isTextual())
                        .as(p.getKey() + " is " + type).isTrue();
            }
        });
    }

    private static JsonNode schema() throws Exception {
        try (InputStream in = IngestMessageSchemaTest.class.getResourceAsStream(SCHEMA)) {
            assertThat(in).as(SCHEMA + " on the classpath").isNotNull();
            return new ObjectMapper().readTree(in);
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
