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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Message groups on a queue spread over a real 3-master Redis Cluster: each group's messages live in its partition,
 * so its in-flight limit holds for every client, and every message is delivered.
 */
@ExtendWith(RedisClusterExtension.class)
class RedisGroupClusterIT {

    private static final int PARTITIONS = 6;
    private static final int GROUPS = 24;
    private static final int PER_GROUP = 8;

    private final RedisCluster cluster;
    private final List<RedisClusterClient> clients = new ArrayList<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "group-cluster-consumer");
        t.setDaemon(true);
        return t;
    });

    RedisGroupClusterIT(RedisCluster cluster) {
        this.cluster = cluster;
    }

    @AfterEach
    void cleanUp() {
        background.shutdownNow();
        clients.forEach(RedisClusterClient::shutdown);
    }

    /** A client of its own, as another process would have. */
    private RedisDelayedQueue<String> client(String name) {
        RedisClusterClient c = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create)
                .collect(Collectors.toList()));
        clients.add(c);
        return RedisDelayedQueue.builder(c, name, Codec.string()).partitions(PARTITIONS)
                .visibilityTimeout(Duration.ofMinutes(1)).maxInFlightPerGroup(1).build();
    }

    private RedisServerProcess masterOf(String name, int p) {
        return cluster.masterForSlot(SlotHash.getSlot((KeyLayout.prefix(name, p) + "pending")
                .getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void threeClientsNeverHoldTwoMessagesOfAGroupAndDeliverEveryOne() throws Exception {
        String name = "group-cluster";
        List<RedisDelayedQueue<String>> consumers = List.of(client(name), client(name), client(name));
        RedisDelayedQueue<String> producer = consumers.get(0);
        Set<Integer> masters = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            masters.add(masterOf(name, p).port());
        }
        assertThat(masters).as("the partitions spread over the masters").hasSize(3);
        Groups placement = new Groups(null, new PartitionSelector(PARTITIONS), PARTITIONS);
        List<Message<String>> batch = new ArrayList<>();
        for (int i = 0; i < PER_GROUP; i++) {
            for (int g = 0; g < GROUPS; g++) {
                batch.add(Message.of("g" + g + ":" + i).group("g" + g));
            }
        }
        List<String> ids = producer.offerAll(batch).stream().map(o -> o.id()).toList();
        for (int i = 0; i < ids.size(); i++) {
            assertThat(producer.routing().of(ids.get(i))).as("message %d in its group's partition", i)
                    .isEqualTo(placement.partitionOf(batch.get(i).group().orElseThrow()));
        }
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        Map<String, Integer> next = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        AtomicInteger acked = new AtomicInteger();
        int total = GROUPS * PER_GROUP;
        List<Future<?>> running = new ArrayList<>();
        for (RedisDelayedQueue<String> q : consumers) {
            running.add(background.submit(() -> {
                while (acked.get() < total) {
                    for (Delivery<String> d : q.poll(4, Duration.ofMillis(200))) {
                        String[] parts = d.value().split(":");
                        if (inFlight.computeIfAbsent(parts[0], g -> new AtomicInteger()).incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        if (next.merge(parts[0], 1, Integer::sum) != Integer.parseInt(parts[1]) + 1) {
                            outOfOrder.incrementAndGet();
                        }
                        inFlight.get(parts[0]).decrementAndGet(); // before the ack frees the group's slot
                        assertThat(d.ack()).isTrue();
                        acked.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get(120, TimeUnit.SECONDS);
        }
        assertThat(overlaps.get()).as("two messages of one group in flight at once").isZero();
        assertThat(outOfOrder.get()).as("a group's messages out of due order").isZero();
        assertThat(acked.get()).isEqualTo(total);
        assertThat(producer.stats().total()).isZero();
        assertThat(producer.largestGroups(10)).isEmpty();
    }
}
