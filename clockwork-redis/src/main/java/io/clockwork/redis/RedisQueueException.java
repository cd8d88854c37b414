package io.clockwork.redis;

/**
 * Thrown when a {@link RedisDelayedQueue} operation fails on the Redis side: connection lost or refused, no reply in
 * time, or a server error. The message names the queue, the server and the operation, and says why in plain words
 * when the reason is known: a wrong password ({@code WRONGPASS}), a missing password ({@code NOAUTH}), a command the
 * ACL user may not run ({@code NOPERM}, naming it), an untrusted TLS certificate ({@code PKIX}), a failed TLS
 * handshake, a server that is not Redis, or what did not answer when a connect timed out. The cause is Lettuce's
 * error. Immutable.
 *
 * <p>When an operation fails this way its effect is unknown: the command may or may not have run. Delivery stays
 * at least once either way (an unacknowledged delivery comes back after the visibility timeout).
 */
public class RedisQueueException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, where, and why
     * @param cause   the underlying error
     */
    public RedisQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
