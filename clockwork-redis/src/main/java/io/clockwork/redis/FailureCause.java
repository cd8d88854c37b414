package io.clockwork.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.protocol.RedisProtocolException;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;

import javax.net.ssl.SSLException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says in plain words why a Redis connect or command failed: walks Lettuce's chain of causes down to the one that
 * names the reason (a server error such as {@code WRONGPASS}, a TLS or socket error, a timeout) and states it with
 * what to check. Stateless.
 *
 * <p>Lettuce reports every failed connect as {@code RedisConnectionException: Unable to connect to host:port} and
 * keeps the reason one or more causes down, where users rarely look. The explanation goes into the
 * {@link RedisQueueException} message, and Lettuce's exception stays its cause. A connect that timed out is told
 * apart by how far it got ({@link Reached}): no TCP connection, a TCP connection without a TLS handshake, or a
 * connection without a reply to the Redis handshake ({@code HELLO}, {@code AUTH}, {@code SELECT}).
 */
final class FailureCause {

    /** How far a connect got before it failed. */
    enum Reached {
        /** Not known: the client is the caller's. */
        UNKNOWN,
        /** No TCP connection. */
        NOTHING,
        /** A TCP connection, and a TLS handshake that did not complete. */
        TCP,
        /** A TCP connection, TLS done where asked: the Redis handshake started. */
        HANDSHAKE
    }

    /**
     * A connect attempt, for the explanation of its failure.
     *
     * @param hostPort the server, e.g. {@code 127.0.0.1:6379}; null if unknown (a caller's client)
     * @param tls      whether the URI asks for TLS ({@code rediss://})
     * @param timeout  the connect timeout; null if unknown (a caller's client)
     * @param reached  how far the connect got
     */
    record Attempt(String hostPort, boolean tls, Duration timeout, Reached reached) {
    }

    private static final Pattern NOPERM_COMMAND = Pattern.compile("run the '([^']+)' command");
    private static final Pattern UNABLE_TO_CONNECT = Pattern.compile("Unable to connect to (\\S+)");
    private static final Pattern FIRST_BYTE = Pattern.compile("Invalid first byte: \\d+ \\((.)\\)");
    private static final int MAX_QUOTE = 60;

    private FailureCause() {
    }

    /**
     * @param failure a failed command
     * @return its root cause in plain words when it is one this class knows (a server's refusal such as
     *         {@code NOPERM}, or a connect Lettuce made on the command's behalf), else the failure's own message
     */
    static String explain(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof RedisCommandExecutionException) {
                String words = serverError(String.valueOf(t.getMessage()));
                if (words != null) {
                    return words;
                }
            }
            if (t instanceof RedisConnectionException
                    && UNABLE_TO_CONNECT.matcher(String.valueOf(t.getMessage())).find()) {
                return explainConnect(t, new Attempt(null, false, null, Reached.UNKNOWN));
            }
        }
        return String.valueOf(failure.getMessage());
    }

    /**
     * @param failure a failed connect
     * @param attempt what was attempted and how far it got
     * @return why it failed, in plain words; Lettuce's message and the root cause's when the reason is not one this
     *         class knows
     */
    static String explainConnect(Throwable failure, Attempt attempt) {
        Attempt a = attempt.hostPort() != null ? attempt
                : new Attempt(hostPortOf(failure), attempt.tls(), attempt.timeout(), attempt.reached());
        for (Throwable t = failure; t != null; t = next(t)) {
            String words = connectError(t, a);
            if (words != null) {
                return words;
            }
        }
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof SSLException) {
                return "TLS handshake failed (" + t.getMessage() + "): is the port a TLS port?";
            }
        }
        Throwable root = failure;
        while (next(root) != null) {
            root = next(root);
        }
        return root == failure ? String.valueOf(failure.getMessage())
                : failure.getMessage() + ": " + root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    /** One link of a failed connect's chain, in plain words, or null if it does not name the reason. */
    private static String connectError(Throwable t, Attempt a) {
        String m = String.valueOf(t.getMessage());
        String at = a.hostPort() != null ? a.hostPort() : "the server";
        if (t instanceof RedisCommandExecutionException) {
            return serverError(m);
        }
        if (t instanceof ConnectException && m.contains("refused")) {
            return "connection refused: nothing listens on " + at + " (is the server running, the port right?)";
        }
        if (t instanceof UnknownHostException) {
            return "unknown host " + m + " (no address for that name)";
        }
        if (t instanceof ConnectTimeoutException
                || (t instanceof ClosedChannelException && a.reached() == Reached.NOTHING)
                || (isInitTimeout(t, m) && a.reached() == Reached.NOTHING)) {
            // A channel closed before TCP connected: the connect timeout closed it.
            return "no TCP connection to " + at + within(a) + ": is the host reachable and the port open (a firewall "
                    + "may drop the packets)?";
        }
        if (isInitTimeout(t, m)) {
            if (a.reached() == Reached.UNKNOWN) {
                return "no reply to the connect (" + m + "): is the server a Redis server"
                        + (a.tls() ? ", and the port a TLS port?" : "?");
            }
            return a.reached() == Reached.TCP
                    ? "TLS handshake failed: connected, but no TLS reply" + within(a) + ": is the port a TLS port?"
                    : "connected, but no reply to the handshake" + within(a) + ": is this a Redis server?";
        }
        if (t instanceof NotSslRecordException) {
            return "TLS handshake failed: the server answered in plain text" + quoteHex(m) + ": is the port a TLS "
                    + "port?";
        }
        if (t instanceof SslHandshakeTimeoutException) {
            return "TLS handshake failed: connected, but no TLS reply" + within(a) + ": is the port a TLS port?";
        }
        if (t instanceof CertificateExpiredException || t instanceof CertificateNotYetValidException) {
            return "the server's TLS certificate is not valid now (" + m + ")";
        }
        if (t instanceof CertPathBuilderException || m.contains("PKIX path building failed")) {
            return "the server's TLS certificate is not trusted (" + m + "): give the client a truststore holding the "
                    + "certificate or its CA (SslOptions.truststore on a RedisClient), or, for tests only, turn off "
                    + "verification with verifyPeer=NONE in the URI";
        }
        if (t instanceof CertificateException && m.startsWith("No ") && m.contains(" matching ")) {
            return "the server's TLS certificate does not name the host (" + m + "): connect by a name the "
                    + "certificate lists, or check only the CA with verifyPeer=CA in the URI";
        }
        if (t instanceof RedisProtocolException && m.startsWith("Invalid first byte")) {
            Matcher first = FIRST_BYTE.matcher(m);
            String begins = !first.find() ? m : "it begins with '" + first.group(1) + "'"
                    + ("H".equals(first.group(1)) ? ", as an HTTP reply does" : "");
            return "not a Redis server at " + at + ": its reply is not in the Redis protocol (" + begins + ")";
        }
        if ((t instanceof RedisConnectionException && m.startsWith("Connection closed prematurely"))
                || (t instanceof SocketException && m.contains("reset"))
                || closedBeforeHandshake(t, m)) {
            if (a.tls() && a.reached() == Reached.TCP) {
                return "TLS handshake failed: the server at " + at + " closed the connection (" + m + "): is the "
                        + "port a TLS port?";
            }
            return "the server at " + at + " closed the connection during the handshake (" + m + ")"
                    + (a.tls() ? "" : ": if the port is a TLS port, use rediss://");
        }
        return null;
    }

    /**
     * Lettuce's word for a connection the server closed before Lettuce's handshake began: the channel's handlers are
     * gone when Lettuce looks for its handshake handler. A server that drops a connection at once (a TLS port reading
     * plain text) gives this or "Connection closed prematurely", depending on which thread wins.
     */
    private static boolean closedBeforeHandshake(Throwable t, String m) {
        return t instanceof IllegalStateException && m.equals("RedisHandshakeHandler not registered");
    }

    /**
     * @param failure a failed connect
     * @return whether Lettuce lost the server's reason in a race with the channel's close (see
     *         {@link #closedBeforeHandshake}): another try may name it
     */
    static boolean reasonLost(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (closedBeforeHandshake(t, String.valueOf(t.getMessage()))) {
                return true;
            }
        }
        return false;
    }

    /** Lettuce's own timeout of the whole connect ({@code RedisURI} timeout). */
    private static boolean isInitTimeout(Throwable t, String m) {
        return t instanceof RedisCommandTimeoutException && m.startsWith("Connection initialization timed out");
    }

    /** A Redis error reply, by its code; null for codes this class has no words for. */
    private static String serverError(String m) {
        if (m.startsWith("WRONGPASS")) {
            return "wrong user or password (" + m + ")";
        }
        if (m.startsWith("NOAUTH")) {
            return "the server requires a password and none was given: put it in the URI, "
                    + "redis://:password@host:port (or redis://user:password@host:port for an ACL user) (" + m + ")";
        }
        if (m.contains("NOPERM")) {
            Matcher c = NOPERM_COMMAND.matcher(m);
            if (c.find()) {
                return "the ACL user may not run '" + c.group(1) + "': grant it with ACL SETUSER <user> +"
                        + c.group(1) + " (" + m + ")";
            }
            if (m.contains(" keys ")) {
                return "the ACL user may not access the queue's keys: grant them with ACL SETUSER <user> "
                        + "~cw:{<queue>* (" + m + ")";
            }
            return "the ACL user lacks a permission (" + m + ")";
        }
        return null;
    }

    private static String within(Attempt a) {
        return a.timeout() == null ? "" : " within " + format(a.timeout());
    }

    /** @return a duration as people write it: {@code 2 s}, {@code 1500 ms} */
    static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** Netty's {@code not an SSL/TLS record: <hex>} as the line of text the server sent, when it is text. */
    private static String quoteHex(String message) {
        int colon = message.lastIndexOf(": ");
        if (colon < 0) {
            return "";
        }
        String hex = message.substring(colon + 2).trim();
        byte[] bytes;
        try {
            bytes = HexFormat.of().parseHex(hex, 0, hex.length() - hex.length() % 2);
        } catch (IllegalArgumentException e) {
            return "";
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        int eol = text.indexOf('\r') >= 0 ? text.indexOf('\r') : text.indexOf('\n');
        String line = eol >= 0 ? text.substring(0, eol) : text;
        if (line.isEmpty() || !line.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f)) {
            return "";
        }
        return " ('" + (line.length() > MAX_QUOTE ? line.substring(0, MAX_QUOTE) + "..." : line) + "')";
    }

    private static Throwable next(Throwable t) {
        return t.getCause() == t ? null : t.getCause();
    }

    /** The host and port Lettuce names in {@code Unable to connect to 127.0.0.1/<unresolved>:6379}, if it does. */
    private static String hostPortOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = next(t)) {
            if (t instanceof RedisConnectionException) {
                Matcher m = UNABLE_TO_CONNECT.matcher(String.valueOf(t.getMessage()));
                if (m.find()) {
                    return m.group(1).replace("/<unresolved>", "");
                }
            }
        }
        return null;
    }
}
