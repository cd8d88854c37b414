package io.clockwork.spring;

import io.clockwork.redis.fixture.RedisServerProcess;

/** One real redis-server for the starter's tests, started on first use; the fixture stops it when the JVM exits. */
final class TestRedis {

    private static RedisServerProcess server;

    private TestRedis() {
    }

    static synchronized RedisServerProcess server() {
        if (server == null) {
            server = RedisServerProcess.start();
        }
        return server;
    }
}
