package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.CommitSettings;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the journal's open commits with {@code synchronous_commit = off} in its own transaction only, and every
 * outcome (index write with the attempt's close, quarantine record, a release's close) with the server's
 * {@code on}: read inside each transaction ({@link CommitSettings}), all on ONE database session, so a setting that
 * leaked from the open into the session would show in the outcome's commit.
 */
class OpenCommitIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final String OPEN = "INSERT INTO attempt_journal";

    @TempDir
    Path temp;

    private Connection session;
    private CommitSettings commits;
    private MutableClock clock;

    @BeforeEach
    void oneSession() throws SQLException {
        session = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
        commits = new CommitSettings(new SingleSession(session));
        clock = new MutableClock(T0);
    }

    @AfterEach
    void closeSession() throws SQLException {
        session.close();
    }

    private AttemptJournal journal(OpenCommit openCommit) {
        return new AttemptJournal(commits, clock, new AttemptLease("test-owner", Duration.ofSeconds(5)), openCommit);
    }

    @Test
    void shouldOpenWithSynchronousCommitOffAndCloseWithOn() {
        AttemptJournal journal = journal(OpenCommit.ASYNCHRONOUS);

        long attempt = journal.admit("k1", "folder", "a.pdf", 1, 2).attemptId();
        long opened = journal.open("k2", "folder", "b.pdf", 1);
        journal.close(attempt, AttemptOutcome.RELEASED);

        assertThat(commits.commitsOf(OPEN)).as("admit and open").hasSize(2)
                .allSatisfy(c -> assertThat(c.synchronousCommit()).isEqualTo("off"));
        assertThat(commits.commitsOf("SET outcome = ?")).as("the release's close, on the same session")
                .singleElement().satisfies(c -> assertThat(c.synchronousCommit()).isEqualTo("on"));
        assertThat(opened).isPositive();
    }

    @Test
    void shouldCommitTheIndexWriteAndTheQuarantineRecordSynchronouslyAfterAnAsynchronousOpen() {
        AttemptJournal journal = journal(OpenCommit.ASYNCHRONOUS);
        DocumentIndex index = new DocumentIndex(commits, 2);
        QuarantineStore store = new QuarantineStore(commits, new LocalPayloadStore(temp.resolve("objects")), clock);

        long indexed = journal.admit("k1", "folder", "a.pdf", 1, 2).attemptId();
        index.index(new IndexedDocument("folder", "a.pdf", "v1", T0, null, "p1", "c1", "e1", 1,
                List.of(new IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))), indexed);
        journal.admit("k2", "folder", "b.pdf", 1, 2);
        store.record(FailureEvidence.builder("folder", "b.pdf").errorClass(ErrorClass.PERMANENT_INPUT)
                .errorFingerprint("fp").deliveryKey("k2").deliveryCount(1).build());

        assertThat(commits.commitsOf(OPEN)).hasSize(2)
                .allSatisfy(c -> assertThat(c.synchronousCommit()).isEqualTo("off"));
        List<CommitSettings.Commit> outcomes = commits.commits().stream().filter(c -> !c.ran(OPEN)).toList();
        assertThat(outcomes).as("index write, quarantine record").hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(c -> assertThat(c.synchronousCommit()).as(c.statements().toString()).isEqualTo("on"));
        assertThat(outcomes).anySatisfy(c -> assertThat(c.ran("INSERT INTO documents")).isTrue());
        assertThat(outcomes).anySatisfy(c -> assertThat(c.ran("INSERT INTO quarantine")).isTrue());
    }

    @Test
    void shouldLeaveTheServersSettingToASynchronousOpen() {
        AttemptJournal journal = journal(OpenCommit.SYNCHRONOUS);

        journal.admit("k1", "folder", "a.pdf", 1, 2);
        journal.open("k2", "folder", "b.pdf", 1);

        assertThat(commits.commitsOf(OPEN)).hasSize(2)
                .allSatisfy(c -> assertThat(c.synchronousCommit()).isEqualTo("on"));
    }

    @Test
    void shouldNameThePropertyForAnUnknownChoice() {
        assertThat(OpenCommit.of(" Asynchronous ")).isEqualTo(OpenCommit.ASYNCHRONOUS);
        assertThatThrownBy(() -> OpenCommit.of("off")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(OpenCommit.PROPERTY);
    }

    /** Hands out the one session, whose close is left to the test. */
    private static final class SingleSession extends org.postgresql.ds.PGSimpleDataSource {
        private final transient Connection session;

        SingleSession(Connection session) {
            this.session = session;
        }

        @Override
        public Connection getConnection() {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, m, args) -> {
                        if (m.getName().equals("close")) {
                            return null;
                        }
                        try {
                            return m.invoke(session, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
