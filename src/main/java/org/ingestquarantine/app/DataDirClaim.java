package org.ingestquarantine.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What an operator command gets on a data folder with the embedded database: the folder's lock when no process
 * holds it (the command then starts the embedded PostgreSQL itself, as before), or, when a live process holds
 * it, the database that process published ({@link HolderDatabase}), to connect to beside it without a lock and
 * without a second server. A holder that has not published yet (still starting its database, or an
 * ingest-quarantine that does not publish) is waited for, at most {@value #WAIT_PROPERTY}, every
 * {@value #POLL_PROPERTY}; then one line says what to do.
 *
 * @param lock the folder's lock, when this process now holds it
 * @param holder the holder's database, when another process holds the folder
 */
record DataDirClaim(Optional<DataDirLock> lock, Optional<HolderDatabase.Notice> holder) {

    /** Property: how long to wait for the holder of a data folder to publish its database, milliseconds. */
    static final String WAIT_PROPERTY = "db.holder-wait-ms";
    /** Property: how often to look again while waiting, milliseconds. */
    static final String POLL_PROPERTY = "db.holder-poll-ms";

    /**
     * @param dataDir the data folder
     * @param wait how long to wait for a holder's database ({@value #WAIT_PROPERTY})
     * @param poll how often to look ({@value #POLL_PROPERTY})
     * @return the lock or the holder's database
     * @throws IllegalStateException when a live process holds the folder and has published no database within
     *     {@code wait}, or the folder is a file
     * @throws InterruptedException if interrupted while waiting
     */
    static DataDirClaim of(Path dataDir, Duration wait, Duration poll) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Optional<DataDirLock> lock = DataDirLock.tryAcquire(dataDir);
            if (lock.isPresent()) {
                return new DataDirClaim(lock, Optional.empty());
            }
            OptionalLong holder = DataDirLock.holderPid(dataDir);
            Optional<HolderDatabase.Notice> notice = HolderDatabase.read(dataDir)
                    .filter(n -> holder.isPresent() && n.pid() == holder.getAsLong())
                    .filter(n -> ProcessHandle.of(n.pid()).map(ProcessHandle::isAlive).orElse(false));
            if (notice.isPresent()) {
                return new DataDirClaim(Optional.empty(), notice);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("data folder " + dataDir.toAbsolutePath() + " is in use by process "
                        + (holder.isPresent() ? holder.getAsLong() : "?") + ", which named no database to connect to"
                        + " within " + WAIT_PROPERTY + "=" + wait.toMillis() + " (still starting, or an older"
                        + " ingest-quarantine); try again once it has started, or stop it, or raise " + WAIT_PROPERTY);
            }
            Thread.sleep(poll.toMillis());
        }
    }
}
