package org.ingestquarantine.app;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** A slow start-up step (parser workers, the tokenizer) run beside the others, on a thread of its own. */
final class BackgroundStart {

    private BackgroundStart() {
    }

    /**
     * Starts a slow start-up step on a thread of its own (the common pool has one thread on two cores), recording
     * its interval on the timeline under {@code step}.
     */
    static <T> CompletableFuture<T> inBackground(String step, StartupTimeline timeline, Callable<T> task) {
        return CompletableFuture.supplyAsync(() -> {
            long began = System.currentTimeMillis();
            try {
                return task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CompletionException(e);
            } finally {
                timeline.record(step, began, System.currentTimeMillis());
            }
        }, runnable -> {
            Thread t = new Thread(runnable, step + "-start");
            t.setDaemon(true);
            t.start();
        });
    }

    /** @return what the background step started; its failure as the step threw it */
    static <T> T join(CompletableFuture<T> start) throws Exception {
        try {
            return start.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** @return a closer of what {@code start} starts, once it has: for a stop that comes first */
    static <T extends AutoCloseable> AutoCloseable closer(CompletableFuture<T> start) {
        return () -> start.thenAccept(BackgroundStart::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // stopping anyway
        }
    }
}
