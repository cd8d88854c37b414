package io.clockwork.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce settings of the clients Clockwork builds from a URI, for an application that builds its own client
 * the same way (the Spring Boot starter does). Stateless and thread-safe.
 *
 * <p>A client with these settings rides through a restart of Redis together with a queue's retries
 * ({@link RedisQueueBuilder#retryOnConnectionLoss}): it reconnects with waits that grow from
 * {@link #RECONNECT_MIN_DELAY} to a bound (Lettuce's default waits grow to 30 s), so it is back within that bound of
 * the server's return; and it rejects commands while disconnected, so an operation fails at once and the queue
 * retries it, instead of waiting in Lettuce's buffer for its whole command timeout. The connect timeout bounds each
 * connect as a whole: the socket's connect timeout the TCP connect, the TLS handshake timeout the TLS, and the URI's
 * timeout, which the caller sets, the Redis handshake. Commands keep Lettuce's default expiry: a queue bounds its
 * waits itself.
 */
public final class RedisClients {

    /** The first wait before a reconnect attempt. */
    public static final Duration RECONNECT_MIN_DELAY = Duration.ofMillis(10);

    /** The longest wait between reconnect attempts of the clients the queues build from a URI. */
    public static final Duration DEFAULT_RECONNECT_MAX_DELAY = Duration.ofSeconds(1);

    private RedisClients() {
    }

    /**
     * @param connectTimeout the longest a connect may take
     * @return client options: reconnect, reject commands while disconnected, connects bounded by the timeout
     */
    public static ClientOptions options(Duration connectTimeout) {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        return ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .sslOptions(SslOptions.builder().handshakeTimeout(connectTimeout).build())
                .timeoutOptions(TimeoutOptions.enabled(RedisURI.DEFAULT_TIMEOUT_DURATION))
                .build();
    }

    /**
     * @param reconnectMaxDelay the longest wait between reconnect attempts (at least {@link #RECONNECT_MIN_DELAY})
     * @return a builder of client resources whose reconnect waits double from {@link #RECONNECT_MIN_DELAY} up to it
     */
    public static DefaultClientResources.Builder resources(Duration reconnectMaxDelay) {
        Objects.requireNonNull(reconnectMaxDelay, "reconnectMaxDelay");
        if (reconnectMaxDelay.compareTo(RECONNECT_MIN_DELAY) < 0) {
            throw new IllegalArgumentException("reconnectMaxDelay must be at least " + RECONNECT_MIN_DELAY + ", was "
                    + reconnectMaxDelay);
        }
        return DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(RECONNECT_MIN_DELAY, reconnectMaxDelay, 2, TimeUnit.MILLISECONDS));
    }
}
