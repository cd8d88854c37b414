/**
 * The Redisson face: {@code RedissonClient}, {@code RQueue}, {@code RBlockingQueue}, {@code RDeque},
 * {@code RBlockingDeque} and {@code RDelayedQueue} with Redisson's names and semantics, in process
 * ({@code InMemoryRedisson}) and on Redis ({@code RedisRedisson}), and {@code RedissonMigration}, which moves
 * Redisson's delayed queues into Clockwork's data model.
 */
module io.clockwork.redisson {
    requires transitive io.clockwork.core;
    requires transitive io.clockwork.redis;

    exports io.clockwork.redisson;
}
