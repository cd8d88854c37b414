package io.clockwork.redis;

/**
 * Thrown by {@link RedisQueueBuilder#build()} with {@link RedisQueueBuilder#openExisting()} when no
 * client ever created a queue of that name on that server: the message names both. Nothing was written. Immutable.
 */
public class QueueNotFoundException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** @param message the queue and the server */
    public QueueNotFoundException(String message) {
        super(message);
    }
}
