package org.ingestquarantine.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One process at a time per data folder: an OS file lock on {@code <data-dir>/.lock}, released when the
 * process ends, however it ends (so a killed run leaves no stale lock behind). The holder writes its pid into
 * the file ({@link #holderPid}). The lock is a POSIX record lock, which the OS drops when the process closes ANY
 * descriptor of the file, so a folder this JVM holds is answered from memory, without opening its lock file again.
 */
public final class DataDirLock implements AutoCloseable {

    /** The lock file's name in the data folder: {@value}. */
    static final String FILE = ".lock";

    /** The data folders this JVM holds, absolute and normalised. */
    private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path folder;
    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(Path folder, FileChannel channel, FileLock lock) {
        this.folder = folder;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * @param dataDir the data folder; created if missing
     * @return the held lock
     * @throws IllegalStateException when another process holds it, or the folder is not usable, with a
     *     message that says which
     */
    public static DataDirLock acquire(Path dataDir) {
        return tryAcquire(dataDir).orElseThrow(() -> new IllegalStateException("data folder " + dataDir.toAbsolutePath()
                + " is in use by another ingest-quarantine process; wait for it or use another --data-dir"));
    }

    /**
     * @param dataDir the data folder; created if missing
     * @return the held lock, or empty when another process (or this one) holds it
     * @throws IllegalStateException if the folder is a file
     * @throws UncheckedIOException if the lock file cannot be used
     */
    static Optional<DataDirLock> tryAcquire(Path dataDir) {
        if (Files.exists(dataDir) && !Files.isDirectory(dataDir)) {
            throw new IllegalStateException("--data-dir " + dataDir + " is a file, not a folder");
        }
        Path folder = dataDir.toAbsolutePath().normalize();
        if (!HELD.add(folder)) {
            return Optional.empty();  // this JVM holds it: its lock file is not opened (and closed) again
        }
        boolean locked = false;
        try {
            Files.createDirectories(dataDir);
            FileChannel channel = FileChannel.open(dataDir.resolve(FILE), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldByThisProcess) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                return Optional.empty();
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
            locked = true;
            return Optional.of(new DataDirLock(folder, channel, lock));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock data folder " + dataDir + ": " + e.getMessage(), e);
        } finally {
            if (!locked) {
                HELD.remove(folder);
            }
        }
    }

    /**
     * @param dataDir the data folder
     * @return the pid the last holder wrote into the lock file; empty when there is none (never held, or a
     *     holder between taking the lock and writing its pid)
     */
    static OptionalLong holderPid(Path dataDir) {
        if (HELD.contains(dataDir.toAbsolutePath().normalize())) {
            return OptionalLong.of(ProcessHandle.current().pid());
        }
        try {
            String first = Files.readString(dataDir.resolve(FILE), StandardCharsets.US_ASCII).strip();
            return first.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(first.lines().findFirst().orElse("")));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            try {
                channel.close();
            } finally {
                HELD.remove(folder);
            }
        }
    }
}
