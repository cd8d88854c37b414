package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.redis.fixture.RedisServerProcess;

import java.time.Duration;
import java.util.List;

/**
 * What the compact store's ITs ({@link RedisCompactStoreIT}, {@link RedisPlacedIdsIT}) share: a queue with a given
 * {@code compactAfter} on the fixture's server, its partition 0's key prefix, and readers of raw replies. Stateless.
 */
final class CompactStoreTesting {

    private CompactStoreTesting() {
    }

    /** @return a one-partition queue of strings on {@code redis}, compacting messages due {@code after} ahead */
    static RedisDelayedQueue<String> queue(RedisServerProcess redis, String name, Duration after) {
        return RedisDelayedQueue.builder(redis.uri(), name, Codec.string()).compactAfter(after).build();
    }

    /** @return the key prefix of the queue's partition 0 */
    static String prefix(String name) {
        return KeyLayout.prefix(name, 0);
    }

    /** @return an integer reply, or a string holding one; 0 for a nil reply */
    static long number(Object reply) {
        return reply == null ? 0 : Long.parseLong(reply.toString());
    }

    /** @return an array reply */
    @SuppressWarnings("unchecked")
    static List<Object> list(Object reply) {
        return (List<Object>) reply;
    }
}
