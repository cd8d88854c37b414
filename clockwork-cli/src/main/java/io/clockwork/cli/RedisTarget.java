package io.clockwork.cli;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.redis.RedisDelayedQueue;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A Redis server given on the command line as {@code redis://[user:password@]host[:port][/db]} (or {@code rediss://}),
 * checked for form when parsed and for reachability before use. Immutable.
 *
 * <p>Why a reachability check of its own: Lettuce waits up to its 10 s connect timeout for a host that drops packets;
 * an operator typing a wrong host deserves an answer in about a second, so a plain TCP connect with a short timeout
 * runs first and turns "refused", "unknown host" and "timed out" into one clear line.
 */
public final class RedisTarget {

    /** Default time a first TCP connect may take before the server counts as unreachable. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final int DEFAULT_PORT = 6379;

    private final String uri;
    private final String host;
    private final int port;

    private RedisTarget(String uri, String host, int port) {
        this.uri = uri;
        this.host = host;
        this.port = port;
    }

    /**
     * Parses and validates a URI's form (not whether anything listens there).
     *
     * @param text the URI as typed
     * @return the target
     * @throws IllegalArgumentException if it is not a {@code redis://} or {@code rediss://} URI with a host
     */
    public static RedisTarget parse(String text) {
        Objects.requireNonNull(text, "text");
        String hint = "'" + text + "' is not a Redis URI (expected redis://host:port, e.g. redis://127.0.0.1:6379)";
        URI u;
        try {
            u = new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(hint);
        }
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("redis") || scheme.equalsIgnoreCase("rediss"))) {
            throw new IllegalArgumentException(hint);
        }
        if (u.getHost() == null || u.getHost().isBlank()) {
            throw new IllegalArgumentException(hint);
        }
        int port = u.getPort() == -1 ? DEFAULT_PORT : u.getPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(hint);
        }
        String path = u.getPath() == null ? "" : u.getPath();
        if (!path.isEmpty() && !path.matches("/\\d{0,2}")) {
            throw new IllegalArgumentException("'" + text + "': the path must be a database number, e.g. /0");
        }
        String host = u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
        return new RedisTarget(text.strip(), host, port);
    }

    /** @return the URI as given */
    public String uri() {
        return uri;
    }

    /** @return host:port, for messages (never the password) */
    public String where() {
        return host + ":" + port;
    }

    /**
     * Fails fast, with one clear line, if nothing accepts TCP connections at the target.
     *
     * @param timeout the longest the connect may take
     * @throws CliException if the host is unknown, refuses, or does not answer in time
     */
    public void checkReachable(Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), Math.toIntExact(timeout.toMillis()));
        } catch (UnknownHostException e) {
            throw new CliException("cannot reach Redis at " + where() + ": unknown host '" + host + "'", e);
        } catch (ConnectException e) {
            throw new CliException("cannot reach Redis at " + where() + ": connection refused (is redis-server "
                    + "running there?)", e);
        } catch (SocketTimeoutException e) {
            throw new CliException("cannot reach Redis at " + where() + ": no answer within "
                    + DurationConverter.format(timeout), e);
        } catch (IOException e) {
            throw new CliException("cannot reach Redis at " + where() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks reachability, then opens a queue on the target.
     *
     * @param name              the queue's name
     * @param codec             the value codec
     * @param visibilityTimeout how long deliveries stay in flight
     * @param maxAttempts       deliveries before a message dies
     * @param partitions        the queue's partition count (must match its other clients)
     * @param <V>               the value type
     * @return the open queue
     * @throws CliException if the server cannot be reached or refuses the connection
     */
    public <V> DelayedQueue<V> open(String name, Codec<V> codec, Duration visibilityTimeout, int maxAttempts,
            int partitions) {
        checkReachable(CONNECT_TIMEOUT);
        try {
            return RedisDelayedQueue.builder(uri, name, codec)
                    .visibilityTimeout(visibilityTimeout)
                    .maxAttempts(maxAttempts)
                    .partitions(partitions)
                    .commandTimeout(Duration.ofSeconds(5))
                    .build();
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CliException("cannot open queue '" + name + "' on Redis at " + where() + ": "
                    + ClockworkCli.oneLine(rootMessage(e)), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    @Override
    public String toString() {
        return "redis://" + where();
    }

    /** Picocli converter: a malformed URI is bad usage (exit 2) with one line saying what was expected. */
    public static final class Converter implements ITypeConverter<RedisTarget> {
        @Override
        public RedisTarget convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
