package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures an operator on a data folder gets its lock when nobody holds it, the database the live holder published
 * when somebody does, and, when the holder published nothing (or a notice another process left), one line naming
 * the setting once the wait is over. The holder here is this JVM's own lock (the same OS lock another process
 * would hold); OperatorBesideConsumerIT runs it across real processes.
 */
class DataDirClaimTest {

    private static final Duration WAIT = Duration.ofMillis(600);
    private static final Duration POLL = Duration.ofMillis(50);

    @TempDir
    Path data;

    @Test
    void shouldTakeTheLockOfAFolderNobodyHolds() throws Exception {
        DataDirClaim claim = DataDirClaim.of(data, WAIT, POLL);
        assertThat(claim.lock()).isPresent();
        assertThat(claim.holder()).isEmpty();
        claim.lock().get().close();
        try (DataDirLock again = DataDirClaim.of(data, WAIT, POLL).lock().orElseThrow()) {
            assertThat(again).isNotNull();
        }
    }

    @Test
    void shouldConnectToTheDatabaseTheHolderPublished() throws Exception {
        try (DataDirLock held = DataDirLock.acquire(data);
             HolderDatabase published = HolderDatabase.publish(data, "jdbc:postgresql://localhost:5999/postgres",
                     "postgres", "")) {
            DataDirClaim claim = DataDirClaim.of(data, WAIT, POLL);
            assertThat(claim.lock()).isEmpty();
            assertThat(claim.holder()).hasValueSatisfying(n -> {
                assertThat(n.pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(n.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5999/postgres");
                assertThat(n.user()).isEqualTo("postgres");
            });
        }
    }

    /**
     * The lock is a POSIX record lock, dropped by the OS when its process closes any descriptor of the file: a claim
     * in the JVM that holds the folder must leave it held, as another process (python3's lockf, the same kind of
     * lock) sees it.
     */
    @Test
    void shouldKeepTheLockThisJvmHoldsThroughItsOwnClaims() throws Exception {
        try (DataDirLock held = DataDirLock.acquire(data);
             HolderDatabase published = HolderDatabase.publish(data, "jdbc:postgresql://localhost:5999/postgres",
                     "postgres", "")) {
            assertThat(DataDirClaim.of(data, WAIT, POLL).holder()).isPresent();
            assertThat(DataDirLock.tryAcquire(data)).isEmpty();
            org.ingestquarantine.testsupport.Exec other = org.ingestquarantine.testsupport.Exec.run(java.util.List.of(
                    "python3", "-c", "import fcntl, sys; f = open(sys.argv[1], 'a');"
                            + " fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)", data.resolve(".lock").toString()),
                    Duration.ofSeconds(30));
            assertThat(other.exitCode()).as("another process's lock attempt: %s", other.output()).isNotZero();
            assertThat(other.output()).contains("BlockingIOError");
        }
    }

    @Test
    void shouldPublishForTheOwnerOnlyAndRemoveTheNoticeOnClose() throws Exception {
        try (HolderDatabase published = HolderDatabase.publish(data, "jdbc:postgresql://localhost:5999/postgres",
                "postgres", "s3cret")) {
            Path file = data.resolve(HolderDatabase.FILE);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(HolderDatabase.read(data)).hasValueSatisfying(n -> {
                assertThat(n.password()).isEqualTo("s3cret");
                assertThat(n.toString()).doesNotContain("s3cret");
            });
            try (var names = Files.list(data)) {
                assertThat(names.map(p -> p.getFileName().toString())).as("no temporary file left")
                        .containsExactly(HolderDatabase.FILE);
            }
            published.close();
            assertThat(file).doesNotExist();
        }
    }

    @Test
    void shouldWaitBoundedlyThenSayWhatToDoWhenTheHolderPublishedNothing() throws Exception {
        try (DataDirLock held = DataDirLock.acquire(data)) {
            long began = System.nanoTime();
            assertThatThrownBy(() -> DataDirClaim.of(data, WAIT, POLL)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is in use by process " + ProcessHandle.current().pid())
                    .hasMessageContaining("db.holder-wait-ms=600").hasMessageNotContaining("\n");
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            assertThat(took).isGreaterThanOrEqualTo(WAIT).isLessThan(WAIT.plusSeconds(5));
        }
    }

    /**
     * What a run killed with SIGKILL leaves: its notice, naming a pid that no longer holds the folder (gone, or
     * reused by another live process).
     */
    @Test
    void shouldIgnoreANoticeLeftByAnotherProcess() throws Exception {
        long gone = ProcessHandle.current().pid() + 100_000;
        long otherLive = ProcessHandle.current().parent().orElseThrow().pid();
        for (long pid : new long[] {gone, otherLive}) {
            Properties stale = new Properties();
            stale.setProperty("pid", Long.toString(pid));
            stale.setProperty("jdbc-url", "jdbc:postgresql://localhost:5999/postgres");
            stale.setProperty("user", "postgres");
            try (var w = Files.newBufferedWriter(data.resolve(HolderDatabase.FILE))) {
                stale.store(w, null);
            }
            try (DataDirLock held = DataDirLock.acquire(data)) {
                assertThatThrownBy(() -> DataDirClaim.of(data, WAIT, POLL)).as("notice of pid %d", pid)
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("named no database");
            }
            // and nobody holding the folder: the lock, whatever the notice says
            try (DataDirLock mine = DataDirClaim.of(data, WAIT, POLL).lock().orElseThrow()) {
                assertThat(mine).isNotNull();
            }
        }
    }
}
