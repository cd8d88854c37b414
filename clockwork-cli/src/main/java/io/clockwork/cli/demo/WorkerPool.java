package io.clockwork.cli.demo;

import io.clockwork.zookeeper.SessionTracker;
import io.clockwork.zookeeper.SessionTrackerImpl;
import io.clockwork.storm.TimeCacheMap;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.worker.Job;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
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
 * The worker side of the demo: {@link Worker}s that take due payment deadlines from the queue and expire the unpaid
 * order (the worker acks it). Thread-safe.
 *
 * <p>Each demo worker is a {@code Worker} with one handler thread, plus a session in a {@link SessionTrackerImpl} that
 * a heartbeat thread touches, as a ZooKeeper client pings. The first {@code crashes} workers "crash" on a random early
 * delivery: their handler processes it and then hangs, holding it without an ack, and their heartbeat stops. Their
 * session expires, and the expirer does what a supervisor would: it abandons the hung worker (a zero-timeout
 * {@link Worker#shutdown}, which interrupts the handler, so the lease is no longer extended and the order comes back
 * after the visibility timeout) and starts a replacement. That retry must not expire the order twice, so workers
 * remember what they processed in a {@link TimeCacheMap} (Storm's de-duplication idiom) and only ack a retry.
 */
final class WorkerPool implements AutoCloseable {

    /** How long a worker may go without a heartbeat before its session expires. */
    static final int SESSION_TIMEOUT_MS = 1500;
    private static final int TICK_MS = 100;
    private static final long HEARTBEAT_MS = 200;
    private static final Duration POLL_WAIT = Duration.ofMillis(200);
    /** Deliveries a worker takes ahead of its handler, so a burst of due orders costs one poll per batch. */
    private static final int PREFETCH = 16;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(2);
    /** Longer than any redelivery of the demo (visibility timeout times attempts) so a retry is always recognised. */
    private static final int DEDUP_SECONDS = 120;

    private final DelayedQueue<String> queue;
    private final Receipts receipts;
    private final Consumer<String> events;
    private final SessionTrackerImpl tracker;
    /** Order id to its lateness in microseconds, when first processed. */
    private final TimeCacheMap<String, Long> processed = new TimeCacheMap<>(DEDUP_SECONDS);
    private final Map<Long, DemoWorker> bySession = new ConcurrentHashMap<>();
    private final List<DemoWorker> all = new ArrayList<>();
    private final AtomicInteger started = new AtomicInteger();
    private final int crashes;
    private final int crashWithin;
    private final SplittableRandom random;
    private final WorkerListener<String> listener = new Outcomes();
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

    /** @param workers how many workers to start */
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
        DemoWorker w = new DemoWorker("demo-worker-" + n, tracker.createSession(SESSION_TIMEOUT_MS), crashAt);
        bySession.put(w.session, w);
        all.add(w);
    }

    /** Called on the tracker's thread when a worker stopped heartbeating: replace it, as a supervisor would. */
    private void expire(SessionTracker.Session session) {
        tracker.removeSession(session.getSessionId());
        DemoWorker gone = bySession.remove(session.getSessionId());
        expiredSessions.increment();
        events.accept("session 0x" + Long.toHexString(session.getSessionId()) + " of "
                + (gone != null ? gone.name : "a worker") + " expired; starting a replacement");
        if (gone != null) {
            Thread abandon = new Thread(() -> gone.stop(Duration.ZERO), gone.name + "-abandon");
            abandon.setDaemon(true);
            abandon.start();
        }
        if (running) {
            startWorker();
        }
    }

    /** One demo worker: a single-handler {@link Worker} and the heartbeat of its session. */
    private final class DemoWorker {
        final String name;
        final long session;
        private final int crashAt;
        private final AtomicInteger handled = new AtomicInteger();
        private final Worker<String> worker;
        private final Thread heartbeat;
        private volatile boolean dead;

        DemoWorker(String name, long session, int crashAt) {
            this.name = name;
            this.session = session;
            this.crashAt = crashAt;
            this.worker = Worker.builder(queue, this::handle).name(name).concurrency(1).prefetch(PREFETCH)
                    .pollWait(POLL_WAIT).listener(listener).build();
            this.heartbeat = new Thread(this::beat, name + "-heartbeat");
            heartbeat.setDaemon(true);
            heartbeat.start();
        }

        private void handle(Job<String> job) throws InterruptedException {
            deliveries.increment();
            process(job);
            if (handled.incrementAndGet() == crashAt) {
                dead = true;
                crashed.increment();
                events.accept(name + " crashed holding " + job.id() + " (no ack, no more heartbeats)");
                Thread.sleep(Long.MAX_VALUE); // hung until abandoned; the interrupt ends it, and it is never acked
            }
        }

        private void beat() {
            while (running && !dead) {
                try {
                    if (!tracker.touchSession(session, SESSION_TIMEOUT_MS)) {
                        return; // expired: the supervisor abandons this worker and replaces it
                    }
                } catch (IllegalStateException shutDown) {
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_MS));
            }
        }

        void stop(Duration timeout) {
            dead = true;
            try {
                worker.shutdown(timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Expires the unpaid order once; a retry of one already processed keeps its original lateness. */
    private void process(Job<String> job) {
        if (processed.get(job.id()) != null) {
            duplicates.increment();
            return;
        }
        processed.put(job.id(), Wall.nowMicros() - dueMicros(job.value()));
    }

    /** What the workers' deliveries became: acks are reported with the lateness of their first processing. */
    private final class Outcomes implements WorkerListener<String> {
        @Override
        public void acked(Job<String> job) {
            Long late = processed.get(job.id());
            long micros = late != null ? late : Wall.nowMicros() - dueMicros(job.value());
            acked.increment();
            lateness.record(micros);
            receipts.delivered(job.id(), micros);
        }

        @Override
        public void leaseLost(Job<String> job) {
            ackRefused.increment(); // the payment cancelled it while we held it: the payment won the race
        }

        @Override
        public void backendError(String operation, RuntimeException error) {
            errors.increment();
            lastError = operation + ": " + error.getMessage();
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

    /** Stops the workers (running handlers get a short while to finish) and the tracker. */
    @Override
    public void close() {
        running = false;
        List<DemoWorker> workers;
        synchronized (this) {
            workers = new ArrayList<>(all);
        }
        for (DemoWorker w : workers) {
            w.stop(STOP_TIMEOUT);
        }
        tracker.shutdown();
        processed.close();
    }
}
