package io.clockwork.engine;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A holding list for newly scheduled entries whose deadlines are far off, filed into a {@link TimingWheel} only if
 * they survive until the next sweep. Not thread-safe: owned by the wheel's owner.
 *
 * <h2>Why</h2>
 * In request-timeout workloads (Kafka's purgatory, RPC deadlines) nearly every timer is cancelled within
 * milliseconds of being scheduled, long before it is due. Filed at once, each such timer costs a bucket insertion
 * and later a second visit to drop it (when its bucket cascades, or in a purge). Held here first, it costs one
 * visit in a sequential sweep, in allocation order, and is never filed. The same idea as a generational garbage
 * collector's nursery: most objects die young, so do not promote them eagerly.
 *
 * <p>The owner must only put here entries that cannot fall due before the next sweep, so holding them never makes
 * a timer late; entries keep their scheduling order through the sweep.
 *
 * @param <E> the entry type
 */
final class Nursery<E extends WheelEntry> {

    private WheelEntry head;
    private WheelEntry tail;
    private int size;

    /**
     * Holds an entry until the next sweep. O(1).
     *
     * @param entry an entry in no wheel, inbox or nursery
     */
    void add(E entry) {
        entry.next = null;
        if (tail == null) {
            head = entry;
        } else {
            tail.next = entry;
        }
        tail = entry;
        size++;
    }

    /** @return the number of entries held */
    int size() {
        return size;
    }

    /** @return true if nothing is held */
    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Empties the nursery in scheduling order: entries the filter calls alive go to the survivor sink (usually
     * {@link TimingWheel#schedule}), the others are dropped.
     *
     * @param alive    tells live entries from dead (cancelled) ones
     * @param survivor receives each live entry, unlinked from the nursery
     * @return how many entries were dropped
     */
    @SuppressWarnings("unchecked")
    int sweep(Predicate<? super E> alive, Consumer<? super E> survivor) {
        WheelEntry e = head;
        head = null;
        tail = null;
        size = 0;
        int dropped = 0;
        while (e != null) {
            WheelEntry next = e.next;
            e.next = null;
            if (alive.test((E) e)) {
                survivor.accept((E) e);
            } else {
                dropped++;
            }
            e = next;
        }
        return dropped;
    }
}
