package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures the summary triggers' functions are written once, in {@code R__summaries.sql} (issue 25): the database
 * runs that file's copy of each, and no versioned migration after V28 restates one (V6, V11 and V17 did, and stay
 * as applied for Flyway's checksums).
 */
class SummaryFunctionsOnceIT extends PostgresTestBase {

    private static final Path MIGRATIONS = Path.of("src/main/resources/db/migration");
    private static final Pattern FUNCTION = Pattern.compile(
            "CREATE (?:OR REPLACE )?FUNCTION (\\w+)\\(.*?\\bAS \\$\\$(.*?)\\$\\$;", Pattern.DOTALL);
    /** The last versioned migration written before the functions moved to R__summaries.sql. */
    private static final int LAST_RESTATING = 28;

    @Test
    void shouldRunTheRepeatableMigrationsCopyOfEverySummaryFunction() throws Exception {
        Map<String, String> bodies = functions(MIGRATIONS.resolve("R__summaries.sql"));
        assertThat(bodies).hasSize(15).containsKeys("quarantine_summary_insert", "quarantine_summary_apply",
                "quarantine_summary_update", "quarantine_summary_delete", "documents_summary_apply");
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT prosrc FROM pg_proc p JOIN pg_namespace n"
                     + " ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND p.proname = ?")) {
            for (Map.Entry<String, String> f : bodies.entrySet()) {
                s.setString(1, f.getKey());
                List<String> live = new ArrayList<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        live.add(rs.getString(1));
                    }
                }
                assertThat(live).as(f.getKey()).containsExactly(f.getValue());
            }
        }
    }

    @Test
    void shouldRestateNoSummaryFunctionInALaterVersionedMigration() throws IOException {
        var names = functions(MIGRATIONS.resolve("R__summaries.sql")).keySet();
        try (Stream<Path> files = Files.list(MIGRATIONS)) {
            for (Path file : files.filter(f -> later(f.getFileName().toString())).toList()) {
                assertThat(functions(file).keySet()).as(file.getFileName().toString()).doesNotContainAnyElementsOf(names);
            }
        }
    }

    private static boolean later(String name) {
        Matcher m = Pattern.compile("V(\\d+)(?:_\\d+)?__.*\\.sql").matcher(name);
        return m.matches() && Integer.parseInt(m.group(1)) > LAST_RESTATING;
    }

    private static Map<String, String> functions(Path file) throws IOException {
        Map<String, String> bodies = new LinkedHashMap<>();
        Matcher m = FUNCTION.matcher(Files.readString(file));
        while (m.find()) {
            assertThat(bodies.put(m.group(1), m.group(2))).as("%s written twice in %s", m.group(1), file).isNull();
        }
        return bodies;
    }
}
