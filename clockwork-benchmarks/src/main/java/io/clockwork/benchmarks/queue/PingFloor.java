package io.clockwork.benchmarks.queue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.util.List;

/**
 * The floor of a blocking one-message offer on Clockwork's client library: each "offer" is one bare {@code PING} on
 * one shared Lettuce connection (the connection Clockwork's queue uses too), so a run shows how many blocking round
 * trips the threads can make at all, with no script and no encoding. Thread-safe, as Lettuce's connection is.
 */
final class PingFloor extends QueueRival {

    static final String NAME = "lettuce-ping";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> sync;

    PingFloor(String uri) {
        super(NAME);
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        this.sync = connection.sync();
    }

    @Override
    void offer(String value, long delayMs) {
        sync.ping();
    }

    @Override
    String take(long waitMs) {
        throw new UnsupportedOperationException("the PING floor only offers");
    }

    @Override
    void offerBatch(List<String> values, long delayMs) {
        throw new UnsupportedOperationException("the PING floor has no batch form");
    }

    @Override
    void offerAsync(List<String> values, long delayMs) {
        throw new UnsupportedOperationException("the PING floor has no async form");
    }

    @Override
    List<String> takeBatch(int max, long waitMs) {
        throw new UnsupportedOperationException("the PING floor only offers");
    }

    @Override
    String api(boolean batch, int size, boolean takes) {
        return "bare `PING` on one Lettuce connection, one in flight per thread (the floor of a blocking call)";
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
