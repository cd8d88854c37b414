package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisCluster;
import io.clockwork.redis.fixture.RedisClusterExtension;
import io.clockwork.redis.fixture.RedisClusterOptions;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import static io.clockwork.redis.Reliability.hold;
import static io.clockwork.redis.Reliability.millis;
import static io.clockwork.redis.Reliability.report;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue split into 6 partitions over a 3-master Redis Cluster (AOF, {@code appendfsync always}; the fixture runs
 * {@code cluster-require-full-coverage no}, so that the masters left keep serving their slots). Under steady load
 * the master holding partition 0 (which also holds the wake-up signal) is killed with {@code SIGKILL} for 4 s, well
 * past the {@code cluster-node-timeout} of 2 s, and restarted on its directory. Meanwhile the other masters'
 * partitions keep delivering; once it is back, every offer that returned is delivered and no ack is undone.
 */
@ExtendWith(RedisClusterExtension.class)
@RedisClusterOptions(appendOnly = true)
class RedisQueueClusterFaultIT {

    private static final int PARTITIONS = 6;

    private final RedisCluster cluster;

    RedisQueueClusterFaultIT(RedisCluster cluster) {
        this.cluster = cluster;
    }

    @Test
    void otherMastersKeepDeliveringWhileOneIsDownAndNothingIsLostWhenItReturns() throws Exception {
        String name = "cluster-fault";
        RedisServerProcess[] home = new RedisServerProcess[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            home[p] = cluster.masterForSlot(SlotHash.getSlot(
                    (KeyLayout.prefix(name, p) + "pending").getBytes(StandardCharsets.UTF_8)));
        }
        RedisServerProcess victim = home[0];
        Set<Integer> victimPartitions = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            if (home[p] == victim) {
                victimPartitions.add(p);
            }
        }
        assertThat(new HashSet<>(List.of(home))).as("masters holding partitions").hasSize(3);

        // As a user would configure a cluster client: fail fast (no buffering) while a node is unreachable.
        RedisClusterClient client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create)
                .toList());
        client.setOptions(ClusterClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        PartitionSelector selector = new PartitionSelector(PARTITIONS);
        ExecutorService threads = Executors.newCachedThreadPool();
        List<RedisDelayedQueue<String>> queues = new ArrayList<>();
        try {
            Set<String> stored = ConcurrentHashMap.newKeySet();
            Set<String> acked = ConcurrentHashMap.newKeySet();
            Map<String, Integer> deliveries = new ConcurrentHashMap<>();
            Set<String> ackedBeforeKill = ConcurrentHashMap.newKeySet();
            // Delivered once the kill began: a message acked before it must not be among them (one delivered twice
            // before the kill, its first lease having run out under load, is at-least-once, not a loss of an ack).
            Set<String> deliveredSinceKill = ConcurrentHashMap.newKeySet();
            AtomicBoolean killed = new AtomicBoolean();
            AtomicIntegerArray ackedPerPartition = new AtomicIntegerArray(PARTITIONS);
            AtomicInteger failedOffers = new AtomicInteger();
            AtomicInteger failedPolls = new AtomicInteger();
            AtomicInteger failedAcks = new AtomicInteger();
            // Acks that threw: the script may have run before the master died (then the message is gone and never
            // delivered again) or not (then it comes back after the visibility timeout and is acked later).
            Set<String> ackOutcomeUnknown = ConcurrentHashMap.newKeySet();
            AtomicBoolean down = new AtomicBoolean();
            AtomicBoolean stopProducing = new AtomicBoolean();
            AtomicBoolean stopConsuming = new AtomicBoolean();
            List<Future<?>> producers = new ArrayList<>();
            List<Future<?>> consumers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                RedisDelayedQueue<String> q = queue(client, name);
                queues.add(q);
                int n = t;
                producers.add(threads.submit(() -> {
                    for (int i = 0; !stopProducing.get(); i++) {
                        try {
                            stored.add(q.offer("o" + n + "-" + i, Duration.ofMillis(i % 4 * 50)));
                        } catch (RedisQueueException e) {
                            failedOffers.incrementAndGet(); // its partition's master is down: outcome unknown
                            LockSupport.parkNanos(1_000_000); // an application's backoff before its next offer
                        }
                    }
                    return null;
                }));
            }
            for (int t = 0; t < 2; t++) {
                RedisDelayedQueue<String> q = queue(client, name);
                queues.add(q);
                consumers.add(threads.submit(() -> {
                    while (!stopConsuming.get()) {
                        Delivery<String> d;
                        try {
                            d = q.poll(Duration.ofMillis(100));
                        } catch (RedisQueueException e) {
                            failedPolls.incrementAndGet();
                            LockSupport.parkNanos(1_000_000);
                            continue;
                        }
                        if (d == null) {
                            continue;
                        }
                        deliveries.merge(d.id(), 1, Integer::sum);
                        boolean beforeKill = !killed.get();
                        if (!beforeKill) {
                            deliveredSinceKill.add(d.id());
                        }
                        try {
                            if (d.ack()) {
                                acked.add(d.id());
                                ackedPerPartition.incrementAndGet(selector.partitionOf(d.id()));
                                if (beforeKill && !down.get()) {
                                    ackedBeforeKill.add(d.id());
                                }
                            }
                        } catch (RedisQueueException e) {
                            failedAcks.incrementAndGet();
                            ackOutcomeUnknown.add(d.id());
                        }
                    }
                    return null;
                }));
            }

            Await.until("every partition delivers", Duration.ofSeconds(30), () -> {
                for (int p = 0; p < PARTITIONS; p++) {
                    if (ackedPerPartition.get(p) < 100) {
                        return false;
                    }
                }
                return true;
            });
            int[] beforeKill = snapshot(ackedPerPartition);
            killed.set(true);
            victim.kill();
            down.set(true);
            long killedAt = System.nanoTime();
            hold(Duration.ofSeconds(4));
            int[] whileDown = snapshot(ackedPerPartition);
            long downNanos = System.nanoTime() - killedAt;
            int deliveredWhileDown = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                if (!victimPartitions.contains(p)) {
                    assertThat(whileDown[p] - beforeKill[p]).as("partition %d delivers while %s is down", p,
                            victim.uri()).isGreaterThan(50);
                    deliveredWhileDown += whileDown[p] - beforeKill[p];
                }
            }
            int storedAtRestart = stored.size();
            long restartStart = System.nanoTime();
            cluster.restart(victim); // same port, directory, node id and slots; AOF replayed
            long restartNanos = System.nanoTime() - restartStart;
            down.set(false);
            int[] restarted = snapshot(ackedPerPartition);
            Await.until("the victim's partitions deliver again", Duration.ofSeconds(30), () -> {
                for (int p : victimPartitions) {
                    if (ackedPerPartition.get(p) <= restarted[p]) {
                        return false;
                    }
                }
                return true;
            });
            long recoveredNanos = System.nanoTime() - restartStart;
            stopProducing.set(true);
            for (Future<?> f : producers) {
                f.get(30, TimeUnit.SECONDS);
            }
            Await.until("every offer that returned is acked, or had an ack of unknown outcome", Duration.ofSeconds(60),
                    () -> stored.stream().allMatch(id -> acked.contains(id) || ackOutcomeUnknown.contains(id)));
            StatefulRedisClusterConnection<String, String> redis = client.connect();
            // A message whose failed ack did not run is delivered again within the 2 s visibility timeout.
            Set<String> unacked = new HashSet<>(stored);
            unacked.removeAll(acked);
            Await.until("messages whose failed ack did not run are delivered again", Duration.ofSeconds(10),
                    () -> unacked.stream().allMatch(id -> acked.contains(id) || !exists(redis, name, selector, id)));
            stopConsuming.set(true);
            for (Future<?> f : consumers) {
                f.get(30, TimeUnit.SECONDS);
            }

            unacked.removeAll(acked);
            assertThat(ackOutcomeUnknown).as("never acked: only messages whose ack ran but failed to answer")
                    .containsAll(unacked);
            for (String id : unacked) {
                assertThat(exists(redis, name, selector, id)).as("%s, acked by a failed ack, is gone", id).isFalse();
            }
            redis.close();
            // A partition that answered "nothing due" a moment ago counts as answering: polls fail only when no
            // master answers, never because one is down while the others' partitions are empty.
            assertThat(failedPolls.get()).as("polls that failed while one master was down").isZero();
            assertThat(ackedBeforeKill).as("acked before the kill, never delivered again")
                    .doesNotContainAnyElementsOf(deliveredSinceKill);
            long redelivered = deliveries.values().stream().filter(n -> n > 1).count();
            report("RedisQueueClusterFaultIT", "6 partitions on 3 masters (%d on the victim, incl. partition 0 and "
                    + "the signal); victim down %d ms: other masters' partitions acked %d meanwhile (%.0f/s); "
                    + "restart + cluster ok in %d ms, its partitions delivering again %d ms after the restart "
                    + "began; %d offers returned (%d by the restart), all acked; %d offers failed while down "
                    + "(outcome unknown), %d polls failed, %d acks failed (%d of them ran: message gone); "
                    + "%d redelivered; 0 acks undone",
                    victimPartitions.size(), millis(downNanos), deliveredWhileDown,
                    deliveredWhileDown * 1e9 / downNanos, millis(restartNanos), millis(recoveredNanos),
                    stored.size(), storedAtRestart, failedOffers.get(), failedPolls.get(), failedAcks.get(),
                    unacked.size(), redelivered);
        } finally {
            threads.shutdownNow();
            queues.forEach(RedisDelayedQueue::close);
            client.shutdown();
        }
    }

    /** Whether the queue still holds a message in any state: its partition's {@code meta} hash has its id. */
    private static boolean exists(StatefulRedisClusterConnection<String, String> redis, String name,
                                  PartitionSelector selector, String id) {
        return redis.sync().hexists(KeyLayout.prefix(name, selector.partitionOf(id)) + "meta", id);
    }

    private static RedisDelayedQueue<String> queue(RedisClusterClient client, String name) {
        return RedisDelayedQueue.builder(client, name, Codec.string()).partitions(PARTITIONS)
                .commandTimeout(Duration.ofMillis(500)).visibilityTimeout(Duration.ofSeconds(2)).build();
    }

    private static int[] snapshot(AtomicIntegerArray a) {
        int[] s = new int[a.length()];
        for (int i = 0; i < s.length; i++) {
            s[i] = a.get(i);
        }
        return s;
    }
}
