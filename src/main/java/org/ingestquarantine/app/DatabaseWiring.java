package org.ingestquarantine.app;

import java.time.Duration;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.pipeline.Settings;

/**
 * The database: the host's ({@value AppConfiguration#HOSTED_DATABASE}, Spring Boot's), else the embedded PostgreSQL
 * in the data folder ({@code db.mode=embedded}, {@code db.port}) or {@code db.url} with {@code db.user} and
 * {@code db.password} ({@code db.mode=external}), within {@code db.connect-timeout-ms}; bound as {@code database}
 * and its pool as {@code dataSource} (the quarantine route's {@code sql:} endpoint writes through it).
 */
final class DatabaseWiring {

    private DatabaseWiring() {
    }

    static Database open(Wiring w) throws Exception {
        Settings settings = w.settings();
        Database hosted = w.registry().lookupByNameAndType(AppConfiguration.HOSTED_DATABASE, Database.class);
        if (hosted != null) {
            // a host's pool, migrated by the host (Spring Boot's DataSource and Flyway): closed by the host
            EmbeddedPostgresService server = w.registry().lookupByNameAndType(AppConfiguration.HOSTED_POSTGRES,
                    EmbeddedPostgresService.class);
            if (server != null) {
                w.closeOnStop(HolderDatabase.publish(w.dataDir(), server.jdbcUrl(), server.user(), server.password()));
            }
            w.bind("dataSource", hosted.dataSource());
            return hosted;
        }
        Duration timeout = settings.requiredMillis(Database.CONNECT_TIMEOUT_PROPERTY);
        Database database;
        EmbeddedPostgresService postgres = null;
        if ("embedded".equals(settings.required("db.mode"))) {
            // stopped last, by StartedServices once the consumers are done (PipelineApp), never by zonky's exit hook
            EmbeddedPostgresService server = w.timeline().time("postgres", () -> EmbeddedPostgresService.start(
                    EmbeddedPostgresService.folderIn(w.dataDir()), (int) settings.number("db.port", 0), false));
            w.closeOnStop(server);
            w.bind(AppConfiguration.HOSTED_POSTGRES, server);
            database = w.timeline().time("schema", () -> Database.open(server.jdbcUrl(), server.user(),
                    server.password(), timeout));
            postgres = server;
        } else {
            database = Database.open(settings.required(Database.URL_PROPERTY), settings.string("db.user", "postgres"),
                    settings.string("db.password", ""), timeout);
        }
        w.closeOnStop(database);
        if (postgres != null) {
            // operator commands on the data folder this process holds connect to it (OperatorRuntime); the notice
            // goes first on stop, before the database
            w.closeOnStop(HolderDatabase.publish(w.dataDir(), postgres.jdbcUrl(), postgres.user(),
                    postgres.password()));
        }
        w.bind(AppConfiguration.HOSTED_DATABASE, database);
        // the quarantine route's sql: endpoint writes through this pool
        w.bind("dataSource", database.dataSource());
        return database;
    }
}
