package io.clockwork.benchmarks.expiry;

import io.clockwork.zookeeper.ExpiryQueue;
import org.openjdk.jmh.infra.Blackhole;

import java.util.Set;

/**
 * One ExpiryQueue implementation under test, over a fixed array of elements. Thread-safe as far as the queue is.
 *
 * <p>Adapters are thin on purpose: each operation is one call into the rival's public API. Both rivals read the real
 * monotonic clock ({@code System.nanoTime()}): ZooKeeper's {@code Time.currentElapsedTime()} cannot be replaced, so
 * ours runs on {@code Ticker.system()} too, with the same interval and timeout, and both see the same buckets.
 */
abstract class QueueRival {

    final Object[] elements;

    QueueRival(Object[] elements) {
        this.elements = elements;
    }

    /**
     * Opens a rival.
     *
     * @param name       one of {@link ExpiryRivals#QUEUES}
     * @param intervalMs the bucket width
     * @param elements   the elements it will track
     */
    static QueueRival open(String name, int intervalMs, Object[] elements) {
        switch (name) {
            case ExpiryRivals.CLOCKWORK:
                return new Clockwork(intervalMs, elements);
            case ExpiryRivals.CLOCKWORK_PRIMITIVE:
                return new ClockworkPrimitive(intervalMs, elements);
            case ExpiryRivals.ZOOKEEPER:
                return new ZooKeeper(intervalMs, elements);
            default:
                throw ExpiryRivals.unknown("queue", name, ExpiryRivals.QUEUES);
        }
    }

    /** Tracks every element with the given timeout. */
    final void fill(int timeoutMs) {
        for (int i = 0; i < elements.length; i++) {
            touch(i, timeoutMs, null);
        }
    }

    /**
     * Updates element {@code i}.
     *
     * @param hole consumes what the compatible API returns (a {@code Long} or null), so that its boxing is not
     *             optimised away; null while filling
     * @return true if the element moved to another bucket
     */
    abstract boolean touch(int i, int timeoutMs, Blackhole hole);

    /** Removes element {@code i}; true if it was tracked. */
    abstract boolean remove(int i);

    /** Polls the queue. */
    abstract Set<Object> poll();

    /** Milliseconds until the next bucket is due. */
    abstract long waitTime();

    /** The number of non-empty buckets (O(n) for ours: a snapshot). */
    abstract int buckets();

    /** Our ExpiryQueue, compatible methods. */
    static class Clockwork extends QueueRival {
        final ExpiryQueue<Object> queue;

        Clockwork(int intervalMs, Object[] elements) {
            super(elements);
            queue = new ExpiryQueue<>(intervalMs);
        }

        @Override
        boolean touch(int i, int timeoutMs, Blackhole hole) {
            Long expiry = queue.update(elements[i], timeoutMs);
            if (hole != null) {
                hole.consume(expiry);
            }
            return expiry != null;
        }

        @Override
        boolean remove(int i) {
            return queue.remove(elements[i]) != null;
        }

        @Override
        Set<Object> poll() {
            return queue.poll();
        }

        @Override
        long waitTime() {
            return queue.getWaitTime();
        }

        @Override
        int buckets() {
            return queue.getExpiryMap().size();
        }
    }

    /** Our ExpiryQueue, primitive methods. */
    static final class ClockworkPrimitive extends Clockwork {
        ClockworkPrimitive(int intervalMs, Object[] elements) {
            super(intervalMs, elements);
        }

        @Override
        boolean touch(int i, int timeoutMs, Blackhole hole) {
            return queue.updateExpiry(elements[i], timeoutMs) != ExpiryQueue.NONE;
        }

        @Override
        boolean remove(int i) {
            return queue.removeExpiry(elements[i]) != ExpiryQueue.NONE;
        }
    }

    /** ZooKeeper's ExpiryQueue. */
    static final class ZooKeeper extends QueueRival {
        final org.apache.zookeeper.server.ExpiryQueue<Object> queue;

        ZooKeeper(int intervalMs, Object[] elements) {
            super(elements);
            queue = new org.apache.zookeeper.server.ExpiryQueue<>(intervalMs);
        }

        @Override
        boolean touch(int i, int timeoutMs, Blackhole hole) {
            Long expiry = queue.update(elements[i], timeoutMs);
            if (hole != null) {
                hole.consume(expiry);
            }
            return expiry != null;
        }

        @Override
        boolean remove(int i) {
            return queue.remove(elements[i]) != null;
        }

        @Override
        Set<Object> poll() {
            return queue.poll();
        }

        @Override
        long waitTime() {
            return queue.getWaitTime();
        }

        @Override
        int buckets() {
            return queue.getExpiryMap().size();
        }
    }
}
