package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.NoSuchElementException;
import java.util.Objects;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Ensures the journal counts deaths (attempts never closed), not deliveries, and counts every attempt for Kafka. */
class AttemptJournalIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    private MutableClock clock;
    private AttemptJournal journal;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        journal = new AttemptJournal(dataSource(), clock);
    }

    @Test
    void shouldReportNoDeathsForAnUnknownKey() {
        assertThat(journal.deaths("k")).isEqualTo(Deaths.NONE);
        assertThat(journal.attempts("k")).isZero();
    }

    @Test
    void shouldNotCountAClosedAttemptAsADeath() {
        long first = journal.open("k1", "folder", "a.pdf", 1);
        journal.stage(first, "fetch");
        journal.close(first, "released");

        assertThat(journal.deaths("k1")).isEqualTo(Deaths.NONE);
        assertThat(journal.attempts("k1")).isEqualTo(1);
    }

    @Test
    void shouldTellTheNextAdmissionHowManyDeliveriesWereHandedBackWhileTheSourceWasPaused() {
        for (int delivery = 1; delivery <= 2; delivery++) {
            journal.close(journal.admit("kp", "folder", "a.pdf", delivery, 2).attemptId(), AttemptOutcome.STORM_PAUSED);
        }
        journal.close(journal.admit("kp", "folder", "a.pdf", 3, 2).attemptId(), AttemptOutcome.RELEASED);

        AttemptJournal.Admission fourth = journal.admit("kp", "folder", "a.pdf", 4, 2);

        assertThat(fourth.stormPauses()).as("the pause's hand-backs, not the document's own release").isEqualTo(2);
        assertThat(fourth.pipelineFaults()).isZero();
        assertThat(fourth.open().deaths()).as("closed: no death").isEqualTo(Deaths.NONE);
    }

    @Test
    void shouldTellTheNextAdmissionHowManyDeliveriesARouteFaultReleased() {
        long first = journal.admit("kf", "folder", "a.pdf", 1, 2).attemptId();
        journal.close(first, AttemptOutcome.PIPELINE_FAULT);
        long second = journal.admit("kf", "folder", "a.pdf", 2, 2).attemptId();
        journal.close(second, AttemptOutcome.RELEASED);

        AttemptJournal.Admission third = journal.admit("kf", "folder", "a.pdf", 3, 2);

        assertThat(third.pipelineFaults()).as("the route fault's, not the document's own release").isEqualTo(1);
        assertThat(third.open().deaths()).as("closed: no death").isEqualTo(Deaths.NONE);
        assertThat(third.deliveryCount()).as("the broker's count, unchanged").isEqualTo(3);
    }

    @Test
    void shouldCountAttemptsNeverClosedWithTheLastStageReached() {
        long first = journal.open("k2", "folder", "b.pdf", 1);
        journal.stage(first, "parse");
        clock.advance(Duration.ofSeconds(30));
        long second = journal.open("k2", "folder", "b.pdf", 2);
        journal.stage(second, "fetch");
        journal.stage(second, "parse");
        journal.stage(second, "embed");
        long third = journal.open("k2", "folder", "b.pdf", 3);
        journal.close(third, AttemptOutcome.RELEASED);

        assertThat(journal.deaths("k2")).isEqualTo(new Deaths(2, "embed", T0.plusSeconds(30)));
        assertThat(journal.attempts("k2")).isEqualTo(3);
        assertThat(journal.deaths("other")).isEqualTo(Deaths.NONE);
    }

    @Test
    void shouldRelaxOnlyTheStageMarksOwnCommit() throws Exception {
        long id = journal.open("k4", "folder", "d.pdf", 1);
        journal.stage(id, "parse");

        assertThat(journal.deaths("k4")).isEqualTo(new Deaths(1, "parse", T0));
        // set_config(..., true) ended with the mark's transaction: the next user of the connection commits synchronously
        try (java.sql.Connection c = dataSource().getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("on");
        }
    }

    @Test
    void shouldRejectUnknownAttemptsAndOutcomes() {
        assertThatThrownBy(() -> journal.close(999, AttemptOutcome.INDEXED)).isInstanceOf(NoSuchElementException.class);
        long id = journal.open("k3", null, null, 1);
        assertThatThrownBy(() -> journal.close(id, "exploded")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> journal.open("k3", null, null, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldThrowWhileTheDatabaseIsDown() {
        postgres.stop();
        try {
            assertThatThrownBy(() -> journal.open("k4", "folder", "c.pdf", 1))
                    .isInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("pause consumption");
        } finally {
            postgres.start();
        }
        // the pool may need a moment to reconnect to the restarted server
        Long reopened = await().atMost(Duration.ofSeconds(30)).ignoreException(JournalWriteException.class)
                .until(() -> journal.open("k4", "folder", "c.pdf", 1), Objects::nonNull);
        assertThat(reopened).isPositive();
    }

    @Test
    void shouldWriteACloseKeptDuringAnOutageBeforeCountingDeaths() {
        long id = journal.open("k5", "folder", "e.pdf", 1);
        postgres.stop();
        try {
            journal.close(id, AttemptOutcome.RELEASED);
            assertThatThrownBy(() -> journal.deaths("k5")).isInstanceOf(JournalWriteException.class);
        } finally {
            postgres.start();
        }
        // the first count the journal gives once the database answers (the pool may need a moment to reconnect)
        Deaths first = await().atMost(Duration.ofSeconds(30)).ignoreException(JournalWriteException.class)
                .until(() -> journal.deaths("k5"), Objects::nonNull);
        assertThat(first).as("an attempt closed during the outage").isEqualTo(Deaths.NONE);
    }

    @Test
    void shouldCountAnOpenAttemptAsADeathOnlyOnceItsLeaseRanOut() throws Exception {
        AttemptJournal leased = new AttemptJournal(dataSource(), clock, new AttemptLease("host/1/A", Duration.ofMinutes(1)));
        long id = leased.open("k6", "folder", "f.pdf", 1);
        leased.stage(id, "parse");
        assertThat(storedStage(id)).as("a live attempt's mark waits for the next beat: no round trip").isNull();
        assertThat(leased.unwrittenStage(id)).contains("parse");
        leased.renewLeases();
        assertThat(storedStage(id)).as("the beat wrote it").isEqualTo("parse");
        assertThat(leased.unwrittenStage(id)).isEmpty();

        assertThat(leased.openAttempts("k6").live()).as("its owner still beats").containsExactly(id);
        assertThat(leased.deaths("k6")).isEqualTo(Deaths.NONE);
        assertThat(owner(id)).isEqualTo("host/1/A");

        expireLease(id);
        assertThat(leased.openAttempts("k6").live()).isEmpty();
        assertThat(leased.deaths("k6")).as("its owner stopped beating").isEqualTo(new Deaths(1, "parse", T0));

        assertThat(leased.renewLeases()).as("the heartbeat of a live owner brings it back").isEqualTo(1);
        assertThat(leased.openAttempts("k6").live()).containsExactly(id);
    }

    @Test
    void shouldRenewEveryLiveAttemptOfTheProcessAndNoneItForgot() throws Exception {
        AttemptJournal leased = new AttemptJournal(dataSource(), clock, new AttemptLease("host/1/B", Duration.ofMinutes(1)));
        long a = leased.open("k7", null, null, 1);
        long b = leased.open("k8", null, null, 1);
        long c = leased.open("k9", null, null, 1);
        leased.close(b, AttemptOutcome.INDEXED);
        leased.forget(c);
        for (long id : new long[] {a, b, c}) {
            expireLease(id);
        }

        assertThat(leased.liveInThisProcess()).isEqualTo(1);
        assertThat(leased.renewLeases()).isEqualTo(1);
        assertThat(leased.openAttempts("k7").live()).containsExactly(a);
        assertThat(leased.deaths("k9").count()).as("forgotten while open: its lease runs out").isEqualTo(1);
        assertThat(leased.deaths("k8")).isEqualTo(Deaths.NONE);
    }

    @Test
    void shouldTellWhetherAnAttemptWaitedForSettledTheMessage() {
        long released = journal.open("k10", null, null, 1);
        journal.close(released, AttemptOutcome.RELEASED);
        long indexed = journal.open("k10", null, null, 2);

        assertThat(journal.settledAny(java.util.List.of(released, indexed))).isFalse();
        journal.close(indexed, AttemptOutcome.INDEXED);
        assertThat(journal.settledAny(java.util.List.of(released, indexed))).isTrue();
        assertThat(journal.settledAny(java.util.List.of())).isFalse();
    }

    @Test
    void shouldReadDeathsAndLiveAttemptsAndOpenInOneStatement() throws Exception {
        AttemptJournal leased = new AttemptJournal(dataSource(), clock, new AttemptLease("host/1/C", Duration.ofMinutes(1)));
        AttemptJournal.Admission first = leased.admit("k11", "folder", "g.pdf", 1, 2);
        assertThat(first.attemptId()).isNotNull();
        assertThat(first.open()).isEqualTo(AttemptJournal.OpenAttempts.NONE);
        assertThat(first.indexed()).as("not indexed").isNull();

        AttemptJournal.Admission whileLive = leased.admit("k11", "folder", "g.pdf", 2, 2);
        assertThat(whileLive.attemptId()).as("another attempt is live: none opened").isNull();
        assertThat(whileLive.open().live()).containsExactly(first.attemptId());

        leased.stage(first.attemptId(), "embed");
        leased.renewLeases();
        expireLease(first.attemptId());
        AttemptJournal.Admission afterOneDeath = leased.admit("k11", "folder", "g.pdf", 2, 2);
        assertThat(afterOneDeath.attemptId()).isNotNull();
        assertThat(afterOneDeath.open().deaths()).isEqualTo(new Deaths(1, "embed", T0));

        expireLease(afterOneDeath.attemptId());
        AttemptJournal.Admission spent = leased.admit("k11", "folder", "g.pdf", 3, 2);
        assertThat(spent.attemptId()).as("deaths reached the budget: none opened").isNull();
        assertThat(spent.open().deaths().count()).isEqualTo(2);
        assertThat(leased.attempts("k11")).isEqualTo(2);
    }

    @Test
    void shouldCountTheDeliveryFromTheJournalInTheOpeningStatementWhenNoCountIsGiven() throws Exception {
        AttemptJournal.Admission first = journal.admit("k15", "folder", "i.pdf", null, 2);
        assertThat(first.deliveryCount()).as("first delivery").isEqualTo(1);
        assertThat(journal.attempts("k15")).isEqualTo(1);
        journal.close(first.attemptId(), AttemptOutcome.RELEASED);

        AttemptJournal.Admission second = journal.admit("k15", "folder", "i.pdf", null, 2);
        assertThat(second.deliveryCount()).as("counted before this attempt is opened").isEqualTo(2);
        assertThat(countOf(second.attemptId())).isEqualTo(2);
        assertThat(journal.admit("k16", "folder", "j.pdf", 5, 2).deliveryCount()).as("a count given is kept")
                .isEqualTo(5);
    }

    @Test
    void shouldNotCountADeliveryWhoseQuarantineRecordWasNotWrittenAsAnother() {
        AttemptJournal.Admission first = journal.admit("k21", "folder", "not-pdf.pdf", null, 2);
        journal.stage(first.attemptId(), "parse");
        // its failure decided (quarantine), the record's statement failed: the database went away under it
        postgres.stop();
        try {
            journal.closeRecordNotWritten(first.attemptId());
            // the broker adapter's release closes it again: the kept close keeps its stage
            journal.close(first.attemptId(), AttemptOutcome.RELEASED);
        } finally {
            postgres.start();
        }
        AttemptJournal.Admission again = await().atMost(Duration.ofSeconds(30))
                .ignoreException(JournalWriteException.class)
                .until(() -> journal.admit("k21", "folder", "not-pdf.pdf", null, 2), Objects::nonNull);

        assertThat(again.deliveryCount()).as("the same delivery tried again, not a second one").isEqualTo(1);
        assertThat(again.open().deaths()).as("closed while the database was down: no death").isEqualTo(Deaths.NONE);
        assertThat(again.settled()).isFalse();
        journal.close(again.attemptId(), AttemptOutcome.RELEASED);
        assertThat(journal.attempts("k21")).as("an ordinary release counts").isEqualTo(1);
        assertThat(journal.admit("k21", "folder", "not-pdf.pdf", null, 2).deliveryCount()).isEqualTo(2);
    }

    private int countOf(long attemptId) throws Exception {
        try (var c = dataSource().getConnection();
             var s = c.prepareStatement("SELECT delivery_count FROM attempt_journal WHERE attempt_id = ?")) {
            s.setLong(1, attemptId);
            try (var rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void shouldReadTheIndexedVersionWithTheOpen() throws Exception {
        new org.ingestquarantine.ingest.DocumentIndex(dataSource(), 2).index(new org.ingestquarantine.ingest.IndexedDocument(
                "folder", "h.pdf", "v1", T0, null, "p1", "c1", "e1", 1,
                java.util.List.of(new org.ingestquarantine.ingest.IndexedChunk(0, "t", new float[] {1, 2}, 1, 1))));
        assertThat(journal.admit("k12", "folder", "h.pdf", 1, 2).indexed())
                .isEqualTo(new org.ingestquarantine.ingest.IndexedVersion("v1", "p1", "c1", "e1"));
        assertThat(journal.admit("k13", "folder", "other.pdf", 1, 2).indexed()).isNull();
    }

    @Test
    void shouldTellWhetherTheDocumentHasAnOpenQuarantineRecordWithTheOpen() throws Exception {
        org.ingestquarantine.quarantine.QuarantineStore store = new org.ingestquarantine.quarantine.QuarantineStore(
                dataSource(), new org.ingestquarantine.quarantine.LocalPayloadStore(
                        java.nio.file.Files.createTempDirectory("iq-objects-")), clock);
        store.record(org.ingestquarantine.quarantine.FailureEvidence.builder("folder", "q.pdf")
                .errorClass(org.ingestquarantine.failure.ErrorClass.PERMANENT_INPUT).build());
        store.record(org.ingestquarantine.quarantine.FailureEvidence.builder("folder", "closed.pdf")
                .errorClass(org.ingestquarantine.failure.ErrorClass.PERMANENT_INPUT).build());
        store.close("folder", "closed.pdf", org.ingestquarantine.quarantine.Disposition.REPAIRED_PARSER_FIXED, null,
                null);

        assertThat(journal.admit("k17", "folder", "q.pdf", 1, 2).openRecord()).isTrue();
        assertThat(journal.admit("k18", "folder", "closed.pdf", 1, 2).openRecord()).as("closed").isFalse();
        assertThat(journal.admit("k19", "folder", "never-failed.pdf", 1, 2).openRecord()).isFalse();
        assertThat(journal.admit("k20", "other", "q.pdf", 1, 2).openRecord()).as("another source").isFalse();
    }

    @Test
    void shouldNotWaitForAnAttemptBeingClosedByItsOutcome() throws Exception {
        AttemptJournal leased = new AttemptJournal(dataSource(), clock, new AttemptLease("host/1/D", Duration.ofMinutes(1)));
        long closing = leased.open("k14", null, null, 1);
        long other = leased.open("k15", null, null, 1);
        try (java.sql.Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (java.sql.Statement s = c.createStatement()) {
                // an outcome's statement holds the row it closes until its transaction ends
                s.executeUpdate("UPDATE attempt_journal SET stage = 'index' WHERE attempt_id = " + closing);
                long started = System.nanoTime();
                assertThat(leased.renewLeases()).as("the other attempt renewed, the locked one skipped").isEqualTo(1);
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            } finally {
                c.rollback();
            }
        }
        assertThat(leased.openAttempts("k15").live()).containsExactly(other);
    }

    private static String storedStage(long attemptId) throws Exception {
        try (java.sql.Connection c = dataSource().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT stage FROM attempt_journal WHERE attempt_id = ?")) {
            s.setLong(1, attemptId);
            try (java.sql.ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static String owner(long attemptId) throws Exception {
        try (java.sql.Connection c = dataSource().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT owner FROM attempt_journal WHERE attempt_id = ?")) {
            s.setLong(1, attemptId);
            try (java.sql.ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** What a lease looks like once its owner stopped beating long enough. */
    static void expireLease(long attemptId) throws Exception {
        try (java.sql.Connection c = dataSource().getConnection(); java.sql.PreparedStatement s = c.prepareStatement(
                "UPDATE attempt_journal SET lease_until = clock_timestamp() - interval '1 second' WHERE attempt_id = ?")) {
            s.setLong(1, attemptId);
            s.executeUpdate();
        }
    }
}
