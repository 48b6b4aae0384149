package org.ingestquarantine.web;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Puts the same security headers on every final answer the operator server sends: the page's files, the API's
 * answers, its errors, 404s, and the server's own 408, 413 and 400s. The policy forbids inline script, framing,
 * other origins and caching ({@value #POLICY}).
 */
@ChannelHandler.Sharable
final class SecurityHeaders extends ChannelOutboundHandlerAdapter {

    /** The Content-Security-Policy of every answer: only this origin's own script, style and API. */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
            + " img-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse r && r.status().code() >= 200) {
            r.headers().set("Content-Security-Policy", POLICY)
                    .set("X-Content-Type-Options", "nosniff")
                    .set("Referrer-Policy", "no-referrer")
                    .set("Cache-Control", "no-store");
        }
        ctx.write(msg, promise);
    }
}
