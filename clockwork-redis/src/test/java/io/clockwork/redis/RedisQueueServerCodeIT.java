package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The queue's code on the server: the function library, or the scripts where Functions are missing or not allowed,
 * flushed 50 times a second while producers and consumers run (each flush makes the next calls find the code missing
 * and load it again), and a server without Functions at all (as before Redis 7.0: the commands renamed away). Nothing
 * offered may be lost, no caller may see an error, and every message is acked exactly once.
 */
class RedisQueueServerCodeIT {

    private static final int PRODUCERS = 2;
    private static final int PER_PRODUCER = 1500;
    private static final int CONSUMERS = 2;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void cleanUp() throws Exception {
        pool.shutdownNow();
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RedisServerProcess server(String... config) {
        RedisServerProcess.Builder b = RedisServerProcess.builder();
        for (int i = 0; i < config.length; i += 2) {
            b.config(config[i], config[i + 1]);
        }
        RedisServerProcess s = b.start();
        open.add(s);
        return s;
    }

    private RedisDelayedQueue<String> queue(String uri, String name) {
        RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, name, Codec.string()).partitions(2).build();
        open.add(q);
        return q;
    }

    @Test
    void functionFlushUnderLoadLosesNothing() throws Exception {
        RedisServerProcess redis = server();
        assumeTrue(redis.hasFunctions(), "Redis Functions need Redis 7.0; the script test covers this server");
        RedisDelayedQueue<String> q = queue(redis.uri(), "flush-functions");
        assertThat(q.runsFunctions()).isTrue();

        long flushes = runUnderFlushes(q, () -> redis.call("FUNCTION", "FLUSH"));

        assertThat(flushes).isPositive();
        assertThat(q.scriptLoads()).as("the library loaded again after flushes").isGreaterThan(1);
        assertThat(q.runsFunctions()).isTrue();
    }

    @Test
    void scriptFlushUnderLoadLosesNothingWhereFunctionsAreNotAllowed() throws Exception {
        RedisServerProcess redis = server();
        redis.call("ACL", "SETUSER", "scripts", "on", ">pw", "~*", "&*", "+@all");
        if (redis.hasFunctions()) {
            redis.call("ACL", "SETUSER", "scripts", "-fcall", "-function");
        }
        RedisDelayedQueue<String> q = queue("redis://scripts:pw@127.0.0.1:" + redis.port(), "flush-scripts");
        assertThat(q.runsFunctions()).isFalse();
        long before = q.scriptLoads();

        long flushes = runUnderFlushes(q, () -> redis.call("SCRIPT", "FLUSH"));

        assertThat(flushes).isPositive();
        assertThat(q.scriptLoads()).as("scripts loaded again after flushes").isGreaterThan(before);
    }

    @Test
    void aReplicaPromotedAfterItsMasterDiesHasTheLibraryAndEveryMessage() throws Exception {
        RedisServerProcess master = server();
        assumeTrue(master.hasFunctions(), "Redis Functions need Redis 7.0");
        RedisServerProcess replica = server();
        replica.call("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
        Set<String> offered = ConcurrentHashMap.newKeySet();
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(master.uri(), "failover", Codec.string())
                .partitions(2).build()) {
            assertThat(q.runsFunctions()).isTrue();
            for (int i = 0; i < 500; i++) {
                offered.add(q.offer("m" + i, Duration.ZERO));
            }
            // Every write, the library's load included, reached the replica before the master dies.
            assertThat((Long) master.call("WAIT", "1", "10000")).isOne();
        }
        master.kill();
        replica.call("REPLICAOF", "NO", "ONE");

        RedisDelayedQueue<String> q = queue(replica.uri(), "failover");
        assertThat(String.valueOf(replica.call("FUNCTION", "LIST"))).contains(FunctionLibrary.NAME);
        assertThat(q.scriptLoads()).as("the promoted replica already has the library").isZero();
        Set<String> acked = new HashSet<>();
        while (acked.size() < offered.size()) {
            List<Delivery<String>> got = q.poll(100, Duration.ofSeconds(5));
            assertThat(got).as("%d of %d delivered", acked.size(), offered.size()).isNotEmpty();
            for (Delivery<String> d : got) {
                assertThat(d.ack()).isTrue();
                assertThat(acked.add(d.id())).as("delivered once: %s", d.id()).isTrue();
            }
        }
        assertThat(acked).isEqualTo(offered);
        assertThat(q.scriptLoads()).isZero();
    }

    @Test
    void aServerWithoutFunctionsRunsTheScripts() throws Exception {
        // Redis 6.2 as it is; a later server with FUNCTION and FCALL renamed away answers as 6.2 does.
        RedisServerProcess probe = server();
        RedisServerProcess redis = probe.hasFunctions()
                ? server("rename-command FUNCTION", "", "rename-command FCALL", "") : probe;
        RedisDelayedQueue<String> q = queue(redis.uri(), "no-functions");

        String id = q.offer("v", Duration.ZERO);
        Delivery<String> d = q.poll(Duration.ofSeconds(5));

        assertThat(d).isNotNull();
        assertThat(d.id()).isEqualTo(id);
        assertThat(d.ack()).isTrue();
        assertThat(q.runsFunctions()).isFalse();
        assertThat(q.stats().total()).isZero();
    }

    /**
     * Offers from PRODUCERS threads and polls and acks from CONSUMERS threads while another thread runs {@code flush}
     * every 20 ms; returns how many flushes ran. Asserts that every call succeeded and that exactly the
     * offered messages were acked, each once.
     */
    private long runUnderFlushes(RedisDelayedQueue<String> q, Runnable flush) throws Exception {
        Set<String> offered = ConcurrentHashMap.newKeySet();
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicInteger doubleAcks = new AtomicInteger();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger flushes = new AtomicInteger();
        Future<?> flusher = pool.submit(() -> {
            while (producing.get()) {
                flush.run();
                flushes.incrementAndGet();
                // A flush every 20 ms, 50 a second: real time is the load's pace here. Loading the library compiles
                // it (about 3 ms of server time), and a call fails after 10 loads each undone before the call ran.
                TimeUnit.MILLISECONDS.sleep(20);
            }
            return null;
        });
        List<Future<?>> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            producers.add(pool.submit(() -> {
                for (int i = 0; i < PER_PRODUCER; i++) {
                    offered.add(q.offer("m" + i, Duration.ZERO));
                }
                return null;
            }));
        }
        List<Future<?>> consumers = new ArrayList<>();
        int total = PRODUCERS * PER_PRODUCER;
        for (int c = 0; c < CONSUMERS; c++) {
            consumers.add(pool.submit(() -> {
                while (acked.size() < total) {
                    Delivery<String> d = q.poll(Duration.ofMillis(200));
                    if (d != null) {
                        assertThat(d.ack()).as("ack of %s", d.id()).isTrue();
                        if (!acked.add(d.id())) {
                            doubleAcks.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : producers) {
            f.get(120, TimeUnit.SECONDS);
        }
        producing.set(false);
        flusher.get(10, TimeUnit.SECONDS);
        for (Future<?> f : consumers) {
            f.get(120, TimeUnit.SECONDS);
        }
        assertThat(offered).hasSize(total);
        assertThat(acked).isEqualTo(offered);
        assertThat(doubleAcks).hasValue(0);
        assertThat(q.stats().total()).isZero();
        return flushes.get();
    }
}
