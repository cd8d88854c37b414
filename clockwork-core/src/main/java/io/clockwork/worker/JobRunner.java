package io.clockwork.worker;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.timer.Timeout;
import io.clockwork.worker.BackendHealth.Operation;
import io.clockwork.worker.WorkerEvents.Event;

import java.time.Duration;

import static io.clockwork.worker.WorkerTask.BUFFERED;
import static io.clockwork.worker.WorkerTask.DONE;
import static io.clockwork.worker.WorkerTask.RUNNING;
import static io.clockwork.worker.WorkerTask.SETTLING;
import static io.clockwork.worker.WorkerTask.TO_ACK;

/**
 * Runs a {@link Worker}'s jobs and settles each one's outcome: the handler, then an ack (queued for the acker, or,
 * while the prefetch is 0, {@link DelayedQueue#ackAndPoll} taking the next job on the same thread), a retry or a
 * dead letter by the {@link RetryPolicy}, a release of a job that never started, or nothing after a lost lease.
 * Thread-safe: each job's end is decided by one compare-and-set on its state, and the worker's state is changed
 * under its lock.
 *
 * @param <V> the value type
 */
final class JobRunner<V> {

    private final Worker<V> w;

    JobRunner(Worker<V> worker) {
        this.w = worker;
    }

    /**
     * Runs on a handler thread: the handler, then the outcome; while the prefetch is 0, then the next job the ack
     * took in the same call (see {@link #turnover}), and so on while one is ready.
     */
    void run(WorkerTask<V> first) {
        WorkerTask<V> t = first;
        while (t != null) {
            t = runOne(t);
        }
    }

    /** Runs one job and settles it; returns the next job, already started on this thread, if its ack took one. */
    private WorkerTask<V> runOne(WorkerTask<V> t) {
        Throwable failure = null;
        t.runningOn(Thread.currentThread());
        long started = w.events.on() ? System.nanoTime() : 0L; // no clock read without a listener
        Timeout deadline = null;
        try {
            deadline = w.timeouts.start(t);
            w.handler.handle(t);
        } catch (Throwable e) {
            failure = e;
        } finally {
            if (deadline != null) {
                deadline.cancel();
            }
            t.handlerEnded();
        }
        if (w.events.on()) {
            w.events.handled(t, System.nanoTime() - started, failure);
        }
        WorkerTask<V> next = null;
        if (failure == null) {
            if (w.prefetch.now() == 0 && w.polling && !t.leaseLost && t.state.compareAndSet(RUNNING, SETTLING)) {
                next = turnover(t);
            } else if (t.state.compareAndSet(RUNNING, TO_ACK)) {
                w.ackLoop.queueAck(t);
            }
        } else if (t.state.compareAndSet(RUNNING, SETTLING)) {
            settleFailure(t, failure);
        }
        return finished(t, next);
    }

    /**
     * While the prefetch is 0, a handler that finished acks its job and takes the next in one call
     * ({@link DelayedQueue#ackAndPoll}): no hand-off to the acker and the poller, one round trip per job. If the
     * backend fails, the ack goes to the acker (which retries it with backoff) and the poller takes the next.
     *
     * @param t a job in SETTLING
     * @return the next job, started (RUNNING), or null if none was ready
     */
    private WorkerTask<V> turnover(WorkerTask<V> t) {
        AckAndPoll<V> r;
        try {
            r = w.queue.ackAndPoll(t.delivery);
            w.health.succeeded(Operation.ACK);
        } catch (RuntimeException e) {
            w.events.backendError(Operation.ACK, e);
            w.health.failed(Operation.ACK, e);
            t.ackFailed = true;
            t.state.set(TO_ACK);
            w.ackLoop.queueAck(t);
            return null;
        }
        end(t);
        if (!r.acked()) {
            leaseLost(t);
        } else {
            w.events.fire(t, Event.ACKED, null, null);
        }
        if (r.next() == null) {
            return null;
        }
        WorkerTask<V> n = new WorkerTask<>(w, r.next(), w.ticker.read());
        w.held.add(n);
        w.events.fire(n, Event.DELIVERED, null, null);
        return n;
    }

    /**
     * Ends t's turn on its handler thread and, when the worker still polls, starts {@code next} in its place (else
     * hands next back at once). A next job is evidence of a backlog for an adaptive prefetch; a handler left with
     * nothing buffered to start is a starved one.
     *
     * @return next, started; or null
     */
    private WorkerTask<V> finished(WorkerTask<V> t, WorkerTask<V> next) {
        boolean started = false;
        w.lock.lock();
        try {
            w.running.remove(t);
            if (w.shuttingDown && !t.abandoned) {
                w.finishedDuringShutdown.incrementAndGet();
            }
            if (next != null && w.polling && next.start()) {
                w.running.add(next);
                started = true;
            }
            boolean grew = next != null && w.prefetch.turnoverTookNext();
            if (!started && w.buffer.isEmpty()) {
                w.starved = true;
            }
            if (!started || grew || w.shuttingDown) {
                // capacity freed, or more prefetch slots; a turnover alone frees none, and waking the poller costs
                w.changed.signalAll();
            }
        } finally {
            w.lock.unlock();
        }
        if (next != null && !started) {
            release(next);
        }
        if (w.polling) {
            w.pollLoop.dispatch();
        }
        return started ? next : null;
    }

    private void settleFailure(WorkerTask<V> t, Throwable failure) {
        if (t.leaseLost) {
            end(t); // another consumer may have it now: neither retried nor buried from here
            return;
        }
        Throwable cause = failure instanceof RetryLater && failure.getCause() != null ? failure.getCause() : failure;
        String error = describe(cause);
        boolean dies = t.attempt() >= w.maxAttempts || !(failure instanceof RetryLater) && !w.retry.retries(failure);
        Operation op = dies ? Operation.DEAD_LETTER : Operation.NACK;
        Duration delay = null;
        boolean kept;
        try {
            if (dies) {
                kept = t.delivery.deadLetter(error);
            } else {
                delay = failure instanceof RetryLater later ? later.delay() : w.retry.delayAfter(t.attempt());
                kept = t.delivery.nack(delay, error);
            }
            w.health.succeeded(op);
        } catch (RuntimeException e) {
            // The message comes back after the visibility timeout: the attempt counts anyway.
            w.events.backendError(op, e);
            w.health.failed(op, e);
            end(t);
            return;
        }
        end(t);
        if (!kept) {
            leaseLost(t);
        } else {
            w.events.fire(t, dies ? Event.DEAD_LETTERED : Event.RETRIED, error, delay);
        }
    }

    /** The recorded error: the class name, and the message if any. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getName() : e.getClass().getName() + ": " + message;
    }

    /** Hands back a job that never started ({@link io.clockwork.queue.Delivery#release()}): due now, attempt kept. */
    void release(WorkerTask<V> t) {
        if (!t.state.compareAndSet(BUFFERED, SETTLING)) {
            return;
        }
        boolean released;
        try {
            released = t.delivery.release();
            w.health.succeeded(Operation.RELEASE);
        } catch (RuntimeException e) {
            w.events.backendError(Operation.RELEASE, e);
            w.health.failed(Operation.RELEASE, e);
            end(t);
            return;
        }
        end(t);
        if (released) {
            w.releasedAtShutdown.incrementAndGet();
            w.events.fire(t, Event.RELEASED, null, null);
        }
    }

    /** Marks a job settled and stops holding it (the heartbeat no longer extends it). */
    void end(WorkerTask<V> t) {
        t.state.set(DONE);
        w.held.remove(t);
    }

    /**
     * Called on the timer's thread when a job's timeout passed: if its handler still runs, it is interrupted and the
     * attempt settled as failed at once ({@link JobTimeoutException}, retried or dead-lettered by the policy), so
     * a handler that ignores the interrupt holds its thread but not the message.
     */
    void timedOut(WorkerTask<V> t, Duration timeout) {
        if (t.state.compareAndSet(RUNNING, SETTLING)) {
            t.interruptHandler();
            w.events.fire(t, Event.TIMED_OUT, null, timeout);
            settleFailure(t, new JobTimeoutException(t.id(), t.attempt(), timeout));
        }
    }

    /**
     * Called when an extend or ack found the delivery no longer holding its message (it was cancelled, or its
     * visibility timeout passed and it may be with another consumer): a handler still running it is interrupted, and
     * nothing is acked or retried.
     */
    void leaseLost(WorkerTask<V> t) {
        if (t.leaseLost) {
            return;
        }
        t.leaseLost = true;
        if (t.state.get() == RUNNING) {
            t.interruptHandler();
        }
        if (t.state.compareAndSet(BUFFERED, DONE)) {
            w.held.remove(t);
            w.lock.lock();
            try {
                w.buffer.remove(t);
                w.changed.signalAll();
            } finally {
                w.lock.unlock();
            }
        }
        w.events.fire(t, Event.LEASE_LOST, null, null);
    }
}
