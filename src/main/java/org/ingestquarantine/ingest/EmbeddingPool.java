package org.ingestquarantine.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * A fixed set of embedding threads fed from one queue by every caller: each thread takes the inputs waiting
 * (up to a batch, from any number of documents) and runs them through the model in one call. So the model
 * sees full batches whenever several documents are in flight, and never more threads than configured.
 * Thread-safe.
 */
final class EmbeddingPool implements AutoCloseable {

    private record Request(long[] ids, CompletableFuture<float[]> vector) {
    }

    private final BlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final int batchSize;
    private final Function<List<long[]>, float[][]> model;
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param threads embedding threads, ≥ 1
     * @param batchSize most inputs per model call, ≥ 1
     * @param model embeds a batch of token-id inputs, one vector per input in order
     */
    EmbeddingPool(int threads, int batchSize, Function<List<long[]>, float[][]> model) {
        if (threads < 1 || batchSize < 1) {
            throw new IllegalArgumentException("embed.threads and embed.batch-chunks must be >= 1, were "
                    + threads + " and " + batchSize);
        }
        this.batchSize = batchSize;
        this.model = model;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(this::work, "embed-" + i);
            t.setDaemon(true);
            t.start();
            this.threads.add(t);
        }
    }

    /**
     * @param inputs token ids, with the model's markers
     * @return one vector per input, in order; waits until all are done
     * @throws IllegalStateException if the model failed on a batch holding one of them
     */
    List<float[]> embed(List<long[]> inputs) {
        List<CompletableFuture<float[]>> futures = new ArrayList<>(inputs.size());
        for (long[] ids : inputs) {
            Request r = new Request(ids, new CompletableFuture<>());
            futures.add(r.vector());
            queue.add(r);
        }
        List<float[]> out = new ArrayList<>(inputs.size());
        for (CompletableFuture<float[]> f : futures) {
            try {
                out.add(f.join());
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
            }
        }
        return out;
    }

    private void work() {
        List<Request> batch = new ArrayList<>(batchSize);
        while (!Thread.currentThread().isInterrupted()) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch, batchSize - 1);
            try {
                float[][] vectors = model.apply(batch.stream().map(Request::ids).toList());
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).vector().complete(vectors[i]);
                }
            } catch (RuntimeException | Error e) {
                batch.forEach(r -> r.vector().completeExceptionally(e));
            }
            batch.clear();
        }
    }

    /** Stops the threads; inputs still queued are failed. */
    @Override
    public void close() {
        threads.forEach(Thread::interrupt);
        List<Request> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(r -> r.vector().completeExceptionally(new IllegalStateException("the embedder was closed")));
    }
}
