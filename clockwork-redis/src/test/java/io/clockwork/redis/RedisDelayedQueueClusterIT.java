package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.redis.fixture.RedisCluster;
import io.clockwork.redis.fixture.RedisClusterExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A partitioned {@link RedisDelayedQueue} on a real 3-master Redis Cluster, through a shared cluster client. */
@ExtendWith(RedisClusterExtension.class)
class RedisDelayedQueueClusterIT {

    private final RedisCluster cluster;
    private final RedisClusterClient client;
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "cluster-it-background");
        t.setDaemon(true);
        return t;
    });

    RedisDelayedQueueClusterIT(RedisCluster cluster) {
        this.cluster = cluster;
        this.client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create)
                .collect(Collectors.toList()));
    }

    /** @return the masters holding the queue's partitions, at least two of them (else the test would prove less) */
    private Set<RedisServerProcess> mastersOf(String name, int partitions) {
        Set<RedisServerProcess> masters = new HashSet<>();
        for (int p = 0; p < partitions; p++) {
            masters.add(cluster.masterForSlot(SlotHash.getSlot(
                    (KeyLayout.prefix(name, p) + "pending").getBytes(StandardCharsets.UTF_8))));
        }
        assertThat(masters).as("masters holding a partition").hasSizeGreaterThanOrEqualTo(2);
        return masters;
    }

    @AfterEach
    void cleanUp() {
        background.shutdownNow();
        client.shutdown();
    }

    @Test
    void everyMasterGetsTheFunctionLibraryAndGetsItAgainAfterAFlush() throws Exception {
        assumeTrue(cluster.nodes().get(0).hasFunctions(), "Redis Functions need Redis 7.0");
        String name = "library";
        int partitions = 6;
        Set<RedisServerProcess> masters = mastersOf(name, partitions);
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, name, Codec.string())
                .partitions(partitions).build()) {
            assertThat(q.runsFunctions()).isTrue();
            for (RedisServerProcess m : masters) {
                assertThat(String.valueOf(m.call("FUNCTION", "LIST"))).as("library on %s", m)
                        .contains(FunctionLibrary.NAME);
            }
            for (RedisServerProcess m : masters) {
                m.call("FUNCTION", "FLUSH");
            }
            long loads = q.scriptLoads();
            Set<String> offered = new HashSet<>();
            for (int i = 0; i < 60; i++) {
                offered.add(q.offer("v" + i, Duration.ZERO)); // generated ids: spread over the partitions
            }
            Set<String> acked = new HashSet<>();
            for (Delivery<String> d : q.poll(60, Duration.ofSeconds(5))) {
                assertThat(d.ack()).isTrue();
                acked.add(d.id());
            }
            while (acked.size() < offered.size()) {
                Delivery<String> d = q.poll(Duration.ofSeconds(5));
                assertThat(d).as("message %d of %d", acked.size() + 1, offered.size()).isNotNull();
                assertThat(d.ack()).isTrue();
                acked.add(d.id());
            }
            assertThat(acked).isEqualTo(offered);
            assertThat(q.scriptLoads() - loads).as("loaded again on each flushed master, once")
                    .isEqualTo(masters.size());
            for (RedisServerProcess m : masters) {
                assertThat(String.valueOf(m.call("FUNCTION", "LIST"))).contains(FunctionLibrary.NAME);
            }
        }
    }

    @Test
    void partitionsSpreadOverTheMastersAndDeliverEveryMessageOnce() throws Exception {
        int partitions = 6;
        String name = "spread";
        Set<RedisServerProcess> masters = mastersOf(name, partitions);

        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, name, Codec.string())
                .partitions(partitions).recheckInterval(Duration.ofMinutes(1)).build()) {
            int total = 300;
            for (int i = 0; i < total; i++) {
                q.offer("m-" + i, "v" + i, Duration.ofMillis(i % 3 * 20));
            }
            assertThat(q.stats().total()).isEqualTo(total);

            Map<String, Integer> received = new ConcurrentHashMap<>();
            List<Future<Void>> consumers = java.util.stream.IntStream.range(0, 3).mapToObj(i ->
                    background.submit(() -> {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (received.size() < total && System.nanoTime() - deadline < 0) {
                            Delivery<String> d = q.poll(Duration.ofMillis(50));
                            if (d != null) {
                                received.merge(d.id(), 1, Integer::sum);
                                assertThat(d.ack()).isTrue();
                            }
                        }
                        return (Void) null;
                    })).collect(Collectors.toList());
            for (Future<Void> c : consumers) {
                c.get(40, TimeUnit.SECONDS);
            }
            assertThat(received).hasSize(total);
            assertThat(received.values()).allMatch(n -> n == 1);
            assertThat(q.stats().total()).isZero();
        }
    }

    @Test
    void eachPartitionDeliversByPriorityOnItsOwnMaster() throws Exception {
        int partitions = 3;
        PartitionSelector selector = new PartitionSelector(partitions);
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, "priorities", Codec.string())
                .partitions(partitions).recheckInterval(Duration.ofMinutes(1)).build()) {
            for (int p = 0; p < partitions; p++) {
                int partition = p;
                List<String> ids = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "id-" + i)
                        .filter(i -> selector.partitionOf(i) == partition).limit(2).toList();
                q.offer(Message.of("low-" + p).id(ids.get(0)));
                q.offer(Message.of("high-" + p).id(ids.get(1)).priority(5));
            }
            List<String> order = new ArrayList<>();
            for (int polls = 0; polls < 100 && order.size() < 2 * partitions; polls++) {
                Delivery<String> d = q.poll(Duration.ofSeconds(1));
                if (d != null) {
                    order.add(d.value());
                    d.ack();
                }
            }
            assertThat(order).hasSize(2 * partitions);
            for (int p = 0; p < partitions; p++) {
                assertThat(order.indexOf("high-" + p)).as("partition %d", p).isLessThan(order.indexOf("low-" + p));
            }
        }
    }

    @Test
    void blockedConsumerWakesForAnOfferToAPartitionInAnotherSlot() throws Exception {
        String name = "wake";
        PartitionSelector selector = new PartitionSelector(4);
        String id = java.util.stream.IntStream.range(0, 100).mapToObj(i -> "id-" + i)
                .filter(i -> selector.partitionOf(i) != 0).findFirst().orElseThrow();
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, name, Codec.string())
                .partitions(4).recheckInterval(Duration.ofMinutes(1)).build()) {
            Future<Long> consumer = background.submit(() -> {
                Delivery<String> d = q.poll(Duration.ofSeconds(30));
                assertThat(d.id()).isEqualTo(id);
                return System.nanoTime();
            });
            RedisServerProcess signalHome = cluster.masterForSlot(SlotHash.getSlot(
                    (KeyLayout.prefix(name, 0) + "signal").getBytes(StandardCharsets.UTF_8)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!((String) signalHome.call("INFO", "clients")).contains("blocked_clients:1")) {
                assertThat(System.nanoTime() - deadline).as("consumer blocked in time").isNegative();
                Thread.onSpinWait();
            }
            long offered = System.nanoTime();
            assertThat(q.offer(id, "v", Duration.ZERO)).isTrue();
            long ms = TimeUnit.NANOSECONDS.toMillis(consumer.get(10, TimeUnit.SECONDS) - offered);
            // The signal wakes it; without the signal it would sleep out the one-minute recheck. The bound is generous
            // for a loaded 2-core machine and still sixty times shorter than the recheck.
            assertThat(ms).as("ms from offer to delivery").isLessThan(1_000);
        }
    }

    @Test
    void aPauseHoldsThePartitionsOnEveryMasterAndResumeWakesABlockedConsumer() throws Exception {
        String name = "paused";
        Set<RedisServerProcess> masters = mastersOf(name, 6);
        try (RedisDelayedQueue<String> operator = RedisDelayedQueue.builder(client, name, Codec.string())
                .partitions(6).build();
             RedisDelayedQueue<String> consumer = RedisDelayedQueue.builder(client, name, Codec.string())
                .partitions(6).recheckInterval(Duration.ofMinutes(1)).build()) {
            operator.pause();
            for (int i = 0; i < 30; i++) {
                operator.offer("m" + i, Duration.ZERO);
            }
            for (int p = 0; p < 6; p++) {
                String key = KeyLayout.prefix(name, p) + "paused";
                RedisServerProcess home = cluster.masterForSlot(SlotHash.getSlot(key.getBytes(StandardCharsets.UTF_8)));
                assertThat(masters).contains(home);
                assertThat(home.call("EXISTS", key)).as("partition %d's flag on its master", p).isEqualTo(1L);
            }
            assertThat(consumer.isPaused()).isTrue();
            assertThat(consumer.poll(30, Duration.ZERO)).isEmpty();
            Future<Integer> blocked = background.submit(() -> consumer.poll(30, Duration.ofSeconds(30)).size());
            RedisServerProcess signalHome = cluster.masterForSlot(SlotHash.getSlot(
                    (KeyLayout.prefix(name, 0) + "signal").getBytes(StandardCharsets.UTF_8)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!((String) signalHome.call("INFO", "clients")).contains("blocked_clients:1")) {
                assertThat(System.nanoTime() - deadline).as("consumer blocked in time").isNegative();
                Thread.onSpinWait();
            }
            assertThat(blocked.isDone()).as("a paused queue delivers nothing").isFalse();
            long resumed = System.nanoTime();
            operator.resume();
            int first = blocked.get(10, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed)).as("woken by resume, in ms")
                    .isLessThan(1_000);
            int total = first;
            for (int polls = 0; polls < 100 && total < 30; polls++) {
                total += consumer.poll(30, Duration.ofSeconds(1)).size(); // a batch poll does not wait to fill up
            }
            assertThat(total).isEqualTo(30);
        }
    }

    @Test
    void batchesSpreadOverTheMastersAndBlockedBatchPollersWakeForEveryOne() throws Exception {
        // A re-check interval of a minute: a lost wake-up (e.g. one coalesced away wrongly) fails the time limit.
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, "batch-wake", Codec.string())
                .partitions(6).recheckInterval(Duration.ofMinutes(1)).build()) {
            int batches = 20;
            int perBatch = 30;
            int total = batches * perBatch;
            Map<String, Integer> received = new ConcurrentHashMap<>();
            List<Future<Void>> consumers = java.util.stream.IntStream.range(0, 3).mapToObj(i ->
                    background.submit(() -> {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (received.size() < total && System.nanoTime() - deadline < 0) {
                            List<Delivery<String>> got = q.poll(50, Duration.ofMillis(500));
                            got.forEach(d -> received.merge(d.id(), 1, Integer::sum));
                            assertThat(q.ackAll(got)).hasSize(got.size()).allMatch(acked -> acked);
                        }
                        return (Void) null;
                    })).collect(Collectors.toList());
            List<Future<List<String>>> producers = java.util.stream.IntStream.range(0, 2).mapToObj(t ->
                    background.submit(() -> {
                        List<String> ids = new java.util.ArrayList<>();
                        for (int b = 0; b < batches / 2; b++) {
                            List<String> values = java.util.Collections.nCopies(perBatch, "v" + t);
                            ids.addAll(q.offerAll(values, Duration.ofMillis(b % 3 * 10)));
                        }
                        return ids;
                    })).collect(Collectors.toList());
            Set<String> offered = new HashSet<>();
            for (Future<List<String>> p : producers) {
                offered.addAll(p.get(30, TimeUnit.SECONDS));
            }
            assertThat(offered).hasSize(total);
            long start = System.nanoTime();
            for (Future<Void> c : consumers) {
                c.get(40, TimeUnit.SECONDS);
            }
            assertThat(received.keySet()).isEqualTo(offered);
            assertThat(received.values()).allMatch(n -> n == 1);
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).as("s to drain")
                    .isLessThan(20);
            assertThat(q.stats().total()).isZero();
            long[] signals = q.signalCounts();
            assertThat(signals[0]).as("signal.lua calls from partitions outside the signal's slot").isPositive();
        }
    }

    @Test
    void theCompactStoreWorksInEveryPartitionsSlot() throws Exception {
        // Its chunks and index shards are named by the scripts, not in KEYS: they share the partition's hash tag, so
        // the masters serve them in the script's own slot.
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, "compact", Codec.string())
                .partitions(6).compactAfter(Duration.ZERO).recheckInterval(Duration.ofMinutes(1)).build()) {
            List<String> soon = q.offerAll(java.util.Collections.nCopies(300, "soon"), Duration.ofMillis(1_500));
            List<String> far = new java.util.ArrayList<>();
            for (int i = 0; i < 60; i++) {
                String id = "far-" + i;
                q.offer(id, "far", Duration.ofHours(1));
                far.add(id);
            }
            assertThat(q.stats().delayed()).isEqualTo(360);
            for (int i = 0; i < 60; i += 2) {
                assertThat(q.cancel(far.get(i))).as(far.get(i)).isTrue();
            }
            assertThat(q.reschedule("far-1", Duration.ZERO)).isTrue();
            Set<String> expected = new HashSet<>(soon);
            expected.add("far-1");
            Set<String> received = new HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (received.size() < expected.size() && System.nanoTime() - deadline < 0) {
                List<Delivery<String>> got = q.poll(100, Duration.ofMillis(500));
                got.forEach(d -> received.add(d.id()));
                q.ackAll(got);
            }
            assertThat(received).isEqualTo(expected);
            assertThat(q.stats().delayed()).isEqualTo(29);
            assertThat(q.stats().lost()).isZero();
            q.delete();
        }
    }

    @Test
    void buildChecksTheEvictionPolicyOfEveryMaster() {
        RedisServerProcess third = cluster.node(2);
        third.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
        try {
            assertThatThrownBy(() -> RedisDelayedQueue.builder(client, "evicting-master", Codec.string())
                    .partitions(3).build())
                    .isInstanceOf(RedisQueueException.class)
                    .hasMessageContaining(third.port() + " has maxmemory-policy allkeys-lfu")
                    .hasMessageContaining("noeviction");
            try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, "evicting-master", Codec.string())
                    .partitions(3).allowEvictingServer().build()) {
                assertThat(q.partitions()).isEqualTo(3);
            }
        } finally {
            third.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        }
    }
}
