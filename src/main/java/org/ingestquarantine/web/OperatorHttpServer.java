package org.ingestquarantine.web;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The HTTP/1.1 server of the operator page and API (Netty): connections are read without blocking by one I/O
 * thread, so a client that sends its request a byte at a time holds no thread; whole requests only are handed to
 * {@link ApiLimits#handlerThreads()} threads that answer them. Each connection's pipeline: a cap on open
 * connections ({@link ConnectionCap}), the HTTP codec (request line and header
 * each up to {@link ApiLimits#maxHeaderBytes()}), the security headers of
 * every answer ({@link SecurityHeaders}), the header and body deadlines ({@link RequestDeadlines}), the body
 * gathered up to {@link ApiLimits#maxRequestBytes()} (413 beyond), then {@link AnswerRequests}.
 */
final class OperatorHttpServer implements AutoCloseable {

    /** The accepting and I/O threads, then the answering ones: stopped in this order. */
    private final EventExecutorGroup[] threads;
    private final Channel channel;
    private final ChannelGroup connections;

    private OperatorHttpServer(EventExecutorGroup[] threads, Channel channel, ChannelGroup connections) {
        this.threads = threads;
        this.channel = channel;
        this.connections = connections;
    }

    /**
     * @param address where to listen
     * @param limits deadlines, connection cap, body bound, answering threads
     * @param handler answers a whole request
     * @return the listening server
     * @throws IOException if the address cannot be bound
     */
    static OperatorHttpServer start(InetSocketAddress address, ApiLimits limits, Function<HttpAsk, HttpAnswer> handler)
            throws IOException {
        EventLoopGroup acceptor = new NioEventLoopGroup(1, new DefaultThreadFactory("operator-http-accept", true));
        EventLoopGroup io = new NioEventLoopGroup(1, new DefaultThreadFactory("operator-http-io", true));
        EventExecutorGroup answerers = new DefaultEventExecutorGroup(limits.handlerThreads(),
                new DefaultThreadFactory("operator-api", true));
        ConnectionCap cap = new ConnectionCap(limits.maxConnections());
        SecurityHeaders headers = new SecurityHeaders();
        AnswerRequests answer = new AnswerRequests(handler);
        ChannelGroup connections = new DefaultChannelGroup("operator-http", GlobalEventExecutor.INSTANCE);
        ServerBootstrap bootstrap = new ServerBootstrap().group(acceptor, io).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast("cap", cap)
                                .addLast("codec", new HttpServerCodec(limits.maxHeaderBytes(),
                                        limits.maxHeaderBytes(), limits.maxHeaderBytes()))
                                .addLast("security-headers", headers)
                                .addLast("deadlines", new RequestDeadlines(limits.headerDeadline(),
                                        limits.bodyDeadline()))
                                .addLast("body", new HttpObjectAggregator(limits.maxRequestBytes()))
                                .addLast(answerers, "answer", answer);
                    }
                });
        ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            shutDown(acceptor, io, answerers);
            Throwable cause = bound.cause();
            throw cause instanceof IOException e ? e : new IOException(cause.getMessage(), cause);
        }
        return new OperatorHttpServer(new EventExecutorGroup[] {acceptor, io, answerers}, bound.channel(), connections);
    }

    /** @return the bound port */
    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Stops listening, closes every connection (an answer in flight is cut) and stops its threads. */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        shutDown(threads[0], threads[1]);
        shutDown(threads[2]); // last: the I/O thread hands it the connections' last events
    }

    private static void shutDown(EventExecutorGroup... groups) {
        for (EventExecutorGroup g : groups) {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        for (EventExecutorGroup g : groups) {
            g.terminationFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
