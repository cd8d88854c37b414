package io.clockwork.inprocess;

import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.Message;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.RateLimit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The flow control of the in-process queue's deliveries: which ready message a poll takes next (priority, then the
 * round robin between groups, see {@link FairReady}), and the limits that hold messages back (the queue's rate
 * limit, each group's rate limit and in-flight limit). Not thread-safe: a part of the {@link QueueStore}, guarded by
 * the queue's lock; passive, it takes the ticker reading {@code now} as an argument.
 *
 * <h2>Design</h2>
 * A message's priority and group are read from its headers ({@link Message#PRIORITY_HEADER},
 * {@link Message#GROUP_HEADER}) when it is filed: its priority is kept on it ({@link Item#priority}) until it leaves
 * the queue or dies, and its group is looked up by its key when needed ({@link #groupOf}), the group staying known
 * while it has members. A group at a limit is {@linkplain FairReady#block blocked}: its lanes leave the round
 * robin, so a take never looks at it. A group blocked by its rate limit waits in a heap by the reading its next
 * permit frees at, and is unblocked by the first take at or after it; a group blocked by its in-flight limit is
 * unblocked by the settling (ack, nack, release, death or expiry) of one of its deliveries. The queue's own rate
 * limit is checked before a take. Every step is O(1) or O(log n) in the ready messages and groups.
 */
final class FlowGate {

    /** {@link Item#priority} of a message not filed: its priority is not read and it is no group's member. */
    static final short UNRESOLVED = Short.MIN_VALUE;

    private static final Comparator<GroupBacklog> LARGEST_FIRST = Comparator
            .comparingLong(GroupBacklog::ready).reversed()
            .thenComparing(Comparator.comparingLong(GroupBacklog::inFlight).reversed())
            .thenComparing(GroupBacklog::group);
    private static final Comparator<Group> BY_PERMIT = (a, b) -> Long.signum(a.permitAt - b.permitAt);

    private final QueueStore.Wakeups wakeups;
    private final QueueOptions<?> options;
    private final int maxInFlightPerGroup;
    private final RateLimit groupRate;
    /** The queue's rate limit; null without one. */
    private final SlidingLog queueLog;
    private final Group unnamed;
    private final FairReady ready;
    private final Map<String, Group> groups = new HashMap<>();
    /** Groups waiting for a permit of their rate limit, earliest first. */
    private final PriorityQueue<Group> waiting = new PriorityQueue<>(BY_PERMIT);
    /** Groups without live messages whose rate limit still remembers a delivery, in the order they emptied. */
    private final ArrayDeque<Group> idle = new ArrayDeque<>();
    /** Whether the last {@link #take} found ready messages but took none because of a rate limit. */
    private boolean heldByRate;
    private long rateLimitedCount;

    FlowGate(QueueOptions<?> options, Comparator<Item> order, QueueStore.Wakeups wakeups) {
        this.wakeups = wakeups;
        this.options = options;
        this.maxInFlightPerGroup = options.maxInFlightPerGroup().orElse(0);
        this.groupRate = options.groupRateLimit().orElse(null);
        this.queueLog = options.rateLimit().map(SlidingLog::new).orElse(null);
        this.unnamed = new Group(null, QueueOptions.DEFAULT_GROUP_WEIGHT, null);
        this.ready = new FairReady(order, unnamed, this::groupOf);
    }

    /** @return the ready messages */
    FairReady ready() {
        return ready;
    }

    /** Reads a message's priority from its headers and joins its group, for a message not resolved yet. */
    void resolve(Item m) {
        Map<String, String> h = m.headers;
        if (h.isEmpty()) {
            m.priority = 0;
            return;
        }
        m.priority = priorityOf(h.get(Message.PRIORITY_HEADER));
        String key = h.get(Message.GROUP_HEADER);
        if (key == null) {
            return;
        }
        Group g = groups.get(key);
        if (g == null) {
            g = new Group(key, options.groupWeight(key), groupRate == null ? null : new SlidingLog(groupRate));
            groups.put(key, g);
        }
        g.members++;
    }

    /**
     * @return the group of a resolved message (its headers name it; {@link #resolve} made it a member, so it is
     *         known), the unnamed group for one without a group; null for a message not resolved
     */
    Group groupOf(Item m) {
        if (m.priority == UNRESOLVED) {
            return null;
        }
        String key = m.headers.isEmpty() ? null : m.headers.get(Message.GROUP_HEADER);
        return key == null ? unnamed : groups.get(key);
    }

    /**
     * Lets go of the group of a message that left the queue or died (detached, not in flight), before its headers
     * change.
     */
    void release(Item m) {
        Group g = groupOf(m);
        m.priority = UNRESOLVED;
        if (g != null && g != unnamed && --g.members == 0) {
            retire(g);
        }
    }

    /**
     * @return the next ready message a delivery at {@code now} may take, taken out of the ready messages (the caller
     *         delivers it with {@link #delivered}, or drops it if it is no longer live); null if none may go now
     */
    Item take(long now) {
        releaseWaiting(now);
        forgetIdle(now);
        if (!ready.hasEligible()) {
            heldByRate = ready.hasReadyWaitingForPermit();
            return null;
        }
        if (queueLog != null && !queueLog.mayTake(now)) {
            heldByRate = true;
            return null;
        }
        heldByRate = false;
        return ready.poll();
    }

    /** Counts a delivery at {@code now} of a message {@link #take} returned: its group's slot and the permits. */
    void delivered(Item m, long now) {
        if (queueLog != null) {
            queueLog.record(now);
        }
        Group g = groupOf(m);
        if (g == unnamed) {
            return;
        }
        boolean was = g.blocked();
        g.inFlight++;
        if (maxInFlightPerGroup != 0 && g.inFlight >= maxInFlightPerGroup) {
            g.fullInFlight = true;
        }
        if (g.log != null) {
            g.log.record(now);
            if (!g.waitsForPermit && !g.log.mayTake(now)) {
                ready.waitForPermit(g, true);
                g.permitAt = g.log.permitAt();
                waiting.add(g);
            }
        }
        if (!was && g.blocked()) {
            ready.block(g);
        }
    }

    /**
     * @return whether a delivery whose visibility timeout passed may take its message back in flight (an extend):
     *         not if its group's in-flight slots were taken meanwhile
     */
    boolean mayHoldAgain(Item m) {
        Group g = groupOf(m);
        return g == unnamed || maxInFlightPerGroup == 0 || g.inFlight < maxInFlightPerGroup;
    }

    /** Counts a message that went back in flight without a delivery (an extend after its timeout passed). */
    void heldAgain(Item m) {
        Group g = groupOf(m);
        if (g == unnamed) {
            return;
        }
        boolean was = g.blocked();
        g.inFlight++;
        if (maxInFlightPerGroup != 0 && g.inFlight >= maxInFlightPerGroup) {
            g.fullInFlight = true;
        }
        if (!was && g.blocked()) {
            ready.block(g);
        }
    }

    /** Frees the group slot of a message that left flight: acked, nacked, released, dead, cancelled or timed out. */
    void settled(Item m) {
        Group g = groupOf(m);
        if (g == unnamed || g == null) {
            return;
        }
        g.inFlight--;
        if (g.fullInFlight && g.inFlight < maxInFlightPerGroup) {
            g.fullInFlight = false;
            if (!g.blocked() && !g.lanes.isEmpty()) {
                ready.unblock(g);
                wakeups.one();
            }
        }
    }

    /**
     * @return nanoseconds from {@code now} until a rate limit next frees a permit that a ready message waits for;
     *         {@link Long#MAX_VALUE} if none waits for one
     */
    long delayToPermit(long now) {
        if (ready.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long delay = Long.MAX_VALUE;
        Group first = waiting.peek();
        if (first != null && ready.hasReadyWaitingForPermit()) {
            delay = Math.max(0L, first.permitAt - now);
        }
        if (queueLog != null && ready.hasEligible() && !queueLog.mayTake(now)) {
            delay = Math.min(delay, Math.max(0L, queueLog.permitAt() - now));
        }
        return delay;
    }

    /** @return whether the last take found ready messages but took none because of a rate limit */
    boolean heldByRate() {
        return heldByRate;
    }

    /** Counts a poll held back by a rate limit. */
    void countRateLimited() {
        rateLimitedCount++;
    }

    /** @return polls held back by a rate limit since the queue was created */
    long rateLimitedCount() {
        return rateLimitedCount;
    }

    /**
     * @param limit the most groups to list
     * @return the named groups with ready or in-flight messages, most ready first, then most in flight, then by key
     */
    List<GroupBacklog> largest(int limit) {
        PriorityQueue<GroupBacklog> kept = new PriorityQueue<>(LARGEST_FIRST.reversed());
        for (Group g : groups.values()) {
            long readyCount = 0;
            for (FairReady.Lane lane : g.lanes) {
                readyCount += lane.order.size();
            }
            if (readyCount > 0 || g.inFlight > 0) {
                kept.add(new GroupBacklog(g.key, readyCount, g.inFlight));
                if (kept.size() > limit) {
                    kept.poll();
                }
            }
        }
        List<GroupBacklog> largest = new ArrayList<>(kept);
        largest.sort(LARGEST_FIRST);
        return largest;
    }

    /** @return how many named groups are kept (for tests: a group without live messages is forgotten) */
    int groupCount() {
        return groups.size();
    }

    /** Unblocks the groups whose next permit has freed by {@code now}. */
    private void releaseWaiting(long now) {
        Group g;
        while ((g = waiting.peek()) != null && g.permitAt - now <= 0) {
            waiting.poll();
            if (!g.log.mayTake(now)) { // cannot happen while the log's permitAt is exact; kept waiting if it did
                g.permitAt = g.log.permitAt();
                waiting.add(g);
                continue;
            }
            ready.waitForPermit(g, false);
            if (!g.blocked()) {
                ready.unblock(g);
            }
            if (g.members == 0) {
                retire(g);
            }
        }
    }

    /** A group without live messages: forgotten now, or once its rate limit has forgotten its deliveries. */
    private void retire(Group g) {
        if (g.log == null) {
            groups.remove(g.key, g);
        } else if (!g.idle) {
            g.idle = true;
            idle.add(g);
        }
    }

    /** Forgets the idle groups at the head of the line whose rate limit remembers no delivery at {@code now}. */
    private void forgetIdle(long now) {
        Group g;
        while ((g = idle.peek()) != null) {
            if (g.members > 0 || g.waitsForPermit) {
                idle.poll(); // back in use, or waiting: it retires again when it empties or its permit frees
                g.idle = false;
            } else if (g.log.isEmpty(now)) {
                idle.poll();
                g.idle = false;
                groups.remove(g.key, g);
            } else {
                return;
            }
        }
    }

    private static short priorityOf(String header) {
        if (header == null) {
            return 0;
        }
        try {
            return (short) Math.max(Message.MIN_PRIORITY, Math.min(Message.MAX_PRIORITY, Integer.parseInt(header)));
        } catch (NumberFormatException e) {
            return 0; // the header is checked when set: only a message built around Message could carry this
        }
    }
}
