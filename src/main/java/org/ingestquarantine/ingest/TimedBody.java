package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP response body read with time bounds: a read waits at most the idle timeout for the next bytes and
 * never past the deadline, and an interrupt ends the wait at once. Subscribe it to the response body
 * ({@code BodyHandlers.ofPublisher()}) once the headers are in; it requests one buffer list at a time, so an
 * unread body is not buffered in memory. Closing cancels the subscription, which closes the connection.
 * {@link #cancel()} (from another thread) ends a waiting read at once.
 */
final class TimedBody extends InputStream implements Flow.Subscriber<List<ByteBuffer>> {

    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Duration idle;
    private final long deadlineNanos;
    private final String host;
    private volatile Flow.Subscription subscription;
    private volatile FetchCancellation.Registration registration;
    private Iterator<ByteBuffer> pending;
    private ByteBuffer current;
    private boolean ended;

    /**
     * @param idle most time to wait for the next bytes
     * @param deadlineNanos {@link System#nanoTime()} after which no read waits
     * @param host for messages
     */
    TimedBody(Duration idle, long deadlineNanos, String host) {
        this.idle = idle;
        this.deadlineNanos = deadlineNanos;
        this.host = host;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        queue.add(item);
    }

    @Override
    public void onError(Throwable t) {
        queue.add(t);
    }

    @Override
    public void onComplete() {
        queue.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (current == null || !current.hasRemaining()) {
            if (pending != null && pending.hasNext()) {
                current = pending.next();
                continue;
            }
            if (ended) {
                return -1;
            }
            next();
        }
        int n = Math.min(len, current.remaining());
        current.get(b, off, n);
        return n;
    }

    /** Waits for the next buffer list, the end, or a failure. */
    @SuppressWarnings("unchecked")
    private void next() throws IOException {
        long now = System.nanoTime();
        long wait = Math.min(idle.toNanos(), deadlineNanos - now);
        Object item;
        try {
            item = wait <= 0 ? queue.poll() : queue.poll(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading the body from " + host);
        }
        if (item == null) {
            close();
            boolean pastDeadline = System.nanoTime() - deadlineNanos >= 0;
            throw new HttpTimeoutException(pastDeadline
                    ? "the body from " + host + " did not end within http.body-deadline-ms"
                    : "no byte from " + host + " for " + idle.toMillis() + " ms (http.idle-timeout-ms)");
        }
        if (item == END) {
            ended = true;
        } else if (item instanceof Throwable t) {
            ended = true;
            throw t instanceof IOException io ? io : new IOException(t);
        } else {
            pending = ((List<ByteBuffer>) item).iterator();
            Flow.Subscription s = subscription;
            if (s != null) {
                s.request(1);
            }
        }
    }

    /** @param registration closed with this body, so the request is no longer cancelled when it is over */
    void track(FetchCancellation.Registration registration) {
        this.registration = registration;
    }

    /**
     * Ends the body from another thread: a read waiting for bytes, and every later read, throws an
     * {@link java.io.InterruptedIOException}, and the connection is closed.
     */
    void cancel() {
        queue.add(new java.io.InterruptedIOException("the body from " + host + " was cancelled: this process is stopping"));
        Flow.Subscription s = subscription;
        subscription = null;
        if (s != null) {
            s.cancel();
        }
    }

    @Override
    public void close() {
        FetchCancellation.Registration r = registration;
        registration = null;
        if (r != null) {
            r.close();
        }
        Flow.Subscription s = subscription;
        subscription = null;
        if (s != null) {
            s.cancel();
        }
    }
}
