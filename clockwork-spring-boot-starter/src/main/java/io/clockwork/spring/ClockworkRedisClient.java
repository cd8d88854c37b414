package io.clockwork.spring;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce client the starter builds from {@code clockwork.redis.*}, with client resources of its own that it
 * shuts down with the client. Thread-safe.
 *
 * <p>The client is made to ride through a restart of Redis together with the queues' retries
 * ({@code clockwork.redis.retry-for}): it reconnects with waits that grow from {@link #RECONNECT_MIN_DELAY} to
 * {@code clockwork.redis.reconnect-max-delay}, so it is back within that delay of the server's return (Lettuce's
 * default waits grow to 30 s); it rejects commands while disconnected, so that an operation fails at once and is
 * retried by the queue, instead of waiting in Lettuce's buffer for its whole command timeout; and
 * {@code clockwork.redis.connect-timeout} bounds each connect as a whole (the URI's timeout bounds the handshake, the
 * socket's connect timeout the TCP connect, the TLS handshake timeout the TLS). Commands keep Lettuce's default
 * expiry: the queues bound their own waits by {@code clockwork.redis.command-timeout}.
 */
final class ClockworkRedisClient implements AutoCloseable {

    /** The first wait before a reconnect attempt. */
    static final Duration RECONNECT_MIN_DELAY = Duration.ofMillis(10);

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
        ClientResources resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(RECONNECT_MIN_DELAY, properties.getReconnectMaxDelay(), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        try {
            RedisClient client = RedisClient.create(resources, uri);
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                    .sslOptions(SslOptions.builder().handshakeTimeout(connectTimeout).build())
                    .timeoutOptions(TimeoutOptions.enabled(RedisURI.DEFAULT_TIMEOUT_DURATION))
                    .build());
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
