package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;
import io.clockwork.zookeeper.NodeTableProperties.LongNode;
import io.clockwork.zookeeper.NodeTableProperties.ObjectNode;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Writers insert and remove keys of their own, growing {@link NodeTable} from its smallest size through many
 * doublings, while readers look up keys that are present all along and keys that never are: a lookup must never miss
 * a present key (the hazard of moving nodes under readers) nor find an absent one, and at the end the table holds
 * exactly what the writers left.
 */
class NodeTableStressTest {

    private static final int WRITERS = 3;
    private static final int READERS = 2;
    private static final int PER_WRITER = 60_000;
    private static final int STABLE = 512;

    @Test
    void lookupsNeverMissPresentKeysWhileTheTableGrows() throws Exception {
        NodeTable<LongNode> table = new ExpiryNodeTable<>();
        for (long k = 0; k < STABLE; k++) {
            table.putIfAbsent(new LongNode(-1 - k)); // negative: never a writer's key
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        CyclicBarrier start = new CyclicBarrier(WRITERS + READERS);
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            threads.add(new Thread(() -> {
                await(start);
                long lookups = 0;
                while (!done.get() || lookups < 100_000) {
                    long k = -1 - (lookups % STABLE);
                    if (table.get(k, NodeTable.hash(k)) == null) {
                        violation.compareAndSet(null, "missed present key " + k);
                    }
                    long absent = Long.MIN_VALUE + lookups;
                    if (table.get(absent, NodeTable.hash(absent)) != null) {
                        violation.compareAndSet(null, "found absent key " + absent);
                    }
                    lookups++;
                }
            }));
        }
        for (int w = 0; w < WRITERS; w++) {
            long base = (long) w * PER_WRITER;
            threads.add(new Thread(() -> {
                await(start);
                for (long k = base; k < base + PER_WRITER; k++) {
                    LongNode node = new LongNode(k);
                    if (table.putIfAbsent(node) != null) {
                        violation.compareAndSet(null, "key " + k + " present before its insertion");
                    }
                    if (table.get(k, NodeTable.hash(k)) != node) {
                        violation.compareAndSet(null, "own key " + k + " not found after insertion");
                    }
                    if (k % 3 == 0 && !table.remove(node)) {
                        violation.compareAndSet(null, "own key " + k + " not removed");
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (int i = READERS; i < threads.size(); i++) {
            threads.get(i).join();
        }
        done.set(true);
        for (Thread t : threads) {
            t.join();
        }

        assertThat(violation.get()).isNull();
        Set<Long> expected = new HashSet<>();
        for (long k = 0; k < STABLE; k++) {
            expected.add(-1 - k);
        }
        for (long k = 0; k < (long) WRITERS * PER_WRITER; k++) {
            if (k % 3 != 0) {
                expected.add(k);
            }
        }
        Set<Long> actual = new HashSet<>();
        table.forEach(n -> actual.add(n.key));
        assertThat(actual).isEqualTo(expected);
        assertThat(table.size()).isEqualTo(expected.size());
        assertThat(table.capacity()).isBetween(expected.size() / 2, 4 * expected.size());
    }

    @Test
    void concurrentInsertionsOfOneKeyKeepOneNode() throws Exception {
        NodeTable<ObjectNode> table = new ExpiryNodeTable<>();
        int keys = 20_000;
        CyclicBarrier start = new CyclicBarrier(WRITERS);
        List<List<ObjectNode>> won = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            List<ObjectNode> mine = new ArrayList<>();
            won.add(mine);
            threads.add(new Thread(() -> {
                await(start);
                for (int k = 0; k < keys; k++) {
                    ObjectNode node = new ObjectNode("k" + k);
                    if (table.putIfAbsent(node) == null) {
                        mine.add(node);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(won.stream().mapToInt(List::size).sum()).isEqualTo(keys);
        assertThat(table.size()).isEqualTo(keys);
        for (List<ObjectNode> mine : won) {
            for (ObjectNode node : mine) {
                assertThat(table.get(node.key, NodeTable.hash(node.key.hashCode()))).isSameAs(node);
            }
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
