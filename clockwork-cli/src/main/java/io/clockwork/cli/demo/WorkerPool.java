package io.clockwork.cli.demo;

import io.clockwork.zookeeper.SessionTracker;
import io.clockwork.zookeeper.SessionTrackerImpl;
import io.clockwork.storm.TimeCacheMap;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The worker side of the demo: threads that take due payment deadlines from the queue, expire the unpaid order and
 * ack. Thread-safe.
 *
 * <p>Every worker holds a session in a {@link SessionTrackerImpl} and heartbeats it on each turn of its loop, as a
 * ZooKeeper client would. The first {@code crashes} workers "crash" on a random early delivery: they process it but
 * neither ack it nor heartbeat again. Their session expires, the expirer starts a replacement, and the queue hands
 * the unacked order to another worker after the visibility timeout. That retry must not expire the order twice, so
 * workers remember what they processed in a {@link TimeCacheMap} (Storm's de-duplication idiom) and only ack a
 * retry. A worker whose session expired while it was merely slow also stops: it has been replaced.
 */
final class WorkerPool implements AutoCloseable {

    /** How long a worker may go without a heartbeat before its session expires. */
    static final int SESSION_TIMEOUT_MS = 1500;
    private static final int TICK_MS = 100;
    private static final Duration POLL_WAIT = Duration.ofMillis(200);
    /** Longer than any redelivery of the demo (visibility timeout times attempts) so a retry is always recognised. */
    private static final int DEDUP_SECONDS = 120;

    private final DelayedQueue<String> queue;
    private final Receipts receipts;
    private final Consumer<String> events;
    private final SessionTrackerImpl tracker;
    private final TimeCacheMap<String, Long> processed = new TimeCacheMap<>(DEDUP_SECONDS);
    private final Map<Long, Thread> bySession = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger started = new AtomicInteger();
    private final int crashes;
    private final int crashWithin;
    private final SplittableRandom random;
    private volatile boolean running = true;

    private final LongAdder deliveries = new LongAdder();
    private final LongAdder acked = new LongAdder();
    private final LongAdder ackRefused = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder crashed = new LongAdder();
    private final LongAdder expiredSessions = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final Lateness lateness = new Lateness();
    private volatile String lastError;

    /**
     * @param queue       the orders' deadlines
     * @param receipts    where acked deliveries are reported
     * @param crashes     how many of the first workers crash
     * @param crashWithin a crashing worker crashes on one of its first this many deliveries
     * @param seed        random seed for the crash points
     * @param events      one-line notices of crashes and expiries, for the progress display
     */
    WorkerPool(DelayedQueue<String> queue, Receipts receipts, int crashes, int crashWithin, long seed,
            Consumer<String> events) {
        this.queue = queue;
        this.receipts = receipts;
        this.crashes = crashes;
        this.crashWithin = Math.max(1, crashWithin);
        this.random = new SplittableRandom(seed);
        this.events = events;
        this.tracker = new SessionTrackerImpl(TICK_MS, this::expire);
    }

    /** @param workers how many worker threads to start */
    void start(int workers) {
        tracker.start();
        for (int i = 0; i < workers; i++) {
            startWorker();
        }
    }

    private synchronized void startWorker() {
        int n = started.incrementAndGet();
        int crashAt;
        synchronized (random) {
            crashAt = n <= crashes ? 1 + random.nextInt(crashWithin) : -1;
        }
        long session = tracker.createSession(SESSION_TIMEOUT_MS);
        Thread t = new Thread(() -> work(session, crashAt), "demo-worker-" + n);
        t.setDaemon(true);
        bySession.put(session, t);
        threads.add(t);
        t.start();
    }

    /** Called on the tracker's thread when a worker stopped heartbeating: replace it, as a supervisor would. */
    private void expire(SessionTracker.Session session) {
        tracker.removeSession(session.getSessionId());
        Thread gone = bySession.remove(session.getSessionId());
        expiredSessions.increment();
        events.accept("session 0x" + Long.toHexString(session.getSessionId()) + " of "
                + (gone != null ? gone.getName() : "a worker") + " expired; starting a replacement");
        if (running) {
            startWorker();
        }
    }

    private void work(long session, int crashAt) {
        int handled = 0;
        while (running) {
            Delivery<String> d;
            try {
                d = queue.poll(POLL_WAIT);
            } catch (InterruptedException e) {
                return;
            } catch (IllegalStateException closed) {
                return;
            } catch (RuntimeException e) {
                // A backend hiccup (e.g. Redis restarting): the message stays in the queue; try again shortly.
                errors.increment();
                lastError = e.getMessage();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                continue;
            }
            if (!touch(session)) {
                return; // fenced: our session expired and a replacement runs; an unacked delivery comes back
            }
            if (d == null) {
                continue;
            }
            deliveries.increment();
            handled++;
            long late = process(d);
            if (handled == crashAt) {
                crashed.increment();
                events.accept(Thread.currentThread().getName() + " crashed holding " + d.id()
                        + " (no ack, no more heartbeats)");
                return;
            }
            ack(d, late);
        }
    }

    private boolean touch(long session) {
        try {
            return tracker.touchSession(session, SESSION_TIMEOUT_MS);
        } catch (IllegalStateException shutDown) {
            return false;
        }
    }

    /** Expires the unpaid order once; a retry of one already processed only gets its original lateness back. */
    private long process(Delivery<String> d) {
        Long first = processed.get(d.id());
        if (first != null) {
            duplicates.increment();
            return first;
        }
        long late = Wall.nowMicros() - dueMicros(d.value());
        processed.put(d.id(), late);
        return late;
    }

    private void ack(Delivery<String> d, long late) {
        boolean ok;
        try {
            ok = d.ack();
        } catch (RuntimeException e) {
            errors.increment();
            lastError = e.getMessage();
            return; // unknown outcome: if it did not happen, the message is redelivered and acked later
        }
        if (ok) {
            acked.increment();
            lateness.record(late);
            receipts.delivered(d.id(), late);
        } else {
            ackRefused.increment(); // the payment cancelled it while we held it: the payment won the race
        }
    }

    /** @return the due time written by the producer ("dueMicros amountCents"); now if unreadable */
    static long dueMicros(String value) {
        int space = value.indexOf(' ');
        try {
            return Long.parseLong(space < 0 ? value : value.substring(0, space));
        } catch (NumberFormatException e) {
            return Wall.nowMicros();
        }
    }

    long deliveries() {
        return deliveries.sum();
    }

    long acked() {
        return acked.sum();
    }

    long ackRefused() {
        return ackRefused.sum();
    }

    long duplicates() {
        return duplicates.sum();
    }

    long crashed() {
        return crashed.sum();
    }

    long expiredSessions() {
        return expiredSessions.sum();
    }

    long errors() {
        return errors.sum();
    }

    String lastError() {
        return lastError;
    }

    int started() {
        return started.get();
    }

    Lateness lateness() {
        return lateness;
    }

    /** Stops the workers and waits briefly for them; crashed and fenced workers have already returned. */
    @Override
    public void close() {
        running = false;
        List<Thread> all;
        synchronized (this) {
            all = new ArrayList<>(threads);
        }
        for (Thread t : all) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(2) + POLL_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        tracker.shutdown();
        processed.close();
    }
}
