package org.ingestquarantine.ingest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * One response of the HTTP client, handed over as it arrives: its head completes {@link #head()}, its body bytes go
 * to a {@link TimedBody}, read by the caller's thread. A failure fails both; the exchange's own callback is this too.
 */
final class StreamingResponse implements AsyncResponseConsumer<Void>, FutureCallback<Void> {

    private final CompletableFuture<HttpResponse> head = new CompletableFuture<>();
    private final TimedBody body;
    private volatile FutureCallback<Void> result;

    /** @param body where the body's bytes go */
    StreamingResponse(TimedBody body) {
        this.body = body;
    }

    /** @return the response head, once it arrived */
    CompletableFuture<HttpResponse> head() {
        return head;
    }

    @Override
    public void consumeResponse(HttpResponse response, EntityDetails entityDetails, HttpContext context,
                                FutureCallback<Void> resultCallback) {
        result = resultCallback;
        head.complete(response);
        if (entityDetails == null) {
            resultCallback.completed(null);
            body.end();
        }
    }

    @Override
    public void informationResponse(HttpResponse response, HttpContext context) {
        // 1xx: the final response follows
    }

    @Override
    public void updateCapacity(CapacityChannel capacityChannel) throws IOException {
        body.demand(capacityChannel);
    }

    @Override
    public void consume(ByteBuffer src) {
        body.offer(src);
    }

    @Override
    public void streamEnd(List<? extends Header> trailers) {
        FutureCallback<Void> r = result;
        if (r != null) {
            r.completed(null);
        }
        body.end();
    }

    @Override
    public void failed(Exception cause) {
        head.completeExceptionally(cause);
        body.fail(cause);
    }

    @Override
    public void completed(Void ignored) {
        // the body's end was handed over by streamEnd
    }

    @Override
    public void cancelled() {
        head.cancel(false);
        body.fail(new java.io.InterruptedIOException("the exchange was cancelled"));
    }

    @Override
    public void releaseResources() {
        // nothing held: the body's bytes are the reader's
    }
}
