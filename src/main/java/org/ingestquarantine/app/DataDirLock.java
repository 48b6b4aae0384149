package org.ingestquarantine.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One process at a time per data folder: an OS file lock on {@code <data-dir>/.lock}, released when the
 * process ends, however it ends (so a killed run leaves no stale lock behind).
 */
public final class DataDirLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
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
        if (Files.exists(dataDir) && !Files.isDirectory(dataDir)) {
            throw new IllegalStateException("--data-dir " + dataDir + " is a file, not a folder");
        }
        try {
            Files.createDirectories(dataDir);
            FileChannel channel = FileChannel.open(dataDir.resolve(".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                throw new IllegalStateException("data folder " + dataDir.toAbsolutePath()
                        + " is in use by another ingest-quarantine process; wait for it or use another --data-dir");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
            return new DataDirLock(channel, lock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock data folder " + dataDir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
