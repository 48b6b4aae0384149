package org.ingestquarantine.ingest;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The MiniLM ONNX session, loaded once in a thread of its own from {@link #startLoading()} on: one intra-op
 * thread that does not spin. {@link #get()} starts the load if nobody did and waits for it. Thread-safe.
 */
final class MiniLmSession {

    /** How long {@link #awaitLoad()} waits for a model load in progress, seconds. */
    private static final long LOAD_WAIT_SECONDS = 60;

    private final MiniLmModel model;
    private final CompletableFuture<OrtSession> session = new CompletableFuture<>();
    private final AtomicBoolean loading = new AtomicBoolean();

    /** @param model where the model is read from when it loads */
    MiniLmSession(MiniLmModel model) {
        this.model = model;
    }

    /** Starts loading the model in a thread of its own, unless it is loading already. */
    void startLoading() {
        if (loading.compareAndSet(false, true)) {
            // a thread of its own: the common pool has one thread on two cores
            daemon(() -> {
                try {
                    session.complete(loadSession());
                } catch (RuntimeException | Error e) {
                    session.completeExceptionally(e);
                }
            });
        }
    }

    /** @return completes when the model has loaded (or failed to) */
    CompletableFuture<Void> loaded() {
        return session.handle((s, e) -> null);
    }

    /**
     * @return the session, once loaded; starts the load if nobody did
     * @throws IllegalStateException if the load failed or the wait was interrupted
     */
    OrtSession get() {
        startLoading();
        try {
            return session.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the embedding model loaded", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the embedding model could not be loaded", e.getCause());
        }
    }

    /**
     * Waits (at most {@value #LOAD_WAIT_SECONDS} s) for a load in progress: a process that exits while ONNX
     * Runtime is still creating the session crashes in it (SIGSEGV in {@code createSession}, seen when an
     * {@code ingest} of an empty folder ended before the model had loaded).
     */
    void awaitLoad() {
        if (!loading.get()) {
            return;
        }
        try {
            session.get(LOAD_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // failed, or still loading: closing anyway
        }
    }

    /** Releases the session once it has loaded (now, or when a load still running ends). */
    void close() {
        session.thenAccept(s -> {
            try {
                s.close();
            } catch (OrtException ignored) {
                // the process is ending this session anyway
            }
        });
    }

    private OrtSession loadSession() {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            options.addConfigEntry("session.inter_op.allow_spinning", "0");
            return model.open(OrtEnvironment.getEnvironment(), options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MiniLM model (" + model + ")", e);
        } catch (OrtException e) {
            throw new IllegalStateException("cannot load the MiniLM model (" + model + "): " + e.getMessage(), e);
        }
    }

    private static void daemon(Runnable task) {
        Thread t = new Thread(task, "minilm-load");
        t.setDaemon(true);
        t.start();
    }
}
