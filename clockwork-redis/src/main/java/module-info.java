/**
 * Clockwork on Redis: {@code RedisDelayedQueue}, the {@code DelayedQueue} contract on Redis 6.2+ (standalone or
 * Cluster), on Lettuce.
 *
 * <p>Only {@code io.clockwork.redis} is exported, and in it only the queue, its builder, its exceptions and the
 * connection settings are public; the partition routing, wake-up signals, script calls and poll loop are
 * package-private. Lettuce is read transitively because the builder accepts a caller's {@code RedisClient} or
 * {@code RedisClusterClient}.
 */
module io.clockwork.redis {
    requires transitive io.clockwork.core;
    requires transitive lettuce.core;
    requires io.netty.common;
    requires io.netty.transport;
    requires io.netty.handler;

    exports io.clockwork.redis;
}
