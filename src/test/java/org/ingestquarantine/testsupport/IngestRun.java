package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;

/**
 * {@code ingest <folder> --source <source> --json} in its own JVM on the embedded profile, consuming from a copy of
 * {@code routes/}, as a user runs it: its exit code, its output, its JSON summary, and its data folder's database
 * read after it is gone.
 *
 * @param exitCode the exit code
 * @param output everything it printed
 * @param summary the last JSON line it printed
 * @param dataDir its data folder
 */
public record IngestRun(int exitCode, String output, JsonNode summary, Path dataDir) {

    /**
     * @param routes the routes it consumes with
     * @param folder the documents
     * @param source the source they are published under
     * @param dataDir a fresh data folder
     * @param logName the output's file name under {@code target/}
     * @return the finished run
     * @throws Exception when it cannot be started or runs longer than five minutes
     */
    public static IngestRun of(RoutesCopy routes, Path folder, String source, Path dataDir, String logName)
            throws Exception {
        Path log = ConsumerProcess.freshLog(logName);
        Map<String, String> p = new HashMap<>();
        p.put("db.port", Integer.toString(FreePort.find()));
        p.put("sqs.port", Integer.toString(FreePort.find()));
        p.put("parse.pool-size", "1");
        p.put("iq.routes-dir", routes.folder().toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        int exit;
        try (ConsumerProcess ingest = ConsumerProcess.command(List.of("ingest", folder.toString(), "--source", source,
                "--json", "--data-dir", dataDir.toString()), p, Map.of(), log)) {
            exit = ingest.awaitExit(Duration.ofMinutes(5));
        }
        String output = Files.readString(log);
        String last = output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElse("{}");
        return new IngestRun(exit, output, new ObjectMapper().readTree(last), dataDir);
    }

    /**
     * @return the run's embedded database, started again on its data folder; close it when done
     * @throws Exception when it cannot be started
     */
    public SavedDatabase database() throws Exception {
        EmbeddedPostgresService server = EmbeddedPostgresService.start(dataDir.resolve("postgres"), 0);
        try {
            return new SavedDatabase(server, Database.open(server.jdbcUrl(), server.user(), server.password()));
        } catch (Exception e) {
            server.close();
            throw e;
        }
    }

    /** A finished run's database, to read. */
    public record SavedDatabase(EmbeddedPostgresService server, Database database) implements AutoCloseable {

        /** @return its connection pool */
        public DataSource dataSource() {
            return database.dataSource();
        }

        /**
         * Asserts the run's accounting: no attempt left open, one attempt per document published (each delivered
         * once), as many indexed in the journal as the summary says.
         *
         * @param summary the run's summary
         * @throws java.sql.SQLException when the journal cannot be read
         */
        public void assertOneClosedAttemptPerMessage(JsonNode summary) throws java.sql.SQLException {
            assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open").isZero();
            assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM attempt_journal")).as("one attempt per message")
                    .isEqualTo(summary.get("documents").asLong());
            assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM attempt_journal WHERE outcome = 'indexed'"))
                    .isEqualTo(summary.get("indexed").asLong());
        }

        @Override
        public void close() throws Exception {
            try (server) {
                database.close();
            }
        }
    }
}
