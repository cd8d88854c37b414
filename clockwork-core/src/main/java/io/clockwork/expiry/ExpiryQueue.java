package io.clockwork.expiry;

import io.clockwork.time.Ticker;
import java.io.PrintWriter;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Elements in time-sorted, fixed-width expiry buckets, with the API and semantics of ZooKeeper's
 * {@code org.apache.zookeeper.server.ExpiryQueue}. Thread-safe.
 *
 * <p>An element updated at time {@code t} with timeout {@code timeout} expires at
 * {@code ((t + timeout) / interval + 1) * interval}; {@link #poll()} returns it once, at the first call at or after
 * that time. As in ZooKeeper, a polled element stays known to the queue (so {@link #remove} still reports its expiry
 * time) until it is removed or updated again, which re-tracks it.
 *
 * <h2>Design</h2>
 * One node per element that is at once the entry of a lock-free-read hash table ({@code NodeTable}) and an intrusive
 * node of the engine's timing wheel (see {@code ExpiryWheel}): an update that keeps the element's bucket is one
 * table lookup; one that moves it later is that plus a CAS on the node, with no bucket sets to add to or remove
 * from, and no lock shared with other updates. About 52 bytes per element (the node and a table slot) against
 * ZooKeeper's 115. Unlike ZooKeeper's:
 * <ul>
 *   <li>{@link #updateExpiry} and {@link #removeExpiry} return primitives, so the hot path allocates nothing;</li>
 *   <li>no empty bucket is ever kept, and the number of buckets is fixed whatever the timeouts;</li>
 *   <li>a caller late by several intervals gets every due element from one {@code poll()}, and then waits for the
 *       next boundary after now, instead of draining one (possibly empty) bucket per call;</li>
 *   <li>times are milliseconds on the queue's own timeline, which starts at zero when it is created (ZooKeeper uses
 *       the process-wide elapsed-time clock); {@link #currentTime()} reads it;</li>
 *   <li>{@link #getExpiryMap()} is a sorted snapshot, not a live view.</li>
 * </ul>
 *
 * @param <E> the element type; elements are compared with {@code equals} and {@code hashCode}
 */
public final class ExpiryQueue<E> {

    /** Returned by {@link #updateExpiry} when the expiry did not change, and by {@link #removeExpiry} when absent. */
    public static final long NONE = -1L;

    private final NodeTable<Node<E>> elements = new NodeTable.ForExpiryNodes<>();
    private final ExpiryWheel<Node<E>> wheel;

    /**
     * Creates a queue on the system ticker.
     *
     * @param expirationInterval the bucket width in milliseconds, at least 1
     * @throws IllegalArgumentException if {@code expirationInterval} is less than 1
     */
    public ExpiryQueue(int expirationInterval) {
        this(expirationInterval, Ticker.system());
    }

    /**
     * Creates a queue that reads time from the given ticker.
     *
     * @param expirationInterval the bucket width in milliseconds, at least 1
     * @param ticker             the time source
     * @throws IllegalArgumentException if {@code expirationInterval} is less than 1
     */
    public ExpiryQueue(int expirationInterval, Ticker ticker) {
        this.wheel = new ExpiryWheel<>(expirationInterval, ticker);
    }

    /**
     * Adds the element or moves its expiry to {@code timeout} from now, rounded up to the next bucket boundary.
     *
     * @param elem    the element
     * @param timeout the timeout in milliseconds, at least 1
     * @return the new expiry time, or {@code null} if the element stays in the bucket it was in
     */
    public Long update(E elem, int timeout) {
        long expiry = updateExpiry(elem, timeout);
        return expiry == NONE ? null : expiry;
    }

    /**
     * Like {@link #update} without boxing.
     *
     * @param elem    the element
     * @param timeout the timeout in milliseconds, at least 1
     * @return the new expiry time, or {@link #NONE} if the element stays in the bucket it was in
     */
    public long updateExpiry(E elem, int timeout) {
        Objects.requireNonNull(elem, "elem");
        checkTimeout(timeout);
        long expiry = wheel.expiryAfter(timeout);
        int hash = NodeTable.hash(elem.hashCode());
        while (true) {
            Node<E> node = elements.get(elem, hash);
            if (node == null) {
                Node<E> created = new Node<>(elem, expiry, hash);
                node = elements.putIfAbsent(created);
                if (node == null) {
                    wheel.file(created);
                    return expiry;
                }
            }
            long result = wheel.touch(node, expiry, true);
            if (result == ExpiryWheel.UNCHANGED) {
                return NONE;
            }
            if (result != ExpiryWheel.REJECTED) {
                return result;
            }
            elements.remove(node); // removed concurrently: help unlink it, then add afresh
        }
    }

    /**
     * Removes the element.
     *
     * @param elem the element
     * @return the time at which it was set to expire, or {@code null} if it was not present
     */
    public Long remove(E elem) {
        long expiry = removeExpiry(elem);
        return expiry == NONE ? null : expiry;
    }

    /**
     * Like {@link #remove} without boxing.
     *
     * @param elem the element
     * @return the time at which it was set to expire, or {@link #NONE} if it was not present
     */
    public long removeExpiry(E elem) {
        Objects.requireNonNull(elem, "elem");
        int hash = NodeTable.hash(elem.hashCode());
        for (Node<E> node; (node = elements.get(elem, hash)) != null; ) {
            if (elements.remove(node)) {
                return wheel.removed(node);
            }
        }
        return NONE;
    }

    /**
     * Returns how long until the next bucket boundary.
     *
     * @return milliseconds until the next expiration time, or 0 if it has already passed
     */
    public long getWaitTime() {
        return wheel.waitTimeMillis();
    }

    /**
     * Returns the elements that have expired since the last poll, each once. A caller late by several intervals
     * gets all of them in one set.
     *
     * @return the expired elements (a new set the caller owns), or an empty set if the next boundary is not due
     */
    public Set<E> poll() {
        List<Node<E>> expired = wheel.poll();
        if (expired.isEmpty()) {
            return Collections.emptySet();
        }
        Object[] elems = new Object[expired.size()];
        for (int i = 0; i < elems.length; i++) {
            elems[i] = expired.get(i).elem;
        }
        return new PolledSet<>(elems);
    }

    /**
     * Returns the current time on this queue's timeline, the one expiry times are expressed in.
     *
     * @return milliseconds since the queue was created
     */
    public long currentTime() {
        return wheel.nowMillis();
    }

    /**
     * Returns a snapshot of expiry time to the elements due then, sorted by time; elements already polled are not
     * in it. O(n): for diagnostics.
     *
     * @return an unmodifiable snapshot
     */
    public Map<Long, Set<E>> getExpiryMap() {
        return Collections.unmodifiableMap(ExpiryWheel.snapshot(elements, n -> n.elem, HashSet::new));
    }

    /**
     * Prints the buckets and their elements, in ZooKeeper's format, with times on this queue's timeline.
     *
     * @param pwriter where to print
     */
    public void dump(PrintWriter pwriter) {
        Objects.requireNonNull(pwriter, "pwriter");
        dump(pwriter, getExpiryMap(), elements.size());
    }

    static <X> void dump(PrintWriter pwriter, Map<Long, Set<X>> buckets, int elementCount) {
        pwriter.print("Sets (");
        pwriter.print(buckets.size());
        pwriter.print(")/(");
        pwriter.print(elementCount);
        pwriter.println("):");
        for (Map.Entry<Long, Set<X>> bucket : buckets.entrySet()) {
            pwriter.print(bucket.getValue().size());
            pwriter.print(" expire at ");
            pwriter.print(bucket.getKey());
            pwriter.println(" ms:");
            for (X elem : bucket.getValue()) {
                pwriter.print("\t");
                pwriter.println(elem);
            }
        }
    }

    static void checkTimeout(int timeout) {
        if (timeout < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 ms, was " + timeout);
        }
    }

    @Override
    public String toString() {
        return "ExpiryQueue[interval=" + wheel.intervalMillis() + "ms, elements=" + elements.size() + "]";
    }

    /** The wheel node and table entry of one element. */
    private static final class Node<E> extends ExpiryNode {
        final E elem;

        Node(E elem, long expiry, int hash) {
            super(expiry, hash);
            this.elem = elem;
        }

        @Override
        boolean hasKey(Object key) {
            return key == elem || key.equals(elem);
        }

        @Override
        boolean sameKey(ExpiryNode other) {
            return other.hasKey(elem);
        }
    }
}
