package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The demo on a real redis-server started by the fixture. */
@ExtendWith(RedisExtension.class)
class DemoCommandRedisIT {

    @Test
    void redisDemoAccountsForEveryOrder(RedisServerProcess redis) {
        Cli.Result r = Cli.run("demo", "--redis", redis.uri(), "--queue", "orders-it", "--orders", "2000",
                "--workers", "3", "--crashes", "1", "--spread", "300ms", "--visibility", "500ms", "--progress",
                "lines", "--seed", "7");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("Redis queue 'orders-it' at 127.0.0.1:" + redis.port() + " (RedisDelayedQueue)")
                .containsPattern("scheduled +2,000 ")
                .containsPattern("lost +0 +reconciled by id")
                .containsPattern("dead letters +0 ")
                .contains("OK: every order accounted for exactly once");
        assertThat(DemoCommandTest.cancelled(r.out()) + DemoCommandTest.delivered(r.out())).isEqualTo(2000);
        assertThat(r.out()).containsPattern("redis keys +the run's \\d+ deleted");
        assertThat(keys(redis)).as("keys the run left behind").isEmpty();
    }

    @Test
    void keepLeavesTheRunsQueuesForInspection(RedisServerProcess redis) {
        Cli.Result r = Cli.run("demo", "--redis", redis.uri(), "--queue", "kept", "--orders", "200", "--workers", "2",
                "--crashes", "0", "--spread", "100ms", "--progress", "none", "--keep");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("redis keys        kept (--keep)");
        assertThat(keys(redis)).anyMatch(k -> k.startsWith("cw:{kept:0}:"))
                .anyMatch(k -> k.startsWith("cw:{kept:receipts:"));
        Cli.Result stats = Cli.run("queue", "stats", "--redis", redis.uri(), "--queue", "kept");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.out()).containsPattern("total +0\\b");
    }

    @Test
    void ordersStillInTheQueueAtTheEndAreNotDeliveredYetRatherThanLost(RedisServerProcess redis) {
        // A producer with no worker anywhere: every unpaid order falls due and waits, ready, until --timeout.
        Cli.Result r = Cli.run("demo", "--redis", redis.uri(), "--queue", "nobody", "--role", "producer",
                "--orders", "50", "--paid", "0", "--spread", "0s", "--timeout", "1s", "--progress", "none", "--keep");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out())
                .containsPattern("not delivered yet +50 +still in the queue")
                .containsPattern("lost +0 +reconciled by id: every order cancelled, delivered or still in the queue")
                .contains("INCOMPLETE: 50 orders not delivered yet (still in the queue when --timeout 1.00 s ran "
                        + "out); none lost")
                .doesNotContain("FAILED");
        Cli.Result stats = Cli.run("queue", "stats", "--redis", redis.uri(), "--queue", "nobody");
        assertThat(stats.out()).containsPattern("ready +50\\b");
    }

    @Test
    void anIncompleteRunStillDeletesItsKeys(RedisServerProcess redis) {
        Cli.Result r = Cli.run("demo", "--redis", redis.uri(), "--queue", "nobody", "--role", "producer",
                "--orders", "20", "--paid", "0", "--spread", "0s", "--timeout", "500ms", "--progress", "none");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).containsPattern("not delivered yet +20 ").containsPattern("lost +0 ");
        assertThat(keys(redis)).isEmpty();
    }

    /** @return every key on the server */
    @SuppressWarnings("unchecked")
    static List<String> keys(RedisServerProcess redis) {
        return (List<String>) (List<?>) redis.call("KEYS", "*");
    }

    @Test
    void workerProcessesShareTheWorkOfAProducer(RedisServerProcess redis) throws Exception {
        // Two "processes" (command lines) on one Redis: a worker-only one and a producer that has no workers.
        CompletableFuture<Cli.Result> worker = CompletableFuture.supplyAsync(() -> Cli.run("demo", "--redis",
                redis.uri(), "--queue", "shared", "--role", "worker", "--workers", "2", "--crashes", "0",
                "--progress", "none", "--timeout", "40s"));
        Cli.Result producer = Cli.run("demo", "--redis", redis.uri(), "--queue", "shared", "--role", "producer",
                "--orders", "1000", "--spread", "200ms", "--progress", "none", "--timeout", "40s");
        assertThat(producer.exit()).as(producer.out() + producer.err()).isZero();
        assertThat(producer.out()).containsPattern("lost +0 ").contains("acked by worker processes");
        Cli.Result w = worker.get(45, TimeUnit.SECONDS);
        assertThat(w.exit()).as(w.out() + w.err()).isZero();
        assertThat(w.out()).contains("report (worker process)");
        assertThat(DemoCommandTest.delivered(w.out())).isEqualTo(DemoCommandTest.delivered(producer.out()));
        assertThat(keys(redis)).as("keys the producer and its worker left behind").isEmpty();
    }
}
