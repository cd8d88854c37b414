package io.clockwork.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The Lettuce connections of one queue: one shared, multiplexed connection for scripts, and dedicated connections
 * opened on demand for blocking {@code BLPOP}s (a blocking command would stall every command pipelined behind it on
 * a shared connection). Hides whether the server is standalone or a Cluster. Thread-safe.
 *
 * <p>A queue built from a URI owns its client and shuts it down on {@link #close()}; its client rejects commands
 * while disconnected (so callers fail fast, or retry, instead of queueing writes that might run much later),
 * reconnects within a second of the server coming back, and bounds every connect as a whole by the queue's connect
 * timeout. A queue built on a caller's client leaves that client's options and life to the caller. A failed first
 * connect is a {@link ConnectFailure} that says why in plain words ({@link FailureCause}).
 */
abstract class Connections implements AutoCloseable {

    /** The user information of a URI: after {@code ://}, up to the last {@code @} before the host. */
    private static final Pattern CREDENTIALS = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://)[^\\s'\"]*@");

    /** A dedicated connection and its commands. */
    record Blocker(StatefulConnection<byte[], byte[]> connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {
    }

    private final String where;

    private Connections(String where) {
        this.where = where;
    }

    /** @return the server, for error messages, e.g. {@code redis://127.0.0.1:6379} */
    final String where() {
        return where;
    }

    /** @return commands on the shared connection */
    abstract RedisClusterAsyncCommands<byte[], byte[]> commands();

    /** @return a new dedicated connection, closed by the caller */
    abstract Blocker openBlocker();

    /** @return whether the server is a Redis Cluster */
    abstract boolean cluster();

    /**
     * A master of the deployment, for checks of its configuration.
     *
     * @param where    its address, e.g. {@code 127.0.0.1:7001}
     * @param commands commands sent to it alone
     */
    record Master(String where, RedisClusterAsyncCommands<byte[], byte[]> commands) {
    }

    /** @return every master: the server itself, or each master of the Cluster as the client knows it now */
    abstract List<Master> masters();

    @Override
    public abstract void close();

    /**
     * Opens a client of its own on a URI. The connect timeout bounds each connect as a whole, the first one, those
     * of dedicated connections and every reconnect: TCP connect, TLS handshake, and the Redis handshake
     * ({@code HELLO}, {@code AUTH}, {@code SELECT}). Lettuce spreads that over three settings: the URI's timeout
     * (its handshake timer, which starts before the TCP connect and so bounds the whole), the socket's connect
     * timeout and the TLS handshake timeout; all three get it. Commands keep Lettuce's default expiry: a queue
     * bounds their waits itself (see {@link ScriptRunner}).
     *
     * @param uri            the server; this queue's own (its timeout is set here)
     * @param connectTimeout the longest a connect may take
     * @return connections owning their client
     * @throws ConnectFailure if the first connect fails, saying why in plain words
     */
    static Connections owned(RedisURI uri, Duration connectTimeout) {
        uri.setTimeout(connectTimeout);
        Progress progress = new Progress();
        ClientResources resources = RedisClients.resources(RedisClients.DEFAULT_RECONNECT_MAX_DELAY)
                .nettyCustomizer(progress)
                .build();
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(RedisClients.options(connectTimeout));
        try {
            return connectFirst(() -> new Standalone(client, describe(uri), true, resources));
        } catch (RuntimeException e) {
            client.shutdown();
            resources.shutdown();
            String hostPort = uri.getHost() != null ? uri.getHost() + ":" + uri.getPort() : uri.getSocket();
            throw new ConnectFailure(FailureCause.explainConnect(e,
                    new FailureCause.Attempt(hostPort, uri.isSsl(), connectTimeout, progress.reached())), e);
        }
    }

    /**
     * The first connect of a queue's connections. When the server ends the handshake at once (a wrong password, a TLS
     * port reading plain text), Lettuce may look for its handshake handler after the channel has dropped it and fail
     * with no reason at all; the connect is tried again then, up to {@link #FIRST_CONNECT_TRIES} times, so that the
     * error names the server's reason.
     */
    private static Connections connectFirst(Supplier<Connections> connect) {
        for (int attempt = 1; ; attempt++) {
            try {
                return connect.get();
            } catch (RuntimeException e) {
                if (attempt == FIRST_CONNECT_TRIES || !FailureCause.reasonLost(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * @param client a caller's client, left open on close; its options (timeouts included) rule
     * @return connections on it
     * @throws ConnectFailure if the connect fails, saying why in plain words
     */
    static Connections shared(RedisClient client) {
        try {
            return connectFirst(() -> new Standalone(client, "redis (shared RedisClient)", false, null));
        } catch (RuntimeException e) {
            throw new ConnectFailure(FailureCause.explainConnect(e, UNKNOWN), e);
        }
    }

    /**
     * @param client a caller's cluster client, left open on close; its options (timeouts included) rule
     * @return connections on it
     * @throws ConnectFailure if the connect fails, saying why in plain words
     */
    static Connections shared(RedisClusterClient client) {
        try {
            return connectFirst(() -> new Cluster(client, "redis cluster (shared RedisClusterClient)"));
        } catch (RuntimeException e) {
            throw new ConnectFailure(FailureCause.explainConnect(e, UNKNOWN), e);
        }
    }

    /**
     * Reads a Redis URI given by a user.
     *
     * @param redisUri e.g. {@code redis://127.0.0.1:6379} (Lettuce URI syntax)
     * @return the URI
     * @throws NullPointerException     if {@code redisUri} is null
     * @throws IllegalArgumentException if it is not a Redis URI; neither the URI nor Lettuce's message (which may
     *                                  quote it) is shown as given, since it may hold a password
     */
    static RedisURI parse(String redisUri) {
        Objects.requireNonNull(redisUri, "redisUri");
        try {
            return RedisURI.create(redisUri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("redisUri is not a Redis URI: '" + redact(redisUri) + "' ("
                    + redact(String.valueOf(e.getMessage())) + ")");
        }
    }

    /**
     * @param text a URI or a message that may quote one
     * @return the text with the user information of every {@code scheme://user:password@} replaced by {@code ***}
     */
    static String redact(String text) {
        return CREDENTIALS.matcher(text).replaceAll("$1***@");
    }

    /**
     * @param uri a URI
     * @return it without credentials, e.g. {@code redis://127.0.0.1:6379/2}
     */
    static String describe(RedisURI uri) {
        String scheme = uri.isSsl() ? "rediss" : "redis";
        String host = uri.getHost() != null ? uri.getHost() + ":" + uri.getPort() : String.valueOf(uri.getSocket());
        return scheme + "://" + host + (uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "");
    }

    /**
     * A failed first connect: the message says why in plain words ({@link FailureCause}), the cause is Lettuce's
     * error. Never leaves the package: {@link RedisQueueBuilder#build()} turns it into a
     * {@link RedisQueueException} with the same cause.
     */
    static final class ConnectFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ConnectFailure(String why, RuntimeException lettuceError) {
            super(why, lettuceError, false, false);
        }
    }

    /** How often a first connect whose failure Lettuce gave no reason for is tried. */
    static final int FIRST_CONNECT_TRIES = 3;

    private static final FailureCause.Attempt UNKNOWN = new FailureCause.Attempt(null, false, null,
            FailureCause.Reached.UNKNOWN);

    /**
     * Tracks how far the client's latest connect got (TCP connected, TLS handshake done), so that a connect timeout
     * can say what did not answer; the exception alone cannot tell a server that never completes the TLS handshake
     * from one that completes it and never answers {@code HELLO}. Lettuce calls it when it sets up each channel.
     */
    private static final class Progress implements NettyCustomizer {
        private volatile Attempt latest;

        /** One channel's connect: whether TCP connected, and its TLS handshake (null without TLS). */
        private static final class Attempt {
            final Future<Channel> tls;
            volatile boolean connected;

            Attempt(Future<Channel> tls) {
                this.tls = tls;
            }
        }

        @Override
        public void afterChannelInitialized(Channel channel) {
            SslHandler tls = channel.pipeline().get(SslHandler.class);
            Attempt attempt = new Attempt(tls == null ? null : tls.handshakeFuture());
            latest = attempt;
            channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    attempt.connected = true;
                    ctx.fireChannelActive();
                    ctx.pipeline().remove(this);
                }
            });
        }

        /** @return how far the latest connect got */
        FailureCause.Reached reached() {
            Attempt a = latest;
            if (a == null || !a.connected) {
                return FailureCause.Reached.NOTHING;
            }
            return a.tls == null || a.tls.isSuccess() ? FailureCause.Reached.HANDSHAKE : FailureCause.Reached.TCP;
        }
    }

    private static final class Standalone extends Connections {
        private final RedisClient client;
        private final boolean owned;
        private final ClientResources resources;
        private final StatefulRedisConnection<byte[], byte[]> shared;

        Standalone(RedisClient client, String where, boolean owned, ClientResources resources) {
            super(where);
            this.client = client;
            this.owned = owned;
            this.resources = resources;
            this.shared = client.connect(ByteArrayCodec.INSTANCE);
        }

        @Override
        RedisClusterAsyncCommands<byte[], byte[]> commands() {
            return shared.async();
        }

        @Override
        Blocker openBlocker() {
            StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
            return new Blocker(c, c.async());
        }

        @Override
        boolean cluster() {
            return false;
        }

        @Override
        List<Master> masters() {
            return List.of(new Master(where(), shared.async()));
        }

        @Override
        public void close() {
            shared.close();
            if (owned) {
                client.shutdown(0, 2, TimeUnit.SECONDS);
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    private static final class Cluster extends Connections {
        private final RedisClusterClient client;
        private final StatefulRedisClusterConnection<byte[], byte[]> shared;

        Cluster(RedisClusterClient client, String where) {
            super(where);
            this.client = client;
            this.shared = client.connect(ByteArrayCodec.INSTANCE);
        }

        @Override
        RedisClusterAsyncCommands<byte[], byte[]> commands() {
            return shared.async();
        }

        @Override
        Blocker openBlocker() {
            StatefulRedisClusterConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE);
            return new Blocker(c, c.async());
        }

        @Override
        boolean cluster() {
            return true;
        }

        @Override
        List<Master> masters() {
            List<Master> masters = new ArrayList<>();
            for (RedisClusterNode node : shared.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    masters.add(new Master(node.getUri().getHost() + ":" + node.getUri().getPort(),
                            shared.getConnection(node.getNodeId()).async()));
                }
            }
            return masters;
        }

        @Override
        public void close() {
            shared.close();
        }
    }
}
