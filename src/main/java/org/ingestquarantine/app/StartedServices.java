package org.ingestquarantine.app;

import java.util.Deque;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Closes what {@link AppConfiguration#configure} started, newest first, when the context stops (after its routes:
 * the consumers have finished or handed back their documents), so the broker (the embedded SQS store) closes
 * before the database and the embedded PostgreSQL last. One that fails to close does not keep the others
 * open; the first failure is thrown after all were tried.
 */
final class StartedServices extends ServiceSupport {

    private final Deque<AutoCloseable> started;

    StartedServices(Deque<AutoCloseable> started) {
        this.started = started;
    }

    @Override
    protected void doStop() throws Exception {
        stopAll();
    }

    /** Closes all that is left to close; once closed, each is forgotten, so a second call does nothing. */
    synchronized void stopAll() throws Exception {
        Exception first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
