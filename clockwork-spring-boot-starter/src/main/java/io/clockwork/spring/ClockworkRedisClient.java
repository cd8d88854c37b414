package io.clockwork.spring;

import io.clockwork.redis.RedisClients;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.Objects;

/**
 * The Lettuce client the starter builds from {@code clockwork.redis.*}, with client resources of its own that it
 * shuts down with the client. Thread-safe.
 *
 * <p>It has the settings of the clients the queues build from a URI ({@link RedisClients}), so it rides through a
 * restart of Redis together with the queues' retries ({@code clockwork.redis.retry-for}): it reconnects within
 * {@code clockwork.redis.reconnect-max-delay} of the server's return and rejects commands while disconnected, and
 * {@code clockwork.redis.connect-timeout} bounds each connect as a whole. The queues bound their commands' waits by
 * {@code clockwork.redis.command-timeout}.
 */
final class ClockworkRedisClient implements AutoCloseable {

    private final ClientResources resources;
    private final RedisClient client;

    private ClockworkRedisClient(ClientResources resources, RedisClient client) {
        this.resources = resources;
        this.client = client;
    }

    /**
     * Builds the client; it connects on first use.
     *
     * @param properties {@code clockwork.redis.*}, with the uri set
     * @return the client and its resources
     */
    static ClockworkRedisClient create(ClockworkProperties.Redis properties) {
        Objects.requireNonNull(properties, "properties");
        Duration connectTimeout = properties.getConnectTimeout();
        RedisURI uri = RedisURI.create(Objects.requireNonNull(properties.getUri(), "clockwork.redis.uri"));
        uri.setTimeout(connectTimeout);
        ClientResources resources = RedisClients.resources(properties.getReconnectMaxDelay()).build();
        try {
            RedisClient client = RedisClient.create(resources, uri);
            client.setOptions(RedisClients.options(connectTimeout));
            return new ClockworkRedisClient(resources, client);
        } catch (RuntimeException e) {
            resources.shutdown();
            throw e;
        }
    }

    /** @return the client */
    RedisClient client() {
        return client;
    }

    /** Shuts the client down, then its resources. */
    @Override
    public void close() {
        try {
            client.shutdown();
        } finally {
            resources.shutdown();
        }
    }
}
