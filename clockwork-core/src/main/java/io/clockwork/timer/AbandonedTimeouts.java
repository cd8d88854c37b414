package io.clockwork.timer;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The set {@link WheelTimer#stop()} returns: a read-only view of the timeouts its stopped driver still holds whose
 * state is abandoned. Immutable, so thread-safe once published (the stopping thread joined the driver first).
 *
 * <h2>Why a view</h2>
 * A timer stopped with millions of pending timeouts used to copy them into a {@code HashSet}: a node per timeout
 * and a table of millions of slots, allocated in one go. Beyond the allocation, that set lingered in the old
 * generation after the caller dropped it, and until the collector's next marking cycle found it dead, every young
 * collection scanned its table and copied the young timeouts it still pointed at: in the purgatory benchmark, which
 * stops a timer holding about three million timeouts every iteration, that cost the iterations after it a quarter of
 * their throughput. The view allocates nothing per timeout: {@link #contains} is one state check, because a timeout
 * is in the set exactly when it belongs to this timer and was abandoned; {@link #size} was counted by the stop; and
 * only iteration, if the caller iterates, copies the timeouts into a list, once.
 */
final class AbandonedTimeouts extends AbstractSet<Timeout> {

    private final WheelTimer timer;
    private final TimerCore<WheelTimeout> core;
    private final int size;
    /** Built on first iteration; the driver thread has ended, so nothing moves under it. */
    private List<Timeout> snapshot;

    AbandonedTimeouts(WheelTimer timer, TimerCore<WheelTimeout> core, long abandoned) {
        this.timer = timer;
        this.core = core;
        this.size = (int) Math.min(Integer.MAX_VALUE, abandoned);
    }

    @Override
    public boolean contains(Object o) {
        return o instanceof WheelTimeout t && t.timer() == timer && t.state() == TimerEntry.ABANDONED;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Iterator<Timeout> iterator() {
        return snapshot().iterator();
    }

    private synchronized List<Timeout> snapshot() {
        if (snapshot == null) {
            List<Timeout> list = new ArrayList<>(size);
            core.forEachHeld(t -> {
                if (t.state() == TimerEntry.ABANDONED) {
                    list.add(t);
                }
            });
            snapshot = Collections.unmodifiableList(list);
        }
        return snapshot;
    }
}
