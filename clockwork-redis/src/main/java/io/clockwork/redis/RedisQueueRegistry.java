package io.clockwork.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ValueScanCursor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The names of the queues a Redis server holds, read from the registry every client writes when it builds a queue
 * ({@code cw:queues}, see {@link KeyLayout}), so that operators' tools find every queue without being told their
 * names. Thread-safe.
 *
 * <p>A queue appears once some client has built it (since the registry exists) and leaves with
 * {@link RedisDelayedQueue#delete()}, or with {@link #forget} (a queue whose keys were removed by other means).
 */
public final class RedisQueueRegistry implements AutoCloseable {

    private static final int SCAN_COUNT = 500;

    private final Connections connections;
    private final ScriptRunner runner;
    private final RedisURI uri;

    private RedisQueueRegistry(Connections connections, RedisURI uri) {
        this.connections = connections;
        this.uri = uri;
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
            return new RedisQueueRegistry(Connections.owned(uri, RedisQueueBuilder.DEFAULT_CONNECT_TIMEOUT), uri);
        } catch (Connections.ConnectFailure e) {
            throw new RedisQueueException("cannot list queues on " + Connections.describe(uri) + ": "
                    + e.getMessage(), e.getCause());
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
     * @throws RedisQueueException if Redis fails
     */
    public boolean forget(String name) {
        Objects.requireNonNull(name, "name");
        try {
            return runner.<Long>await(connections.commands().srem(KeyLayout.REGISTRY_KEY,
                    name.getBytes(StandardCharsets.UTF_8))) > 0;
        } catch (RuntimeException e) {
            throw new RedisQueueException("cannot update the queue registry on " + connections.where() + ": "
                    + e.getMessage(), e);
        }
    }

    /** @return the server, without credentials, e.g. {@code redis://127.0.0.1:6379} */
    public String where() {
        return Connections.describe(uri);
    }

    @Override
    public void close() {
        connections.close();
    }
}
