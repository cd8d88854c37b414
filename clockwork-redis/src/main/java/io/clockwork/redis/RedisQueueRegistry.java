package io.clockwork.redis;

import io.clockwork.queue.QueueOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The names of the queues a Redis server or Redis Cluster holds, read from the registry every client writes when it
 * builds a queue ({@code cw:queues}, see {@link KeyLayout}), so that operators' tools find every queue without being
 * told their names. Thread-safe.
 *
 * <p>A queue appears once some client has built it (since the registry exists) and leaves with
 * {@link RedisDelayedQueue#delete()}, or with {@link #forget} (a queue whose keys were removed by other means).
 * On a Cluster the registry is one key, so every read and write of it goes to the master that owns its slot.
 */
public final class RedisQueueRegistry implements AutoCloseable {

    private static final int SCAN_COUNT = 500;

    private final Connections connections;
    private final ScriptRunner runner;
    private final String where;

    private RedisQueueRegistry(Connections connections, String where) {
        this.connections = connections;
        this.where = where;
        this.runner = new ScriptRunner(connections, "(registry)", RedisQueueBuilder.DEFAULT_COMMAND_TIMEOUT,
                Duration.ZERO, io.clockwork.time.Ticker.system());
    }

    /**
     * Connects to a server with a client of its own, closed with the registry.
     *
     * @param redisUri the server (Lettuce URI syntax, as {@link RedisDelayedQueue#builder(String, String,
     *                 io.clockwork.queue.Codec)})
     * @return the registry
     * @throws IllegalArgumentException if the URI is malformed
     * @throws RedisQueueException      if the server cannot be reached
     */
    public static RedisQueueRegistry connect(String redisUri) {
        RedisURI uri = Connections.parse(redisUri);
        try {
            return new RedisQueueRegistry(Connections.owned(uri, RedisQueueBuilder.DEFAULT_CONNECT_TIMEOUT),
                    Connections.describe(uri));
        } catch (Connections.ConnectFailure e) {
            throw new RedisQueueException("cannot list queues on " + Connections.describe(uri) + ": "
                    + e.getMessage(), e.getCause());
        }
    }

    /**
     * Reads the registry of a Redis Cluster through a caller's client, which the registry leaves open on close (its
     * options, timeouts included, rule).
     *
     * @param client the cluster's client, as given to {@link RedisDelayedQueue#builder(RedisClusterClient, String,
     *               io.clockwork.queue.Codec)}
     * @return the registry
     * @throws RedisQueueException if the cluster cannot be reached
     */
    public static RedisQueueRegistry of(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        try {
            Connections c = Connections.shared(client);
            return new RedisQueueRegistry(c, c.where());
        } catch (Connections.ConnectFailure e) {
            throw new RedisQueueException("cannot list queues on the redis cluster: " + e.getMessage(), e.getCause());
        }
    }

    /**
     * Reads every registered name, with {@code SSCAN} (the registry is read in steps, never in one blocking call).
     *
     * @return the names, sorted
     * @throws RedisQueueException if Redis fails
     */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        try {
            ScanArgs args = ScanArgs.Builder.limit(SCAN_COUNT);
            ValueScanCursor<byte[]> c = runner.await(connections.commands().sscan(KeyLayout.REGISTRY_KEY, args));
            while (true) {
                for (byte[] n : c.getValues()) {
                    names.add(new String(n, StandardCharsets.UTF_8));
                }
                if (c.isFinished()) {
                    break;
                }
                c = runner.await(connections.commands().sscan(KeyLayout.REGISTRY_KEY, c, args));
            }
        } catch (RuntimeException e) {
            throw new RedisQueueException("cannot list queues on " + connections.where() + ": " + e.getMessage(), e);
        }
        names.sort(null);
        return names;
    }

    /**
     * Removes a name from the registry (the queue's keys are left as they are).
     *
     * @param name the queue's name
     * @return whether it was listed
     * @throws IllegalArgumentException naming {@code name} if no queue can have it (see
     *                                  {@link QueueOptions.Builder#name(String)})
     * @throws RedisQueueException if Redis fails
     */
    public boolean forget(String name) {
        QueueOptions.Builder.checkName(name);
        try {
            return runner.<Long>await(connections.commands().srem(KeyLayout.REGISTRY_KEY,
                    name.getBytes(StandardCharsets.UTF_8))) > 0;
        } catch (RuntimeException e) {
            throw new RedisQueueException("cannot update the queue registry on " + connections.where() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * @return the server, without credentials, e.g. {@code redis://127.0.0.1:6379}, or
     *         {@code redis cluster (shared RedisClusterClient)}
     */
    public String where() {
        return where;
    }

    /** Closes the registry's connection, and its client unless it is a caller's. */
    @Override
    public void close() {
        connections.close();
    }
}
