package org.ingestquarantine.ingest;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.ingestquarantine.failure.ShutdownException;

/**
 * The source requests one application has in flight, so that stopping it ends them at once instead of
 * waiting out a stalled or slow body ({@code http.idle-timeout-ms}, {@code http.body-deadline-ms}). After
 * {@link #cancelAll()} every request in flight ends, and every later one fails before it is sent, with a
 * {@link ShutdownException}. Thread-safe.
 */
public final class FetchCancellation {

    private final Set<Runnable> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelled;

    /** A request's registration; closing it (when the request's body is closed) forgets the request. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * @param cancel ends the request: its thread, waiting for headers or body bytes, then fails at once
     * @return the registration, to close when the request is over
     * @throws ShutdownException when {@link #cancelAll()} was called already
     */
    public Registration register(Runnable cancel) {
        inFlight.add(cancel);
        if (cancelled) {
            inFlight.remove(cancel);
            throw new ShutdownException("the source request was not sent: this process is stopping", null);
        }
        return () -> inFlight.remove(cancel);
    }

    /** Ends every request in flight and refuses every later one. Idempotent. */
    public void cancelAll() {
        cancelled = true;
        for (Runnable cancel : inFlight) {
            inFlight.remove(cancel);
            cancel.run();
        }
    }

    /** Lets requests be sent again after {@link #cancelAll()} (the consumer route is started again). */
    public void resume() {
        cancelled = false;
    }

    /** @return whether {@link #cancelAll()} was called and no {@link #resume()} since */
    public boolean isCancelled() {
        return cancelled;
    }

    /** @return requests in flight now */
    public int inFlight() {
        return inFlight.size();
    }
}
