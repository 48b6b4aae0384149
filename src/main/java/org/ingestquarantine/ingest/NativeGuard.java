package org.ingestquarantine.ingest;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Guards native resources (the MiniLM tokenizer and session): every call into them holds the read lock, and
 * {@link #close} takes the write lock, so neither is freed while a thread (an embedding thread, or a consumer
 * abandoned by the shutdown) is still inside it: freeing a session under {@code OrtSession.run} crashes the JVM.
 * Thread-safe.
 */
final class NativeGuard {

    private final ReadWriteLock natives = new ReentrantReadWriteLock();
    private boolean closed;

    /**
     * @return what {@code call} returns, run while the natives cannot be freed
     * @throws IllegalStateException once closed
     */
    <T> T call(Supplier<T> call) {
        Lock read = natives.readLock();
        read.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the embedder was closed");
            }
            return call.get();
        } finally {
            read.unlock();
        }
    }

    /**
     * Waits until no thread is inside {@link #call}, then runs {@code release} once (the first close only);
     * later calls throw {@link IllegalStateException}.
     */
    void close(Runnable release) {
        Lock write = natives.writeLock();
        write.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            release.run();
        } finally {
            write.unlock();
        }
    }
}
