package io.clockwork.cli;

import io.clockwork.dashboard.QueueSource;
import io.clockwork.dashboard.RedisQueueSource;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.QueueNotFoundException;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisQueueBuilder;
import io.clockwork.redis.RedisQueueException;
import io.clockwork.redis.RedisSchedules;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A Redis server given as {@code redis://[[user:]password@]host[:port][/db][?verifyPeer=...]} (or {@code rediss://}),
 * checked for form when parsed and for reachability before use. Immutable.
 *
 * <p>Why a reachability check of its own: an operator typing a wrong host deserves a plain answer, so a TCP connect
 * with a short timeout runs first and turns "refused", "unknown host" and "timed out" into one clear line. The queue
 * is then built with the same {@link #CONNECT_TIMEOUT} as its {@code connectTimeout}, which bounds the TLS and Redis
 * handshakes too: a server that accepts connections and never answers fails the command in about that time.
 *
 * <p>The password never leaves this class in a message: errors show the URI with its credentials replaced by
 * {@code ***} (as {@code Connections.describe} does in the library), and {@link #redact(String)} scrubs the password
 * from any other text, such as an error the client library reports.
 */
public final class RedisTarget implements Backend {

    /** Default time a first TCP connect may take before the server counts as unreachable. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** The values Lettuce accepts for a {@code rediss://} URI's {@code verifyPeer} parameter. */
    static final String VERIFY_PEER_VALUES = "NONE, CA or FULL";
    private static final int DEFAULT_PORT = 6379;
    /** Shorter passwords are not scrubbed from free text: replacing every "ab" would garble the message. */
    private static final int MIN_SCRUBBED = 4;
    /** The credentials of a URI-like text: everything between "scheme://" and the last '@' of the authority. */
    private static final Pattern CREDENTIALS = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@");
    private static final Pattern VERIFY_PEER = Pattern.compile("(?:^|&)verifyPeer=([^&]*)");

    private final String uri;
    private final String host;
    private final int port;
    private final String shown;
    private final String password;
    private final String rawPassword;

    private RedisTarget(String uri, String host, int port, String shown, String password, String rawPassword) {
        this.uri = uri;
        this.host = host;
        this.port = port;
        this.shown = shown;
        this.password = password;
        this.rawPassword = rawPassword;
    }

    /**
     * Parses and validates a URI's form (not whether anything listens there).
     *
     * @param text the URI as typed
     * @return the target
     * @throws IllegalArgumentException if it is not a {@code redis://} or {@code rediss://} URI with a host; the
     *                                  message shows the text with its credentials replaced by {@code ***}
     */
    public static RedisTarget parse(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.strip();
        String quoted = "'" + redactUri(t) + "'";
        String hint = quoted + " is not a Redis URI (expected redis://host:port, e.g. redis://127.0.0.1:6379)";
        int colon = t.indexOf("://");
        String scheme = colon < 0 ? "" : t.substring(0, colon).toLowerCase(Locale.ROOT);
        if (scheme.equals("redis-socket") || scheme.equals("redis+socket")) {
            throw new IllegalArgumentException(quoted + ": Unix sockets are not supported (the client needs Netty's "
                    + "native transport, which the clockwork command does not ship); use redis://host:port");
        }
        if (scheme.endsWith("-sentinel")) {
            throw new IllegalArgumentException(quoted + ": Sentinel URIs are not supported; give the master's "
                    + "redis://host:port");
        }
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException(hint);
        }
        URI u;
        try {
            u = new URI(t);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(hint + "; characters such as @ : / in a password must be "
                    + "percent-encoded (@ as %40)");
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
            throw new IllegalArgumentException(quoted + ": the path must be a database number, e.g. /0");
        }
        if (u.getRawQuery() != null) {
            Matcher verify = VERIFY_PEER.matcher(u.getRawQuery());
            if (verify.find() && !verify.group(1).toUpperCase(Locale.ROOT).matches("NONE|CA|FULL")) {
                throw new IllegalArgumentException(quoted + ": verifyPeer must be " + VERIFY_PEER_VALUES + ", was '"
                        + verify.group(1) + "'");
            }
        }
        String rawUserInfo = u.getRawUserInfo();
        String rawPassword = rawUserInfo == null ? null
                : rawUserInfo.indexOf(':') >= 0 ? rawUserInfo.substring(rawUserInfo.indexOf(':') + 1) : rawUserInfo;
        String password = rawPassword == null ? null : URLDecoder.decode(rawPassword.replace("+", "%2B"),
                StandardCharsets.UTF_8);
        try {
            RedisURI.create(t); // the client's own parser: the query's parameters (timeout, clientName, ...)
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(quoted + ": " + scrub(String.valueOf(e.getMessage()), password,
                    rawPassword));
        }
        String host = u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
        return new RedisTarget(t, host, port, redactUri(t), password, rawPassword);
    }

    /**
     * Hides the credentials of a URI-like text, even one that does not parse: {@code redis://user:secret@h} becomes
     * {@code redis://user:***@h}, {@code redis://secret@h} becomes {@code redis://***@h} (Lettuce reads a lone user
     * part as the password), and a text without a scheme loses everything before its last {@code @}.
     *
     * @param text a URI, or what was typed as one
     * @return the text without its password
     */
    public static String redactUri(String text) {
        Matcher m = CREDENTIALS.matcher(text);
        if (m.find()) {
            String userInfo = m.group(2);
            int colon = userInfo.indexOf(':');
            String user = colon >= 0 ? userInfo.substring(0, colon + 1) : "";
            return m.group(1) + user + "***@" + text.substring(m.end());
        }
        int at = text.lastIndexOf('@');
        return at < 0 ? text : "***" + text.substring(at);
    }

    /** @return the URI as given, password included: for the client library only, never for a message */
    public String uri() {
        return uri;
    }

    /** @return host:port, for messages (never the password) */
    @Override
    public String where() {
        return host + ":" + port;
    }

    /** @return whether the URI carries a password */
    public boolean hasPassword() {
        return password != null && !password.isEmpty();
    }

    /**
     * Scrubs this target's password from a text, for messages that quote what another library said.
     *
     * @param text a message, or null
     * @return the message with every occurrence of the password (as typed or decoded) replaced by {@code ***}
     */
    @Override
    public String redact(String text) {
        return text == null ? null : scrub(text, password, rawPassword);
    }

    private static String scrub(String text, String password, String rawPassword) {
        String s = text;
        for (String secret : new String[] {rawPassword, password}) {
            if (secret != null && secret.length() >= MIN_SCRUBBED) {
                s = s.replace(secret, "***");
            }
        }
        return s;
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
            throw new CliException("cannot reach Redis at " + where() + ": " + redact(e.getMessage()), e);
        }
    }

    /**
     * Checks reachability, then opens a queue on the target, creating it if no client has.
     *
     * @param name              the queue's name
     * @param codec             the value codec
     * @param visibilityTimeout how long deliveries stay in flight
     * @param maxAttempts       deliveries before a message dies
     * @param partitions        the partition count the queue must have, or 0 for the one stored with it (1 for a
     *                          new queue)
     * @param <V>               the value type
     * @return the open queue
     * @throws CliException if the server cannot be reached, refuses the connection, or stores another count
     */
    public <V> RedisDelayedQueue<V> open(String name, Codec<V> codec, Duration visibilityTimeout, int maxAttempts,
            int partitions) {
        return open(name, codec, visibilityTimeout, maxAttempts, partitions, false);
    }

    /**
     * Checks reachability, then opens a queue that some client has created, writing nothing if none has.
     *
     * @param name              the queue's name
     * @param codec             the value codec
     * @param visibilityTimeout how long deliveries stay in flight
     * @param maxAttempts       deliveries before a message dies
     * @param partitions        the partition count the queue must have, or 0 for the one stored with it
     * @param <V>               the value type
     * @return the open queue
     * @throws CliException if the server cannot be reached, refuses the connection, has no such queue, or stores
     *                      another count
     */
    public <V> RedisDelayedQueue<V> openExisting(String name, Codec<V> codec, Duration visibilityTimeout,
            int maxAttempts, int partitions) {
        return open(name, codec, visibilityTimeout, maxAttempts, partitions, true);
    }

    private <V> RedisDelayedQueue<V> open(String name, Codec<V> codec, Duration visibilityTimeout, int maxAttempts,
            int partitions, boolean existing) {
        checkReachable(CONNECT_TIMEOUT);
        try {
            RedisQueueBuilder<V> b = RedisDelayedQueue.builder(uri, name, codec)
                    .visibilityTimeout(visibilityTimeout)
                    .maxAttempts(maxAttempts)
                    .connectTimeout(CONNECT_TIMEOUT)
                    .commandTimeout(Duration.ofSeconds(5));
            if (partitions != 0) {
                b.partitions(partitions);
            }
            if (existing) {
                b.openExisting();
            }
            return b.build();
        } catch (QueueNotFoundException e) {
            throw new CliException("unknown queue '" + name + "' on " + where() + ": no client has created a queue "
                    + "of that name", e);
        } catch (RedisQueueException | IllegalStateException e) {
            // The library's own message names the queue, the server (without credentials) and the root cause.
            throw new CliException(ClockworkCli.oneLine(redact(e.getMessage())), e);
        } catch (IllegalArgumentException e) {
            throw e; // a name or option the library refuses: bad usage, which the caller names
        } catch (RuntimeException e) {
            throw new CliException("cannot open queue '" + name + "' on Redis at " + where() + ": "
                    + ClockworkCli.oneLine(redact(rootMessage(e))), e);
        }
    }

    @Override
    public boolean partitioned() {
        return true;
    }

    @Override
    public DelayedQueue<byte[]> openExisting(String name, int maxAttempts, int partitions) {
        return openExisting(name, Codec.bytes(), QueueOptions.DEFAULT_VISIBILITY_TIMEOUT, maxAttempts, partitions);
    }

    @Override
    public OpenSchedules openSchedules(String name, boolean create) {
        RedisDelayedQueue<byte[]> q = create ? open(name, Codec.bytes(), QueueOptions.DEFAULT_VISIBILITY_TIMEOUT,
                QueueOptions.DEFAULT_MAX_ATTEMPTS, 0)
                : openExisting(name, Codec.bytes(), QueueOptions.DEFAULT_VISIBILITY_TIMEOUT,
                QueueOptions.DEFAULT_MAX_ATTEMPTS, 0);
        return new OpenSchedules(RedisSchedules.builder(q).build(), q::close);
    }

    /**
     * Deletes every key of the queue, in every partition, and its name in the registry of queues
     * ({@link RedisDelayedQueue#delete()}).
     */
    @Override
    public String delete(String name) {
        try (RedisDelayedQueue<byte[]> q = openExisting(name, Codec.bytes(), QueueOptions.DEFAULT_VISIBILITY_TIMEOUT,
                QueueOptions.DEFAULT_MAX_ATTEMPTS, 0)) {
            String where = "queue '" + name + "' on " + where();
            long keys;
            QueueStats s;
            try {
                s = q.stats();
                keys = q.delete();
            } catch (RuntimeException e) {
                throw new CliException(where + ": " + ClockworkCli.oneLine(redact(e.getMessage())), e);
            }
            return String.format(Locale.ROOT, "deleted %s: %,d key%s (%d partition%s; %,d delayed, %,d ready, "
                    + "%,d in flight, %,d dead)", where, keys, keys == 1 ? "" : "s", q.partitions(),
                    q.partitions() == 1 ? "" : "s", s.delayed(), s.ready(), s.inFlight(), s.dead());
        }
    }

    @Override
    public QueueSource dashboardSource(int maxAttempts, boolean cluster) {
        try {
            return cluster ? RedisQueueSource.connectCluster(uri, maxAttempts)
                    : RedisQueueSource.connect(uri, maxAttempts);
        } catch (RedisQueueException | IllegalArgumentException e) {
            throw new CliException(redact(e.getMessage()), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** @return the URI without its password, e.g. {@code rediss://ops:***@10.0.0.5:6380/2} */
    @Override
    public String toString() {
        return shown;
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
