package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;

/**
 * Who may use the machine's RabbitMQ application now, across the JVMs on the machine (failsafe's forks): a test
 * that uses the broker holds a share ({@link #share()}) while it does; a test that stops the broker application
 * ({@code rabbitmqctl stop_app}, which every vhost feels) does it {@linkplain #exclusively alone}, once every share
 * held in other JVMs is given back. Shares within one JVM are counted: the first takes the file lock, the last
 * gives it back.
 *
 * <p>A file lock on two bytes of {@link #FILE}: byte 0 is the use (shared or exclusive), byte 1 the intent: a JVM
 * waiting to stop the application holds it exclusively, so shares asked for after it wait behind it.
 *
 * <pre>{@code
 * try (AutoCloseable share = RabbitMqAppLock.share()) { ... publish, consume ... }
 * RabbitMqAppLock.exclusively(() -> { rabbit.stopApp(); rabbit.startApp(); });
 * }</pre>
 */
public final class RabbitMqAppLock {

    /** The lock file, in the JVM's temporary folder: one per machine, whichever worktree runs. */
    public static final Path FILE = Path.of(System.getProperty("java.io.tmpdir"), "iq-rabbitmq-app.lock");
    /** How long a share or the exclusive use is waited for before the test fails saying so. */
    public static final Duration TIMEOUT = Duration.ofMinutes(20);

    private static FileChannel channel;
    private static FileLock use;
    private static int shares;

    private RabbitMqAppLock() {
    }

    /** What runs while this JVM uses the broker application alone. */
    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    /**
     * @return a share of the broker application, given back on close (once; further closes do nothing)
     */
    public static synchronized AutoCloseable share() {
        if (shares == 0) {
            use = acquireShared();
        }
        shares++;
        boolean[] closed = new boolean[1];
        return () -> release(closed);
    }

    /**
     * Runs {@code action} with no other JVM holding a share; this JVM's own shares are given back for the time
     * and taken again afterwards.
     *
     * @param action what stops and starts the broker application
     * @throws Exception what {@code action} throws
     */
    public static synchronized void exclusively(Action action) throws Exception {
        if (use != null) {
            use.release();
            use = null;
        }
        FileLock intent = acquire(1, false);
        try {
            FileLock alone = acquire(0, false);
            try {
                action.run();
            } finally {
                alone.release();
            }
        } finally {
            intent.release();
            if (shares > 0) {
                use = acquireShared();
            }
        }
    }

    private static synchronized void release(boolean[] closed) throws IOException {
        if (closed[0]) {
            return;
        }
        closed[0] = true;
        if (--shares == 0 && use != null) {
            use.release();
            use = null;
        }
    }

    private static FileLock acquireShared() {
        FileLock intent = acquire(1, true);
        try {
            return acquire(0, true);
        } finally {
            try {
                intent.release();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static FileLock acquire(long position, boolean shared) {
        Instant deadline = Instant.now().plus(TIMEOUT);
        try {
            if (channel == null) {
                channel = FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
            }
            while (true) {
                FileLock lock = channel.tryLock(position, 1, shared);
                if (lock != null) {
                    return lock;
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("RabbitMQ's application lock " + FILE + " (byte " + position + ", "
                            + (shared ? "shared" : "exclusive") + ") not granted within " + TIMEOUT
                            + "; another JVM holds it (a test restarting the broker, or one using it)");
                }
                Thread.sleep(100);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + FILE, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + FILE, e);
        }
    }
}
