package io.clockwork.inprocess;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The in-process queue's ready messages in delivery order: by priority, then round-robin between groups, then by due
 * time within a group. Not thread-safe: guarded by the queue's lock.
 *
 * <h2>Design</h2>
 * A <b>level</b> per priority that has ready messages; in a level, a <b>lane</b> per group that has ready messages
 * there, each a {@link ReadyOrder} by due tick then sequence. A level's lanes whose group is not
 * {@linkplain #block blocked} (by its in-flight or rate limit) form a ring with a cursor: the cursor's lane delivers
 * up to its group's weight of messages in a row, then the cursor moves on (deficit round robin with a quantum of one
 * message); a lane that joins the ring (its group's first ready message at that priority, or its group unblocked)
 * goes just before the cursor, last in the current round, with a full turn. The levels whose ring is not empty are
 * kept in a sorted set (level 0 apart, so a queue without priorities never touches it), its highest cached, so a take
 * costs O(1) plus the lane's {@link ReadyOrder}, and an add or a removal O(log n); blocking or unblocking a group
 * costs one ring move per priority it has ready messages at.
 * Messages of priority 0 without a group (every message of a queue that uses neither) take the one permanent lane
 * of the permanent level 0: no map is consulted for them.
 */
final class FairReady {

    private static final Comparator<Level> BY_PRIORITY = Comparator.comparingInt(l -> l.priority);

    private final Comparator<Item> order;
    private final Group unnamed;
    /** A filed message's group ({@link FlowGate#groupOf}). */
    private final Function<Item, Group> groupOf;
    private final Level level0;
    private final Lane defaultLane;
    private final Map<Integer, Level> levels = new HashMap<>();
    /** The levels whose ring is not empty, but level 0, whose ring says so itself (no tree node per busy spell). */
    private final TreeSet<Level> active = new TreeSet<>(BY_PRIORITY);
    /** The highest of {@link #active}; null if none. */
    private Level top;
    private int size;
    /** Groups waiting for a rate limit's permit ({@link Group#waitsForPermit}) that have ready messages. */
    private int waitingWithReady;

    /**
     * @param order   the delivery order within a lane: a total order, fixed while a message is here
     * @param unnamed the group of messages without one, which is never blocked
     */
    FairReady(Comparator<Item> order, Group unnamed, Function<Item, Group> groupOf) {
        this.order = order;
        this.unnamed = unnamed;
        this.groupOf = groupOf;
        this.level0 = new Level(0);
        this.defaultLane = new Lane(level0, unnamed, order);
        level0.lanes.put(unnamed, defaultLane);
        levels.put(0, level0);
    }

    /** Adds a ready message, its {@link Item#priority} and {@link Item#group} set. */
    void add(Item m) {
        Lane lane = laneOf(m);
        boolean opens = lane.order.isEmpty();
        lane.order.add(m);
        size++;
        if (opens) {
            if (lane.group != unnamed) {
                if (lane.group.lanes.isEmpty() && lane.group.waitsForPermit) {
                    waitingWithReady++;
                }
                lane.group.lanes.add(lane);
            }
            if (!lane.group.blocked()) {
                join(lane);
            }
        }
    }

    /** @return the next message in delivery order among groups not blocked, taken out; null if there is none */
    Item poll() {
        Level level = top;
        if (level == null) {
            return null;
        }
        Lane lane = level.cursor;
        Item m = lane.order.pollFirst();
        size--;
        if (lane.order.isEmpty()) {
            leave(lane);
            close(lane);
        } else if (--lane.credit == 0) {
            lane.credit = lane.group.weight;
            level.cursor = lane.next;
        }
        return m;
    }

    /** Takes out a message that is here. */
    void remove(Item m) {
        Lane lane = laneOf(m);
        lane.order.remove(m);
        size--;
        if (lane.order.isEmpty()) {
            leave(lane);
            close(lane);
        }
    }

    /** Takes a group's lanes out of the round robin: it delivers nothing until {@link #unblock}. */
    void block(Group g) {
        for (Lane lane : g.lanes) {
            leave(lane);
        }
    }

    /** Puts a group's lanes back into the round robin, each last in its level's current round. */
    void unblock(Group g) {
        for (Lane lane : g.lanes) {
            join(lane);
        }
    }

    /**
     * Marks a group as waiting for a permit of its rate limit, or no longer; blocking it is the caller's part.
     *
     * @param g     a named group
     * @param waits whether it waits
     */
    void waitForPermit(Group g, boolean waits) {
        if (g.waitsForPermit != waits) {
            g.waitsForPermit = waits;
            if (!g.lanes.isEmpty()) {
                waitingWithReady += waits ? 1 : -1;
            }
        }
    }

    /** @return whether a group waiting for a rate limit's permit has ready messages here */
    boolean hasReadyWaitingForPermit() {
        return waitingWithReady > 0;
    }

    /** @return how many messages are here, blocked or not */
    int size() {
        return size;
    }

    /** @return whether no message is here */
    boolean isEmpty() {
        return size == 0;
    }

    /** @return whether a message of a group that is not blocked is here */
    boolean hasEligible() {
        return top != null;
    }

    private Lane laneOf(Item m) {
        Group g = groupOf.apply(m);
        int priority = m.priority;
        if (priority == 0 && g == unnamed) {
            return defaultLane;
        }
        Level level = priority == 0 ? level0 : levels.computeIfAbsent(priority, Level::new);
        Lane lane = level.lanes.get(g);
        if (lane == null) {
            lane = new Lane(level, g, order);
            level.lanes.put(g, lane);
        }
        return lane;
    }

    /** Forgets an empty lane (but the permanent one), and its level once it has none. */
    private void close(Lane lane) {
        if (lane == defaultLane) {
            return;
        }
        Level level = lane.level;
        level.lanes.remove(lane.group);
        if (lane.group != unnamed) {
            lane.group.lanes.remove(lane);
            if (lane.group.lanes.isEmpty() && lane.group.waitsForPermit) {
                waitingWithReady--;
            }
        }
        if (level.lanes.isEmpty() && level != level0) {
            levels.remove(level.priority);
        }
    }

    private void join(Lane lane) {
        if (lane.next != null) {
            return;
        }
        Level level = lane.level;
        lane.credit = lane.group.weight;
        Lane c = level.cursor;
        if (c == null) {
            lane.next = lane;
            lane.prev = lane;
            level.cursor = lane;
            if (level != level0) {
                active.add(level);
            }
            if (top == null || level.priority > top.priority) {
                top = level;
            }
        } else {
            lane.prev = c.prev;
            lane.next = c;
            c.prev.next = lane;
            c.prev = lane;
        }
    }

    private void leave(Lane lane) {
        if (lane.next == null) {
            return;
        }
        Level level = lane.level;
        if (lane.next == lane) {
            level.cursor = null;
            if (level != level0) {
                active.remove(level);
            }
            if (top == level) {
                top = highestActive();
            }
        } else {
            if (level.cursor == lane) {
                level.cursor = lane.next;
            }
            lane.prev.next = lane.next;
            lane.next.prev = lane.prev;
        }
        lane.next = null;
        lane.prev = null;
    }

    /** @return the level of the highest priority whose ring is not empty; null if none */
    private Level highestActive() {
        Level highest = active.isEmpty() ? null : active.last();
        if (level0.cursor != null && (highest == null || highest.priority < 0)) {
            return level0;
        }
        return highest;
    }

    /** The ready messages of one priority: a lane per group, the unblocked ones in a ring. */
    private static final class Level {
        final int priority;
        final Map<Group, Lane> lanes = new HashMap<>();
        /** The lane whose turn it is; null if the ring is empty. */
        Lane cursor;

        Level(int priority) {
            this.priority = priority;
        }
    }

    /** One group's ready messages of one priority, in due order. */
    static final class Lane {
        final Level level;
        final Group group;
        final ReadyOrder<Item> order;
        /** Ring links; null while out of the ring. */
        Lane next;
        Lane prev;
        /** Deliveries left in its current turn. */
        int credit;

        Lane(Level level, Group group, Comparator<Item> order) {
            this.level = level;
            this.group = group;
            this.order = new ReadyOrder<>(order);
        }
    }
}
