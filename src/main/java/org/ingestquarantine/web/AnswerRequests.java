package org.ingestquarantine.web;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.function.Function;

/**
 * The last handler of the operator server's pipeline, on threads of its own (never the I/O thread, so an answer
 * waiting for the database holds up no other connection): hands each whole request to the page or the API and
 * writes the answer. A request the decoder could not read is answered here too: 431 for an oversized header,
 * 414 for an oversized request line, 400 otherwise. A connection that fails (reset, closed mid-request) is closed.
 */
@ChannelHandler.Sharable
final class AnswerRequests extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final Function<HttpAsk, HttpAnswer> handler;

    /** @param handler answers a whole request */
    AnswerRequests(Function<HttpAsk, HttpAnswer> handler) {
        this.handler = handler;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean readable = request.decoderResult().isSuccess();
        HttpAnswer answer = readable ? answer(request) : unreadable(request.decoderResult().cause());
        boolean head = "HEAD".equals(request.method().name());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(answer.status()),
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(answer.body()));
        answer.headers().forEach(response.headers()::set);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
        boolean keepAlive = readable && HttpUtil.isKeepAlive(request);
        HttpUtil.setKeepAlive(response, keepAlive);
        ChannelFuture written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** A connection's failure (reset by its client, closed mid-request) ends that connection only. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private HttpAnswer answer(FullHttpRequest request) {
        URI target;
        try {
            target = new URI(request.uri());
        } catch (URISyntaxException e) {
            return HttpAnswer.text(400, "the request target is not a valid URI");
        }
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        return handler.apply(new HttpAsk(request.method().name(), path, target.getRawQuery(),
                request.headers()::get, ByteBufUtil.getBytes(request.content())));
    }

    private static HttpAnswer unreadable(Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            return HttpAnswer.text(431, "the request's header is too large");
        }
        if (cause instanceof TooLongHttpLineException) {
            return HttpAnswer.text(414, "the request line is too long");
        }
        if (cause instanceof TooLongFrameException) {
            return HttpAnswer.text(400, "a part of the request is too large");
        }
        return HttpAnswer.text(400, "the request is not valid HTTP/1.1");
    }
}
