package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.springframework.jdbc.core.JdbcTemplate;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a storm pauses its source once however many consumers see it, only for a fingerprint the source's
 * quarantine attempts did not carry within the look-back before it began, and that a storm's own records never make
 * its fingerprint known, so a resumed source pauses again when the same fingerprint storms again.
 */
class SourcePausesIT extends PostgresTestBase {

    private static final Instant BEGAN = Instant.parse("2025-03-01T10:00:00Z");
    private static final Duration LOOK_BACK = Duration.ofDays(30);

    @TempDir
    Path temp;

    private MutableClock clock;
    private SourcePauses pauses;

    @BeforeEach
    void emptyPauses() throws SQLException {
        new JdbcTemplate(dataSource()).update("TRUNCATE storm_pause");
        clock = new MutableClock(BEGAN.plusSeconds(60));
        pauses = new SourcePauses(dataSource(), clock);
    }

    @Test
    void shouldPauseANewFingerprintOnceWhenTwoConsumersSeeTheStorm() throws SQLException {
        SourcePauses.Trip first = pauses.trip(storm("docs", "f1", BEGAN), "host/1", LOOK_BACK);
        SourcePauses.Trip second = pauses.trip(storm("docs", "f1", BEGAN.plusSeconds(5)), "host/2", LOOK_BACK);

        assertThat(first.verdict()).isEqualTo(SourcePauses.Verdict.PAUSED);
        assertThat(first.pause()).satisfies(p -> {
            assertThat(p.source()).isEqualTo("docs");
            assertThat(p.fingerprint()).isEqualTo("f1");
            assertThat(p.errorClass()).isEqualTo("permanent_input");
            assertThat(p.reasonCode()).isEqualTo("not_pdf");
            assertThat(p.percent()).isEqualTo(75);
            assertThat(p.stormBeganAt()).isEqualTo(BEGAN);
            assertThat(p.pausedBy()).isEqualTo("host/1");
            assertThat(p.open()).isTrue();
        });
        assertThat(second.verdict()).isEqualTo(SourcePauses.Verdict.ALREADY_PAUSED);
        assertThat(second.pause().pausedBy()).as("the first consumer's pause").isEqualTo("host/1");
        assertThat(pauses.open()).containsOnlyKeys("docs");
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void shouldTakeAFingerprintTheSourcesAttemptsCarriedBeforeTheStormForItsUsualFailure() throws SQLException {
        Instant seen = BEGAN.minus(Duration.ofDays(2));
        recordFailure("docs", "old.pdf", "f1", seen);
        recordFailure("wiki", "other.pdf", "f2", seen);

        SourcePauses.Trip known = pauses.trip(storm("docs", "f1", BEGAN), "host/1", LOOK_BACK);
        SourcePauses.Trip otherSources = pauses.trip(storm("docs", "f2", BEGAN), "host/1", LOOK_BACK);

        assertThat(known.verdict()).isEqualTo(SourcePauses.Verdict.KNOWN);
        assertThat(known.knownUntil()).as("the latest attempt with it, plus the look-back").isEqualTo(seen.plus(LOOK_BACK));
        assertThat(otherSources.verdict()).as("another source's records say nothing of this one")
                .isEqualTo(SourcePauses.Verdict.PAUSED);
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void shouldCountNeitherTheStormsOwnRecordsNorThoseOlderThanTheLookBack() {
        recordFailure("docs", "long-ago.pdf", "f1", BEGAN.minus(LOOK_BACK).minusSeconds(1));
        recordFailure("docs", "cohort.pdf", "f1", BEGAN);
        recordFailure("docs", "cohort-2.pdf", "f1", BEGAN.plusSeconds(1));

        assertThat(pauses.trip(storm("docs", "f1", BEGAN), "host/1", LOOK_BACK).verdict())
                .isEqualTo(SourcePauses.Verdict.PAUSED);
    }

    @Test
    void shouldPauseAResumedSourceAgainWhenTheSameFingerprintStormsAgain() {
        pauses.trip(storm("docs", "f1", BEGAN), "host/1", LOOK_BACK);
        recordFailure("docs", "cohort.pdf", "f1", BEGAN.plusSeconds(1));
        clock.advance(Duration.ofHours(1));

        SourcePauses.Pause resumed = pauses.resume("docs", "operator").orElseThrow();

        assertThat(resumed.resumedBy()).isEqualTo("operator");
        assertThat(resumed.resumedAt()).isEqualTo(clock.instant());
        assertThat(pauses.open()).isEmpty();
        assertThat(pauses.resume("docs", "operator")).as("not paused any more").isEmpty();
        // the cohort's record is older than this storm, but it was the first storm's: not the source's usual failure
        SourcePauses.Trip again = pauses.trip(storm("docs", "f1", BEGAN.plus(Duration.ofHours(2))), "host/2",
                LOOK_BACK);
        assertThat(again.verdict()).isEqualTo(SourcePauses.Verdict.PAUSED);
        assertThat(pauses.list(10)).extracting(SourcePauses.Pause::pausedBy, SourcePauses.Pause::open)
                .as("the open pause first, then the resumed one").containsExactly(
                        org.assertj.core.groups.Tuple.tuple("host/2", true),
                        org.assertj.core.groups.Tuple.tuple("host/1", false));
    }

    private static Storm storm(String source, String fingerprint, Instant began) {
        return new Storm(source, fingerprint, ErrorClass.PERMANENT_INPUT, "not_pdf", 15, 20, began);
    }

    private void recordFailure(String source, String docId, String fingerprint, Instant at) {
        new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")), Clock.fixed(at, ZoneOffset.UTC))
                .record(FailureEvidence.builder(source, docId).errorClass(ErrorClass.PERMANENT_INPUT)
                        .reasonCode("not_pdf").stage("parse").errorFingerprint(fingerprint).build());
    }

    private long rows() throws SQLException {
        return new JdbcTemplate(dataSource()).queryForObject("SELECT count(*) FROM storm_pause", Long.class);
    }
}
