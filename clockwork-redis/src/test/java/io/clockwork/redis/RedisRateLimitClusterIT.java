package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.redis.fixture.RedisCluster;
import io.clockwork.redis.fixture.RedisClusterExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue-wide rate limit of a queue spread over a real 3-master Redis Cluster: one log in partition 0's slot keeps
 * one limit for every partition and client.
 */
@ExtendWith(RedisClusterExtension.class)
class RedisRateLimitClusterIT {

    private static final Duration VISIBILITY = Duration.ofMinutes(5);
    private static final int PARTITIONS = 6;

    private final RedisCluster cluster;
    private final List<RedisClusterClient> clients = new ArrayList<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "rate-cluster-background");
        t.setDaemon(true);
        return t;
    });

    RedisRateLimitClusterIT(RedisCluster cluster) {
        this.cluster = cluster;
    }

    @AfterEach
    void cleanUp() {
        background.shutdownNow();
        clients.forEach(RedisClusterClient::shutdown);
    }

    /** A client of its own, as another process would have, on the queue with the limit. */
    private RedisDelayedQueue<String> client(String name, int permits, Duration interval) {
        RedisClusterClient c = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create)
                .collect(Collectors.toList()));
        clients.add(c);
        return RedisDelayedQueue.builder(c, name, Codec.string()).partitions(PARTITIONS)
                .visibilityTimeout(VISIBILITY).rateLimit(permits, interval).build();
    }

    private RedisServerProcess masterOf(String name, int p) {
        return cluster.masterForSlot(SlotHash.getSlot((KeyLayout.prefix(name, p) + "pending")
                .getBytes(StandardCharsets.UTF_8)));
    }

    /** The server time of every delivery in flight, from each partition's in-flight set on its master. */
    private List<Long> deliveryTimes(String name) {
        List<Long> times = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<?> r = (List<?>) masterOf(name, p).call("ZRANGE", KeyLayout.prefix(name, p) + "inflight", "0", "-1",
                    "WITHSCORES");
            for (int i = 1; i < r.size(); i += 2) {
                String score = String.valueOf(r.get(i));
                if (!score.equals("inf")) {
                    times.add(Long.parseLong(score) - VISIBILITY.toMillis());
                }
            }
        }
        times.sort(null);
        return times;
    }

    @Test
    void oneLimitHoldsForEveryPartitionOnEveryMaster() throws Exception {
        String name = "rate-cluster";
        int permits = 40;
        Duration interval = Duration.ofMillis(500);
        int total = 200;
        List<RedisDelayedQueue<String>> consumers = List.of(client(name, permits, interval),
                client(name, permits, interval));
        Set<RedisServerProcess> masters = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            masters.add(masterOf(name, p));
        }
        assertThat(masters).as("masters holding a partition").hasSizeGreaterThanOrEqualTo(2);
        for (int i = 0; i < total; i++) {
            consumers.get(0).offer("m" + i, Duration.ZERO);
        }
        AtomicBoolean done = new AtomicBoolean();
        List<Future<Integer>> polls = new ArrayList<>();
        for (RedisDelayedQueue<String> q : consumers) {
            for (int t = 0; t < 2; t++) {
                polls.add(background.submit(() -> {
                    int taken = 0;
                    while (!done.get()) {
                        taken += q.poll(5, Duration.ofMillis(200)).size();
                    }
                    return taken;
                }));
            }
        }
        Await.until("every message delivered", Duration.ofSeconds(30), () -> deliveryTimes(name).size() >= total);
        done.set(true);
        int taken = 0;
        for (Future<Integer> f : polls) {
            taken += f.get(10, TimeUnit.SECONDS);
        }
        List<Long> times = deliveryTimes(name);
        assertThat(taken).isEqualTo(total);
        assertThat(times).hasSize(total);
        // A partition other than 0 takes its messages one round trip after partition 0's master granted them, so the
        // deliveries keep the limit in any window shorter than the interval by that round trip.
        assertThat(RedisRateLimitIT.mostInAnyWindow(times, interval.toMillis() - 100))
                .as("deliveries in any 400 ms").isLessThanOrEqualTo(permits);
        assertThat(times.get(total - 1) - times.get(0)).as("five windows' worth: four full intervals at least")
                .isGreaterThanOrEqualTo(4 * interval.toMillis() - 100);
        assertThat(masterOf(name, 0).call("EXISTS", KeyLayout.prefix(name, 0) + "rate")).as("the one log")
                .isEqualTo(1L);
        for (int p = 1; p < PARTITIONS; p++) {
            assertThat(masterOf(name, p).call("EXISTS", KeyLayout.prefix(name, p) + "rate")).isEqualTo(0L);
        }
    }

    @Test
    void permitsAClientTookAndNeverUsedFreeWithinOneInterval() throws Exception {
        String name = "rate-crash";
        Duration interval = Duration.ofSeconds(1);
        RedisDelayedQueue<String> survivor = client(name, 10, interval);
        for (int i = 0; i < 30; i++) {
            survivor.offer("m" + i, Duration.ZERO);
        }
        // A client that acquired every permit for a partition other than 0 and died before it polled or gave back.
        RedisDelayedQueue<String> dying = client(name, 10, interval);
        List<Object> granted = dying.runner().run("poll", Script.RATE, dying.routing().keys(Script.RATE, 0),
                dying.settingsArg(), "a".getBytes(StandardCharsets.US_ASCII),
                "10".getBytes(StandardCharsets.US_ASCII), "0".getBytes(StandardCharsets.US_ASCII));
        long grantedAt = System.nanoTime();
        assertThat((Long) granted.get(0)).isEqualTo(10L);
        dying.close();
        assertThat(survivor.poll(10, Duration.ZERO)).as("the dead client's permits still count").isEmpty();
        List<String> got = new ArrayList<>();
        while (got.size() < 10) {
            survivor.poll(10, Duration.ofSeconds(5)).forEach(d -> got.add(d.value()));
        }
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grantedAt);
        assertThat(waitedMs).as("freed one interval after the grant, not later")
                .isGreaterThanOrEqualTo(interval.toMillis() - 100).isLessThan(interval.toMillis() + 2_000);
        assertThat(got).hasSize(10);
    }
}
