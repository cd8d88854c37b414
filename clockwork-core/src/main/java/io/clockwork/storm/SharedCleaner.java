package io.clockwork.storm;

import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The one daemon thread that rotates every open {@link TimeCacheMap}. Thread-safe.
 *
 * <p>Maps are grouped by {@link Ticker} (readings of different tickers cannot be compared), each group a min-heap of
 * next-rotation times. The thread rotates what is due, then parks until the earliest next rotation over all groups,
 * or until a map registers or a {@link ManualTicker} it listens to moves. It exits when no map is registered and
 * a later registration starts a new one, so an idle process has no cleaner thread.
 */
final class SharedCleaner {

    static final SharedCleaner INSTANCE = new SharedCleaner();
    static final String THREAD_NAME = "clockwork-timecachemap-cleaner";

    private static final System.Logger LOG = System.getLogger(SharedCleaner.class.getName());

    private final Object lock = new Object();
    private final Map<Ticker, Group> groups = new IdentityHashMap<>(); // guarded by lock
    private volatile Thread thread;                                    // written under lock

    /** A map's place in its group's heap; {@code due} changes only while out of the heap. */
    static final class Registration {
        final TimeCacheMap<?, ?> map;
        long due;

        Registration(TimeCacheMap<?, ?> map, long due) {
            this.map = map;
            this.due = due;
        }
    }

    private static final class Group {
        final PriorityQueue<Registration> heap = new PriorityQueue<>((a, b) -> Long.compare(a.due - b.due, 0L));
        Runnable listener;
    }

    Registration register(TimeCacheMap<?, ?> map) {
        Ticker ticker = map.ticker();
        Registration registration = new Registration(map, map.expireDue());
        synchronized (lock) {
            add(registration);
            if (thread == null) {
                Thread t = new Thread(this::run, THREAD_NAME);
                t.setDaemon(true);
                thread = t;
                t.start();
            } else {
                wake();
            }
        }
        return registration;
    }

    /** Puts a registration in its ticker's group, creating the group if needed. Under lock. */
    private void add(Registration registration) {
        Ticker ticker = registration.map.ticker();
        Group group = groups.get(ticker);
        if (group == null) {
            group = new Group();
            groups.put(ticker, group);
            if (ticker instanceof ManualTicker) {
                group.listener = this::wake; // manual time does not pass by itself: wake when a test moves it
                ((ManualTicker) ticker).addListener(group.listener);
            }
        }
        group.heap.add(registration);
    }

    void unregister(Registration registration) {
        synchronized (lock) {
            Ticker ticker = registration.map.ticker();
            Group group = groups.get(ticker);
            if (group != null && group.heap.remove(registration) && group.heap.isEmpty()) {
                removeGroup(ticker, group);
            }
        }
    }

    private void removeGroup(Ticker ticker, Group group) {
        groups.remove(ticker);
        if (group.listener != null) {
            ((ManualTicker) ticker).removeListener(group.listener);
        }
    }

    private void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Whether the cleaner thread is running; for tests. */
    boolean isRunning() {
        return thread != null;
    }

    private void run() {
        List<Registration> due = new ArrayList<>();
        while (true) {
            long parkNanos = Long.MAX_VALUE;
            synchronized (lock) {
                if (groups.isEmpty()) {
                    thread = null;
                    return;
                }
                for (Map.Entry<Ticker, Group> g : groups.entrySet()) {
                    long now = g.getKey().read();
                    PriorityQueue<Registration> heap = g.getValue().heap;
                    while (!heap.isEmpty() && now - heap.peek().due >= 0) {
                        due.add(heap.poll());
                    }
                    if (!heap.isEmpty()) {
                        parkNanos = Math.min(parkNanos, heap.peek().due - now);
                    }
                }
            }
            if (due.isEmpty()) {
                LockSupport.parkNanos(this, parkNanos);
                Thread.interrupted(); // nobody may stop the shared thread but the last close()
                continue;
            }
            for (Registration r : due) {
                try {
                    r.due = r.map.expireDue(); // callbacks run here, outside the lock
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "rotating " + r.map + " failed; it is retried next period", e);
                }
            }
            synchronized (lock) {
                for (Registration r : due) {
                    if (!r.map.isClosed()) {
                        add(r);
                    }
                }
                due.clear();
                // A map closed while it was out of its heap leaves its group empty: drop such groups now.
                for (Iterator<Map.Entry<Ticker, Group>> it = groups.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<Ticker, Group> g = it.next();
                    if (g.getValue().heap.isEmpty()) {
                        it.remove();
                        if (g.getValue().listener != null) {
                            ((ManualTicker) g.getKey()).removeListener(g.getValue().listener);
                        }
                    }
                }
            }
        }
    }
}
