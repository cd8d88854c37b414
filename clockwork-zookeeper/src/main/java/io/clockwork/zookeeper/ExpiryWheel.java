package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;
import io.clockwork.time.Ticker;
import io.clockwork.engine.MpscInbox;
import io.clockwork.engine.TimingWheel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * ZooKeeper-style interval buckets on the engine's {@link TimingWheel}, under {@code SessionTrackerImpl}. Thread-safe:
 * touches are lock-free, polls serialise on a lock of their own that touches never take.
 *
 * <h2>Design</h2>
 * Deadlines are rounded up to interval boundaries by an {@link IntervalClock}, and the wheel's tick is the interval,
 * so a wheel bucket is a ZooKeeper bucket; but the wheel holds a fixed number of buckets whatever the timeouts, and
 * skips empty ones.
 * <ul>
 *   <li><b>Lazy touches.</b> A node is filed at a time no later than its expiry. A touch that moves the expiry
 *       later only CASes the node's state; when the bucket the node is filed in comes due, the poll re-files it at
 *       its current expiry. A touch that moves it <i>earlier</i> (a smaller timeout) queues the node so the next
 *       poll re-files it first; that is rare and allowed to allocate.</li>
 *   <li><b>Hand-off.</b> New nodes reach the single-owner wheel through the engine's lock-free
 *       {@link MpscInbox}; only the poll, under {@link #pollLock}, touches the wheel.</li>
 *   <li><b>Expiry is a CAS</b> from live to expired, so a concurrent touch either keeps the node alive or fails.</li>
 *   <li><b>Storms cost little at poll time.</b> Nodes that reach the poller through the inbox already due (every
 *       node, when polls are further apart than the timeouts) are expired on arrival, never linked into the wheel;
 *       the face returns them in a list, not a hashed set.</li>
 *   <li><b>Removal is lazy</b>: a removed node stays linked until its bucket comes due, and the wheel is purged when
 *       removed nodes could be half of it, so memory stays proportional to the live nodes.</li>
 * </ul>
 *
 * @param <N> the node type
 */
final class ExpiryWheel<N extends ExpiryNode> {

    /** Returned by {@link #touch} when the expiry did not change. */
    static final long UNCHANGED = 0L;
    /** Returned by {@link #touch} when the node is removed, closing, or expired. */
    static final long REJECTED = -1L;

    private static final long NANOS_PER_MILLI = IntervalClock.NANOS_PER_MILLI;
    private static final int WHEEL_SIZE = 64;

    private final IntervalClock clock;
    private final ReentrantLock pollLock = new ReentrantLock();
    private final TimingWheel<N> wheel;                   // guarded by pollLock
    private final MpscInbox<N> inbox = new MpscInbox<>();
    private final ConcurrentLinkedQueue<N> movedEarlier = new ConcurrentLinkedQueue<>();
    private final AtomicLong removals = new AtomicLong();

    ExpiryWheel(int intervalMs, Ticker ticker) {
        this.clock = new IntervalClock(intervalMs, ticker);
        this.wheel = new TimingWheel<>(intervalMs * NANOS_PER_MILLI, WHEEL_SIZE, clock.origin());
    }

    long intervalMillis() {
        return clock.intervalMillis();
    }

    /** Milliseconds elapsed since this wheel's origin: the unit of node states. */
    long nowMillis() {
        return clock.nowMillis();
    }

    /** The ticker's time in milliseconds now: the unit callers see. */
    long currentTime() {
        return clock.currentTime();
    }

    /** The expiry time of something touched now with the given timeout. */
    long expiryAfter(int timeoutMs) {
        return clock.expiryAfter(timeoutMs);
    }

    /** Hands a new node, already published in the face's map, to the poller. */
    void file(N node) {
        inbox.offer(node);
    }

    /**
     * Marks a node, just unlinked from its face's table, removed. A live node may still be filed in the wheel or the
     * inbox, so it counts towards the next purge; an expired one is in neither.
     *
     * @return the expiry time it had, or -1 if it was removed already
     */
    long removed(N node) {
        long previous = node.markRemoved();
        if (ExpiryNode.isLive(previous)) {
            removals.incrementAndGet();
        }
        return ExpiryNode.expiryOf(previous);
    }

    /**
     * Moves a node's expiry. An expired node stays expired (a session, once expired, is never touched back to life).
     *
     * @return the new expiry, {@link #UNCHANGED}, or {@link #REJECTED} if the node is removed, closing or expired
     */
    long touch(N node, long newExpiry) {
        while (true) {
            long s = node.state();
            if (s <= 0 || (s & ExpiryNode.CLOSING) != 0) {
                return REJECTED;
            }
            if (s == newExpiry) {
                return UNCHANGED;
            }
            if (node.casState(s, newExpiry)) {
                if (newExpiry < s) {
                    movedEarlier.offer(node); // filed too late now: the next poll re-files it
                }
                return newExpiry;
            }
        }
    }

    /** Milliseconds until the next interval boundary is due, or 0 if it has passed (ZooKeeper's getWaitTime). */
    long waitTimeMillis() {
        return clock.waitTimeMillis();
    }

    /** The ticker reading of the next boundary not yet reached, for a driver that wakes the poller there. */
    long nextExpirationReading() {
        return clock.nextExpirationReading();
    }

    /**
     * Expires every node whose expiry has passed, however many intervals late the caller is, and returns them once.
     *
     * @return the newly expired nodes, empty if the next boundary is not yet due
     */
    List<N> poll() {
        pollLock.lock();
        try {
            long reading = clock.read();
            long nowMs = clock.millisAt(reading);
            if (nowMs < clock.nextExpirationTime()) {
                return List.of();
            }
            List<N> expired = new ArrayList<>();
            fileWaiting(nowMs, expired);
            wheel.advance(reading, node -> onDue(node, nowMs, expired));
            clock.reached(nowMs);
            return expired;
        } finally {
            pollLock.unlock();
        }
    }

    private void fileWaiting(long nowMs, List<N> expired) {
        // A node due already is expired here rather than filed and unlinked again at once: in an expiry storm every
        // node arrives this way when polls are further apart than the timeouts.
        inbox.drain(node -> onDue(node, nowMs, expired));
        N node;
        while ((node = movedEarlier.poll()) != null) {
            // An unlinked live node is still in the inbox, and will be filed at its current expiry anyway.
            long s = node.state();
            if (node.isLinked() && ExpiryNode.isLive(s)) {
                long expiryNanos = (s & ExpiryNode.EXPIRY_MASK) * NANOS_PER_MILLI;
                if (node.deadline() > expiryNanos) {
                    wheel.remove(node);
                    node.deadline(expiryNanos);
                    wheel.schedule(node);
                }
            }
        }
        long removed = removals.get();
        if (TimingWheel.worthPurging(removed, wheel.size())) {
            removals.addAndGet(-removed);
            wheel.removeIf(n -> n.state() == ExpiryNode.REMOVED);
        }
    }

    private void onDue(N node, long nowMs, List<N> expired) {
        while (true) {
            long s = node.state();
            if (!ExpiryNode.isLive(s)) {
                return; // removed while filed: dropped here
            }
            long expiry = s & ExpiryNode.EXPIRY_MASK;
            if (expiry > nowMs) {
                schedule(node, expiry); // touched since it was filed: re-file, lazily
                return;
            }
            if (node.casState(s, -expiry)) {
                expired.add(node);
                return;
            }
        }
    }

    private void schedule(N node, long expiryMs) {
        node.deadline(expiryMs * NANOS_PER_MILLI);
        wheel.schedule(node);
    }

    /**
     * A snapshot of expiry time (the ticker's milliseconds) to live nodes, sorted by time; O(n), for diagnostics.
     */
    <X> Map<Long, Set<X>> snapshot(NodeTable<N> nodes, Function<N, X> view, Supplier<Set<X>> setFactory) {
        Map<Long, Set<X>> map = new TreeMap<>();
        nodes.forEach(node -> {
            long s = node.state();
            if (ExpiryNode.isLive(s)) {
                long time = clock.timeAt(s & ExpiryNode.EXPIRY_MASK);
                map.computeIfAbsent(time, t -> setFactory.get()).add(view.apply(node));
            }
        });
        return map;
    }
}
