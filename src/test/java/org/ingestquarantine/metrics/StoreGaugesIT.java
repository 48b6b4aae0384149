package org.ingestquarantine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures the no-drain age cannot be silenced by absence: it exists from the first open record on a store that
 * never drained (the age of its oldest open record), a run that attempted nothing does not reset it, and a run that
 * attempted something does.
 */
class StoreGaugesIT extends PostgresTestBase {

    private static final double DAY = 24 * 3600;

    private SimpleMeterRegistry registry;
    private StoreGauges gauges;
    private JdbcTemplate jdbc;

    @BeforeEach
    void startGauges() {
        registry = new SimpleMeterRegistry();
        jdbc = new JdbcTemplate(dataSource());
        // polled by hand below: the first scheduled read runs at once, the next one an hour later
        gauges = StoreGauges.start(dataSource(), SourceTags.of(List.of("contracts")), registry,
                new StoreGauges.Windows(Duration.ofHours(1), Duration.ofDays(1), Duration.ofDays(90)), java.util.Map::of,
                Clock.systemUTC());
    }

    @AfterEach
    void stopGauges() {
        gauges.close();
    }

    @Test
    void shouldShowNoDrainAgeFromTheOldestOpenRecordOfAStoreThatNeverDrained() throws Exception {
        gauges.refresh();
        assertThat(drainAge()).as("nothing open, nothing ever drained").isNull();

        openRecord("old.pdf", 300);
        openRecord("new.pdf", 2);
        gauges.refresh();
        assertThat(drainAge()).as("never drained: since the oldest open record").isCloseTo(300 * DAY, within(60.0));

        run("01HNOTHING0000000000000000", 1, "nothing_attempted");
        gauges.refresh();
        assertThat(drainAge()).as("a run that attempted nothing is no drain").isCloseTo(300 * DAY, within(60.0));

        run("01HDRAINED0000000000000000", 3, "finished");
        gauges.refresh();
        assertThat(drainAge()).as("since the last drain that attempted something").isCloseTo(3 * DAY, within(60.0));
    }

    /** The overdue series exists on a healthy day too: 0 is a reading, absence is none. */
    @Test
    void shouldReadZeroOverdueRatherThanNothing() throws Exception {
        gauges.refresh();
        assertThat(registry.find("quarantine.overdue.documents").tag("owner", "unowned").gauge().value()).isZero();
        openRecord("fresh.pdf", 1);
        openRecord("late.pdf", 120);
        gauges.refresh();
        assertThat(registry.find("quarantine.overdue.documents").tag("owner", "unowned").gauge().value()).isEqualTo(1);
    }

    private Double drainAge() {
        Gauge g = registry.find("drain.last.run.age.seconds").gauge();
        return g == null ? null : g.value();
    }

    private void openRecord(String docId, int daysAgo) throws Exception {
        jdbc.update("INSERT INTO quarantine (dlq_id, source, doc_id, error_class, attempts, first_seen_at, last_seen_at)"
                + " VALUES (?, 'contracts', ?, 'ambiguous_parse', 1, now() - ?::int * interval '1 day', now())",
                ("01HREC" + docId.replace(".pdf", "").toUpperCase() + "00000000000000000000").substring(0, 26), docId,
                daysAgo);
    }

    private void run(String runId, int daysAgo, String status) throws Exception {
        jdbc.update("INSERT INTO drain_runs (run_id, started_by, started_at, finished_at, status, error_fingerprint,"
                + " limit_documents, rate_per_s, cohort_documents, selected) VALUES (?, 'test',"
                + " now() - ?::int * interval '1 day', now() - ?::int * interval '1 day', ?, 'fp', 1, 1, 2, 1)",
                runId, daysAgo, daysAgo, status);
    }
}
