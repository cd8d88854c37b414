package io.clockwork.redis;

import io.clockwork.queue.QueueOptions;
import io.clockwork.time.Ticker;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The connections of the Redisson face to one Redis server, and the {@link FaceStore} of each of its queues.
 * Thread-safe. It is the Redis side of the {@code clockwork-redisson} module's {@code RedisRedisson}, which
 * applications use; it checks on connect, as {@code RedisDelayedQueue}'s builder does, that the server does not
 * evict keys.
 */
public final class FaceConnections implements AutoCloseable {

    /** How long one command may wait for its reply. */
    public static final Duration COMMAND_TIMEOUT = RedisQueueBuilder.DEFAULT_COMMAND_TIMEOUT;

    private final Connections connections;
    private final String where;
    private final Ticker ticker = Ticker.system();
    private final ConcurrentMap<String, FaceStore> stores = new ConcurrentHashMap<>();

    private FaceConnections(Connections connections, String where) {
        this.connections = connections;
        this.where = where;
    }

    /**
     * Connects to a Redis server and checks that it does not evict keys.
     *
     * @param redisUri the server, e.g. {@code redis://127.0.0.1:6379} (Lettuce URI syntax)
     * @return the connections; {@link #close()} closes them
     * @throws IllegalArgumentException if {@code redisUri} is not a Redis URI
     * @throws RedisQueueException      if the server cannot be reached, or may evict keys
     */
    public static FaceConnections connect(String redisUri) {
        RedisURI uri = Connections.parse(redisUri);
        String where = Connections.describe(uri);
        Connections c;
        try {
            c = Connections.owned(uri, RedisQueueBuilder.DEFAULT_CONNECT_TIMEOUT);
        } catch (RuntimeException e) {
            Throwable cause = e instanceof Connections.ConnectFailure ? e.getCause() : e;
            throw new RedisQueueException("Redisson face on " + where + ": cannot connect: " + e.getMessage(), cause);
        }
        try {
            ScriptRunner probe = new ScriptRunner(c, "(Redisson face)", COMMAND_TIMEOUT, Duration.ZERO,
                    Ticker.system());
            EvictionCheck.requireNoEviction(c, probe, "(Redisson face)");
            return new FaceConnections(c, where);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** @return the server, as error messages name it */
    public String where() {
        return where;
    }

    /**
     * @param name a queue's name, well-formed Unicode
     * @return its keys and script calls, opened (and its partition count stored) on first use
     * @throws IllegalArgumentException if the name is blank or not well-formed Unicode
     */
    public FaceStore store(String name) {
        QueueOptions.Builder.checkName(name);
        return stores.computeIfAbsent(name, n -> {
            ScriptRunner runner = new ScriptRunner(connections, n, COMMAND_TIMEOUT, Duration.ZERO, ticker);
            StoredPartitions.resolve(runner, connections, n, 1, false);
            Signals signals = new Signals(n, connections, runner, new KeyLayout(n, 1, false).signalKey(), ticker);
            return new FaceStore(n, runner, signals);
        });
    }

    /** Closes every store's signal subscription, then the connections. */
    @Override
    public void close() {
        stores.values().forEach(FaceStore::close);
        connections.close();
    }
}
