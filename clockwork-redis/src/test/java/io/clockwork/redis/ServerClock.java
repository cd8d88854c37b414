package io.clockwork.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads a Redis server's clock ({@code TIME}) for tests, and waits until it has moved on. Not thread-safe: owned by
 * one test.
 */
final class ServerClock implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    ServerClock(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect();
    }

    /** @return the server's time in microseconds */
    long nowMicros() {
        List<String> t = connection.sync().time();
        return Long.parseLong(t.get(0)) * 1_000_000 + Long.parseLong(t.get(1));
    }

    /** @return the server's time in whole milliseconds, as the queue's scripts compute it */
    long nowMillis() {
        return nowMicros() / 1000;
    }

    /**
     * Returns once the server's clock has advanced by at least {@code amount}, checking it every half millisecond.
     *
     * @param amount how much server time must pass
     */
    void await(Duration amount) {
        long target = nowMicros() + amount.toNanos() / 1000 + 1000; // + 1 ms: scripts truncate to whole ms
        long deadline = System.nanoTime() + amount.toNanos() + Duration.ofSeconds(30).toNanos();
        while (nowMicros() < target) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the server's clock did not advance by " + amount);
            }
            LockSupport.parkNanos(500_000);
        }
    }

    /** @return commands for inspecting the server */
    StatefulRedisConnection<String, String> connection() {
        return connection;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
