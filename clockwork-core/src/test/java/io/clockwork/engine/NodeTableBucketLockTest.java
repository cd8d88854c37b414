package io.clockwork.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A writer stalled inside {@link NodeTable} (as a preempted thread is, for a scheduler time slice) holds up no
 * insertion and no lookup, and no removal but those under its own lock: removals of other buckets go on, and a
 * removal under the same lock goes on as soon as the stalled one ends. The stall is made by a table whose
 * {@code chain} store blocks for one chosen node: a store a removal makes while it holds its bucket's lock, and an
 * insertion makes before it publishes its node.
 */
class NodeTableBucketLockTest {

    /** A {@code long}-keyed node. */
    static final class Node {
        final long key;
        final int hash;
        volatile Node next;

        Node(long key) {
            this.key = key;
            this.hash = NodeTable.hash(key);
        }
    }

    /** A table whose writer blocks when it sets the link of {@link #stalled}. */
    static final class StallingTable extends NodeTable<Node> {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile Node stalled;

        @Override
        protected int hashOf(Node node) {
            return node.hash;
        }

        @Override
        protected Node chainOf(Node node) {
            return node.next;
        }

        @Override
        protected void chain(Node node, Node next) {
            if (node == stalled) {
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            node.next = next;
        }

        @Override
        protected boolean hasKey(Node node, long key) {
            return node.key == key;
        }

        @Override
        protected boolean sameKey(Node node, Node other) {
            return node.key == other.key;
        }
    }

    private static final int KEYS = 20_000;

    @Test
    void aStalledRemovalHoldsUpOnlyRemovalsOfItsBucket() throws Exception {
        StallingTable table = new StallingTable();
        for (long k = 0; k < 4 * KEYS; k++) { // grow first, so that the writes below start no resize
            table.putIfAbsent(new Node(-1 - k));
        }
        int capacity = table.capacity();
        assertThat(capacity).isLessThanOrEqualTo(NodeTable.MAX_LOCKS); // a lock per bucket
        Node behind = new Node(keyIn(0, capacity, 1_000_000_000L));
        Node front = new Node(keyIn(0, capacity, behind.key + 1));
        table.putIfAbsent(behind);
        table.putIfAbsent(front); // bucket 0 now starts front, behind, ...
        table.stalled = front; // removing behind rewrites front's link, holding bucket 0's lock
        CompletableFuture<Boolean> stalledRemoval = CompletableFuture.supplyAsync(() -> table.remove(behind));
        assertThat(table.inside.await(10, TimeUnit.SECONDS)).as("removal inside its bucket").isTrue();

        CompletableFuture<Integer> others = CompletableFuture.supplyAsync(() -> {
            int written = 0;
            for (long k = 0; written < KEYS; k++) {
                Node node = new Node(k);
                if ((node.hash & (capacity - 1)) == 0) {
                    continue;
                }
                if (table.putIfAbsent(node) == null && table.get(k, node.hash) == node && table.remove(node)) {
                    written++;
                }
            }
            return written;
        });
        // With a lock per stripe of 1/32 of the buckets, about one key in 32 waits for the stalled removal: this
        // never finishes before the release below.
        assertThat(others.get(30, TimeUnit.SECONDS)).isEqualTo(KEYS);
        Node inserted = new Node(keyIn(0, capacity, front.key + 1));
        assertThat(CompletableFuture.supplyAsync(() -> table.putIfAbsent(inserted)).get(10, TimeUnit.SECONDS))
                .as("insertion into the held bucket").isNull();
        assertThat(table.get(front.key, front.hash)).as("lookup in the held bucket").isSameAs(front);

        CompletableFuture<Boolean> waiting = new CompletableFuture<>();
        Thread remover = new Thread(() -> waiting.complete(table.remove(inserted)), "remover");
        remover.start();
        awaitWaitingForLock(remover);
        assertThat(waiting).as("removal in the held bucket").isNotDone();
        table.release.countDown();
        assertThat(stalledRemoval.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(table.get(behind.key, behind.hash)).isNull();
        assertThat(table.get(inserted.key, inserted.hash)).isNull();
        assertThat(table.get(front.key, front.hash)).isSameAs(front);
        assertThat(table.size()).isEqualTo(4 * KEYS + 1);
    }

    @Test
    void aStalledInsertionHoldsUpNobody() throws Exception {
        StallingTable table = new StallingTable();
        Node slow = new Node(7);
        table.stalled = slow; // its link is set before it is published
        CompletableFuture<Node> stalledInsertion = CompletableFuture.supplyAsync(() -> table.putIfAbsent(slow));
        assertThat(table.inside.await(10, TimeUnit.SECONDS)).isTrue();
        Node neighbour = new Node(keyIn(7 & (table.capacity() - 1), table.capacity(), 8));
        assertThat(CompletableFuture.supplyAsync(() -> table.putIfAbsent(neighbour) == null
                && table.remove(neighbour)).get(10, TimeUnit.SECONDS)).as("writes in the same bucket").isTrue();
        Node rival = new Node(7); // the same key: it wins, and the stalled insertion finds it when it goes on
        assertThat(table.putIfAbsent(rival)).isNull();
        table.release.countDown();
        assertThat(stalledInsertion.get(10, TimeUnit.SECONDS)).isSameAs(rival);
        assertThat(table.get(7L, NodeTable.hash(7L))).isSameAs(rival);
        assertThat(table.size()).isEqualTo(1);
    }

    /** Polls, with a deadline, until the thread is seen inside {@code NodeTable}'s wait for a taken lock. */
    private static void awaitWaitingForLock(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            for (StackTraceElement frame : thread.getStackTrace()) {
                if (frame.getClassName().equals(NodeTable.class.getName()) && frame.getMethodName().equals("lock")) {
                    return;
                }
            }
            assertThat(thread.isAlive()).as("the removal finished instead of waiting").isTrue();
            assertThat(System.nanoTime() - deadline).as("the removal waits for the lock in time").isNegative();
            Thread.onSpinWait();
        }
    }

    /** @return the first key from {@code from} on that falls in the given bucket */
    private static long keyIn(int bucket, int capacity, long from) {
        long k = from;
        while ((NodeTable.hash(k) & (capacity - 1)) != bucket) {
            k++;
        }
        return k;
    }

    @Test
    void clearSendsWritersOnToTheNewTable() {
        StallingTable table = new StallingTable();
        for (long k = 0; k < 1_000; k++) {
            table.putIfAbsent(new Node(k));
        }
        table.clear();
        assertThat(table.size()).isZero();
        assertThat(table.get(5L, NodeTable.hash(5L))).isNull();
        Node again = new Node(5L);
        assertThat(table.putIfAbsent(again)).isNull();
        assertThat(table.get(5L, NodeTable.hash(5L))).isSameAs(again);
        assertThat(table.size()).isEqualTo(1);
        int[] visited = {0};
        table.forEach(n -> visited[0]++);
        assertThat(visited[0]).isEqualTo(1);
    }

    @Test
    void forEachAndClearRunBesideWritersWithoutLosingCount() throws Exception {
        StallingTable table = new StallingTable();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        CompletableFuture<?>[] writers = new CompletableFuture<?>[2];
        for (int w = 0; w < writers.length; w++) {
            long base = (long) w << 40;
            writers[w] = CompletableFuture.runAsync(() -> {
                for (long k = base; System.nanoTime() - until < 0; k++) {
                    Node node = new Node(k);
                    table.putIfAbsent(node);
                    if (k % 2 == 0) {
                        table.remove(node); // false if a clear came between: the count must not move then
                    }
                }
            });
        }
        int passes = 0;
        while (!(writers[0].isDone() && writers[1].isDone())) {
            Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            table.forEach(n -> assertThat(seen.add(n)).as("visited twice: %s", n.key).isTrue());
            if (++passes % 4 == 0) {
                table.clear();
            }
        }
        CompletableFuture.allOf(writers).get(10, TimeUnit.SECONDS);
        int[] visited = {0};
        table.forEach(n -> visited[0]++);
        assertThat(table.size()).isEqualTo(visited[0]);
        assertThat(passes).isPositive();
    }
}
