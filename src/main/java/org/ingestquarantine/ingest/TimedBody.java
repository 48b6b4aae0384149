package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.hc.core5.http.nio.CapacityChannel;

/**
 * An HTTP response body read with time bounds: a read waits at most the idle timeout for the next bytes and
 * never past the deadline, and an interrupt ends the wait at once. Fed by {@link StreamingResponse} on the HTTP
 * client's I/O thread; the server may send only {@code window} bytes ahead of the reader (the client stops reading
 * the socket until this body is drained), so an unread body is not buffered in memory. Closing cancels the exchange,
 * which closes the connection unless the body had ended. {@link #cancel()} (from another thread) ends a waiting read
 * at once.
 */
final class TimedBody extends InputStream {

    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Duration idle;
    private final long deadlineNanos;
    private final String host;
    private final int window;
    private volatile Future<?> exchange;
    private volatile FetchCancellation.Registration registration;
    /** The client's capacity channel while it waits for this body to be drained; guarded by {@code this}. */
    private CapacityChannel waiting;
    private ByteBuffer current;
    private boolean ended;

    /**
     * @param idle most time to wait for the next bytes
     * @param deadlineNanos {@link System#nanoTime()} after which no read waits
     * @param host for messages
     * @param window bytes the server may send ahead of the reader
     */
    TimedBody(Duration idle, long deadlineNanos, String host, int window) {
        this.idle = idle;
        this.deadlineNanos = deadlineNanos;
        this.host = host;
        this.window = window;
    }

    /** @param data the next bytes (I/O thread; copied, the buffer is the client's) */
    void offer(ByteBuffer data) {
        ByteBuffer copy = ByteBuffer.allocate(data.remaining());
        copy.put(data).flip();
        queue.add(copy);
    }

    /** The body ended (I/O thread). */
    void end() {
        queue.add(END);
    }

    /** @param failure why the body ends early (I/O thread) */
    void fail(Throwable failure) {
        queue.add(failure);
    }

    /**
     * The client read {@code window} bytes more than it was granted (I/O thread): grant more at once when the reader
     * has drained everything, else when it has.
     */
    void demand(CapacityChannel channel) throws IOException {
        synchronized (this) {
            if (!queue.isEmpty()) {
                waiting = channel;
                return;
            }
        }
        channel.update(window);
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
            if (ended) {
                return -1;
            }
            next();
        }
        int n = Math.min(len, current.remaining());
        current.get(b, off, n);
        return n;
    }

    /** Waits for the next bytes, the end, or a failure. */
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
            current = (ByteBuffer) item;
            grantIfDrained();
        }
    }

    private void grantIfDrained() throws IOException {
        CapacityChannel grant = null;
        synchronized (this) {
            if (queue.isEmpty() && waiting != null) {
                grant = waiting;
                waiting = null;
            }
        }
        if (grant != null) {
            grant.update(window);
        }
    }

    /** @param exchange the request's exchange, cancelled when this body is closed or cancelled */
    void exchange(Future<?> exchange) {
        this.exchange = exchange;
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
        cancelExchange();
    }

    @Override
    public void close() {
        FetchCancellation.Registration r = registration;
        registration = null;
        if (r != null) {
            r.close();
        }
        cancelExchange();
    }

    /** Ends the exchange: a no-op once its body ended, else its connection is closed. */
    private void cancelExchange() {
        Future<?> e = exchange;
        if (e != null) {
            e.cancel(true);
        }
    }
}
