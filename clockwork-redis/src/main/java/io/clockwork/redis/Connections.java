package io.clockwork.redis;

import io.lettuce.core.ClientOptions;
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
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce connections of one queue: one shared, multiplexed connection for scripts, and dedicated connections
 * opened on demand for blocking {@code BLPOP}s (a blocking command would stall every command pipelined behind it on
 * a shared connection). Hides whether the server is standalone or a Cluster. Thread-safe.
 *
 * <p>A queue built from a URI owns its client and shuts it down on {@link #close()}; its client rejects commands
 * while disconnected (so callers fail fast, or retry, instead of queueing writes that might run much later) and
 * reconnects within a second of the server coming back. A queue built on a caller's client leaves that client's
 * options and life to the caller.
 */
abstract class Connections implements AutoCloseable {

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
     * Opens a client of its own on a URI.
     *
     * @param uri the server
     * @return connections owning their client
     */
    static Connections owned(RedisURI uri) {
        ClientResources resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        try {
            return new Standalone(client, describe(uri), true, resources);
        } catch (RuntimeException e) {
            client.shutdown();
            resources.shutdown();
            throw e;
        }
    }

    /**
     * @param client a caller's client, left open on close
     * @return connections on it
     */
    static Connections shared(RedisClient client) {
        return new Standalone(client, "redis (shared RedisClient)", false, null);
    }

    /**
     * @param client a caller's cluster client, left open on close
     * @return connections on it
     */
    static Connections shared(RedisClusterClient client) {
        return new Cluster(client, "redis cluster (shared RedisClusterClient)");
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
