package io.clockwork.timer;

import io.clockwork.engine.TimerEntry;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The set {@link WheelTimer#stop()} returns: the timeouts the stop abandoned. Filled by the driver thread as it
 * stops, then immutable, so thread-safe once published (the stopping thread joined the driver first).
 *
 * <h2>Why not a {@code HashSet}</h2>
 * A {@code HashSet} of millions of abandoned timeouts costs a node per timeout and a table of millions of slots.
 * Such a table is a humongous object, which G1 places straight in the old generation, so after the caller drops the
 * set it lies dead there until the next marking cycle, while every young collection scans its cards and copies the
 * young timeouts and nodes it still points at; a program that stops timers holding millions of timeouts (the
 * purgatory benchmark does, every iteration) then pays for it in every young collection.
 *
 * <p>This set allocates one reference per timeout, in chunks of {@value #CHUNK} (16 KB, far below the humongous
 * size), so a set dropped at once dies young and costs the collector nothing. {@link #contains} needs no index: a
 * timeout is in the set exactly when it belongs to this timer and was abandoned.
 */
final class AbandonedTimeouts extends AbstractSet<Timeout> {

    private static final int CHUNK = 4096;

    private final WheelTimer timer;
    private Timeout[][] chunks = new Timeout[1][];
    private int size;

    AbandonedTimeouts(WheelTimer timer) {
        this.timer = timer;
    }

    /** Adds an abandoned timeout of this timer; driver thread only, before the set is published. */
    void add(WheelTimeout timeout) {
        int chunk = size / CHUNK;
        if (chunk == chunks.length) {
            chunks = Arrays.copyOf(chunks, chunks.length * 2);
        }
        if (chunks[chunk] == null) {
            chunks[chunk] = new Timeout[CHUNK];
        }
        chunks[chunk][size % CHUNK] = timeout;
        size++;
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
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public Timeout next() {
                if (next >= size) {
                    throw new NoSuchElementException("all " + size + " abandoned timeouts were returned");
                }
                Timeout t = chunks[next / CHUNK][next % CHUNK];
                next++;
                return t;
            }
        };
    }
}
