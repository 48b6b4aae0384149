package org.ingestquarantine.web;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ScheduledFuture;

/**
 * The deadlines of one connection of the operator server, however slowly its bytes come: its request's header
 * must be complete within the header deadline of the connection's opening (or of its last answer, for the next
 * request on a kept-alive connection), and the body within the body deadline of the header's end. Past either,
 * the connection is answered 408 and closed. While a request is being answered no deadline runs.
 */
final class RequestDeadlines extends ChannelDuplexHandler {

    private enum Phase { HEADER, BODY, ANSWERING }

    private final Duration header;
    private final Duration body;
    private Phase phase = Phase.HEADER;
    /** Requests read whole and not yet answered (more than one when a client pipelines). */
    private int unanswered;
    private ScheduledFuture<?> timer;

    /**
     * @param header time for a request's header
     * @param body time for its body, from the header's end
     */
    RequestDeadlines(Duration header, Duration body) {
        this.header = header;
        this.body = body;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        arm(ctx, Phase.HEADER);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            arm(ctx, Phase.BODY);
        }
        if (msg instanceof LastHttpContent && phase == Phase.BODY) {
            cancel();
            phase = Phase.ANSWERING;
            unanswered++;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean finalAnswer = msg instanceof LastHttpContent
                && !(msg instanceof HttpResponse r && r.status().code() < 200); // not a 100 Continue
        if (finalAnswer && unanswered > 0) {
            promise.addListener(f -> {
                if (--unanswered == 0 && phase == Phase.ANSWERING && f.isSuccess() && ctx.channel().isActive()) {
                    arm(ctx, Phase.HEADER); // the next request on a kept-alive connection
                }
            });
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    private void arm(ChannelHandlerContext ctx, Phase next) {
        cancel();
        phase = next;
        Duration limit = next == Phase.HEADER ? header : body;
        timer = ctx.executor().schedule(() -> expire(ctx, next, limit), limit.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void expire(ChannelHandlerContext ctx, Phase expired, Duration limit) {
        if (phase != expired || !ctx.channel().isActive()) {
            return;
        }
        phase = Phase.ANSWERING;
        FullHttpResponse timeout = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT,
                Unpooled.copiedBuffer("the request's " + (expired == Phase.HEADER ? "header" : "body")
                        + " did not arrive within " + limit.toMillis() + " ms\n", StandardCharsets.UTF_8));
        timeout.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, timeout.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(timeout).addListener(ChannelFutureListener.CLOSE);
    }
}
