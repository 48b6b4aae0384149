package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresCrash;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ensures that a crash of PostgreSQL itself ({@code pg_ctl stop -m immediate}) right after asynchronous opens costs
 * the journal's count on Kafka (where the journal is the delivery counter: no count given to {@code admit}) at most
 * the opens no synchronous commit had flushed, and never invents a death or a delivery; and that a synchronous open
 * loses nothing. The WAL writer is slowed to its maximum ({@code wal_writer_delay = 10s}) so that the crash falls
 * in its window; whether the open survives is then up to PostgreSQL, and either way the bounds hold.
 */
class JournalCrashIT extends PostgresTestBase {

    private static final Logger LOG = LoggerFactory.getLogger(JournalCrashIT.class);
    private static final String KEY = "kafka:ingest/0/7@topic-id";
    /** Short, so that an open that survived the crash is a death at once afterwards, as in a new process. */
    private static final Duration LEASE = Duration.ofMillis(200);

    @BeforeEach
    void slowWalWriter() throws SQLException {
        system("ALTER SYSTEM SET wal_writer_delay = '10s'");
    }

    @AfterEach
    void restoreWalWriter() throws SQLException {
        postgres.start();
        system("ALTER SYSTEM RESET wal_writer_delay");
    }

    private static void system(String sql) throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(postgres.jdbcUrl(), "postgres",
                superuserPassword()); Statement s = c.createStatement()) {
            s.execute(sql);
            s.execute("SELECT pg_reload_conf()");
        }
    }

    private static String superuserPassword() {
        return org.ingestquarantine.db.EmbeddedCredentials.read(dataDirectory.resolve(
                org.ingestquarantine.db.EmbeddedCredentials.FILE)).orElseThrow().superuserPassword();
    }

    /** What the journal said of the delivery after the crash, for its third delivery. */
    private record AfterCrash(int attempts, int deliveryCount, int deaths) {
    }

    private AfterCrash crashAfterTwoDeliveries(OpenCommit openCommit) throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-03T10:00:00Z"));
        AttemptJournal journal = new AttemptJournal(dataSource(), clock, new AttemptLease("consumer-1", LEASE),
                openCommit);
        // delivery 1: opened, then released, a close that commits synchronously (and flushes the open with it)
        AttemptJournal.Admission first = journal.admit(KEY, "it", "a.pdf", null, 3);
        assertThat(first.deliveryCount()).isEqualTo(1);
        journal.close(first.attemptId(), AttemptOutcome.RELEASED);
        // delivery 2: opened, and the database crashes while it works: no commit after the open
        AttemptJournal.Admission second = journal.admit(KEY, "it", "a.pdf", null, 3);
        assertThat(second.deliveryCount()).isEqualTo(2);
        PostgresCrash.crashAndRestart(postgres, dataDirectory);

        Thread.sleep(LEASE.toMillis() * 2); // a surviving open's lease runs out: it is a death now
        AttemptJournal next = new AttemptJournal(dataSource(), clock, new AttemptLease("consumer-2", LEASE),
                openCommit);
        int attempts = awaitDatabase(() -> next.attempts(KEY));
        AttemptJournal.Admission third = next.admit(KEY, "it", "a.pdf", null, 3);
        AfterCrash after = new AfterCrash(attempts, third.deliveryCount(), third.open().deaths().count());
        LOG.info("{} open, after the crash: {}", openCommit, after);
        return after;
    }

    @Test
    void shouldLoseAtMostTheUnflushedOpenAndInventNothingWhenPostgresCrashes() throws Exception {
        AfterCrash after = crashAfterTwoDeliveries(OpenCommit.ASYNCHRONOUS);

        assertThat(after.attempts()).as("the released delivery's open is flushed by its close; the second may be lost")
                .isBetween(1, 2);
        assertThat(after.deliveryCount()).as("the third delivery, counted by the journal: one uncounted at most")
                .isBetween(2, 3).isEqualTo(after.attempts() + 1);
        assertThat(after.deaths()).as("a death only if the crashed attempt's open survived, never one invented")
                .isEqualTo(after.attempts() - 1);
    }

    @Test
    void shouldLoseNothingWhenTheOpenCommitsSynchronously() throws Exception {
        AfterCrash after = crashAfterTwoDeliveries(OpenCommit.SYNCHRONOUS);

        assertThat(after).isEqualTo(new AfterCrash(2, 3, 1));
    }

    private static <T> T awaitDatabase(java.util.concurrent.Callable<T> read) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return read.call();
            } catch (JournalWriteException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }
}
