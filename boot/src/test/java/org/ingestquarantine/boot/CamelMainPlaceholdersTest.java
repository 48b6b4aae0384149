package org.ingestquarantine.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.env.MockEnvironment;

/** Ensures Camel placeholders in camel.* values are resolved from Spring's environment before Boot binds them. */
class CamelMainPlaceholdersTest {

    @Test
    void shouldResolveThePlaceholderFromTheEnvironmentOrItsDefault() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("camel.main.routes-include-pattern", "file:{{iq.routes-dir:routes}}/*.camel.yaml");
        new CamelMainPlaceholders().postProcessEnvironment(env, new SpringApplication());
        assertThat(env.getProperty("camel.main.routes-include-pattern")).isEqualTo("file:routes/*.camel.yaml");

        MockEnvironment given = new MockEnvironment()
                .withProperty("camel.main.routes-include-pattern", "file:{{iq.routes-dir:routes}}/*.camel.yaml");
        given.getPropertySources().addFirst(new MapPropertySource("args", Map.of("iq.routes-dir", "/srv/iq/routes")));
        new CamelMainPlaceholders().postProcessEnvironment(given, new SpringApplication());
        assertThat(given.getProperty("camel.main.routes-include-pattern")).isEqualTo("file:/srv/iq/routes/*.camel.yaml");
    }

    @Test
    void shouldLeaveKeysOutsideCamelAndValuesWithoutPlaceholdersAlone() {
        MockEnvironment env = new MockEnvironment().withProperty("camel.main.name", "ingest-quarantine")
                .withProperty("ingest.from-uri", "aws2-sqs://{{sqs.queue}}");
        new CamelMainPlaceholders().postProcessEnvironment(env, new SpringApplication());
        assertThat(env.getPropertySources().contains(CamelMainPlaceholders.SOURCE)).isFalse();
        assertThat(env.getProperty("ingest.from-uri")).isEqualTo("aws2-sqs://{{sqs.queue}}");
    }

    @Test
    void shouldNameAMissingKeyWithoutDefault() {
        MockEnvironment env = new MockEnvironment().withProperty("camel.main.routes-include-pattern", "file:{{nowhere}}/*");
        assertThatThrownBy(() -> new CamelMainPlaceholders().postProcessEnvironment(env, new SpringApplication()))
                .hasMessageContaining("nowhere");
    }
}
