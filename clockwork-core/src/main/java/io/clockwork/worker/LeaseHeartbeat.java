package io.clockwork.worker;

import io.clockwork.worker.BackendHealth.Operation;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import static io.clockwork.worker.WorkerTask.BUFFERED;
import static io.clockwork.worker.WorkerTask.DONE;
import static io.clockwork.worker.WorkerTask.RUNNING;
import static io.clockwork.worker.WorkerTask.SETTLING;
import static io.clockwork.worker.WorkerTask.TO_ACK;

/**
 * A {@link Worker}'s heartbeat: one thread that extends every held delivery ({@link Delivery#extend(Duration)}) once
 * a third of the queue's visibility timeout has passed since its lease began or was last extended, so that a job
 * longer than the timeout is never delivered to a second consumer while it runs. Thread-safe: {@link #wake()} and
 * {@link #stop()} from any thread.
 *
 * <p>Time: lease ages are read on the worker's {@link Ticker}; the thread looks every half heartbeat period (at least
 * every millisecond of real time), and a ticker jump wakes it. A delivery whose extend returns false while it is
 * still buffered, running or awaiting its ack has lost its lease: the worker is told; except after a failed ack of
 * it, which may have run and deleted the message (the acker's retry tells which). A backend failure ends the
 * pass (every lease is tried again at the next beat) and is reported to the worker's health and listener.
 *
 * @param <V> the value type
 */
final class LeaseHeartbeat<V> {

    private final Ticker ticker;
    private final Duration lease;
    private final long periodNanos;
    private final Set<WorkerTask<V>> held;
    private final BackendHealth health;
    private final WorkerEvents<V> events;
    private final Consumer<WorkerTask<V>> leaseLost;
    private final Thread thread;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the heartbeat must stop or the ticker jumped. */
    private final Condition beat = lock.newCondition();
    private boolean stopped; // guarded by lock

    /**
     * @param threadName the thread's name
     * @param ticker     the worker's ticker
     * @param lease      the queue's visibility timeout, which each extend grants again
     * @param held       the deliveries the worker holds, read on every beat
     * @param health     the worker's backend health
     * @param events     the worker's listener calls
     * @param leaseLost  what to do with a delivery whose lease is found lost
     */
    LeaseHeartbeat(String threadName, Ticker ticker, Duration lease, Set<WorkerTask<V>> held, BackendHealth health,
            WorkerEvents<V> events, Consumer<WorkerTask<V>> leaseLost) {
        this.ticker = ticker;
        this.lease = lease;
        this.periodNanos = Math.max(1L, lease.toNanos() / 3);
        this.held = held;
        this.health = health;
        this.events = events;
        this.leaseLost = leaseLost;
        this.thread = new Thread(this::loop, threadName);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Makes the thread look at the leases now: the ticker jumped. */
    void wake() {
        lock.lock();
        try {
            beat.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Tells the thread to end after its current pass. */
    void stop() {
        lock.lock();
        try {
            stopped = true;
            beat.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code millis} for the thread to end. */
    void join(long millis) throws InterruptedException {
        thread.join(millis);
    }

    private void loop() {
        long pause = Math.max(1_000_000L, periodNanos / 2);
        while (true) {
            extendDue(ticker.read());
            lock.lock();
            try {
                if (stopped) {
                    return;
                }
                beat.awaitNanos(pause);
                if (stopped) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    private void extendDue(long now) {
        for (WorkerTask<V> t : held) {
            int s = t.state.get();
            if (s == SETTLING || s == DONE || t.leaseLost || now - t.leaseFrom < periodNanos) {
                continue;
            }
            boolean extended;
            try {
                extended = t.delivery.extend(lease);
                health.succeeded(Operation.EXTEND);
            } catch (RuntimeException e) {
                events.backendError(Operation.EXTEND, e);
                health.failed(Operation.EXTEND, e);
                return; // the backend is down: try every lease again on the next beat
            }
            if (extended) {
                t.leaseFrom = now;
            } else {
                int after = t.state.get();
                if (after == BUFFERED || after == RUNNING || after == TO_ACK && !t.ackFailed) {
                    leaseLost.accept(t); // not settled meanwhile: the lease is really gone
                }
            }
        }
    }
}
