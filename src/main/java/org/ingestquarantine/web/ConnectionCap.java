package org.ingestquarantine.web;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the operator server's open connections: one over the bound is closed as soon as it is accepted, before
 * anything is read from it. Together with the header deadline ({@link RequestDeadlines}) a flood of idle
 * connections holds a slot each for that long at most.
 */
@ChannelHandler.Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {

    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    /** @param max connections open at once */
    ConnectionCap(int max) {
        this.max = max;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > max) {
            ctx.close();
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        ctx.fireChannelInactive();
    }
}
