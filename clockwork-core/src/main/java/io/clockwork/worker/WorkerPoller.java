package io.clockwork.worker;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.worker.BackendHealth.Operation;
import io.clockwork.worker.WorkerEvents.Event;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

import static io.clockwork.worker.WorkerTask.BUFFERED;

/**
 * A {@link Worker}'s poller: the loop of its poller thread, which takes messages for free handlers and free
 * prefetch slots ({@link DelayedQueue#poll(int, java.time.Duration)}), buffers them, tells an adaptive prefetch how
 * each poll went ({@link PrefetchLimit#polled}), and starts buffered jobs on free handlers. Thread-safe: it works on
 * the worker's state under the worker's lock; {@link #dispatch()} runs on the poller and on handler threads.
 *
 * @param <V> the value type
 */
final class WorkerPoller<V> implements Runnable {

    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final Worker<V> w;

    WorkerPoller(Worker<V> worker) {
        this.w = worker;
    }

    @Override
    public void run() {
        while (true) {
            int n;
            w.lock.lock();
            try {
                while (w.polling && capacity() < 1) {
                    w.changed.await();
                }
                if (!w.polling) {
                    return;
                }
                n = Math.min(capacity(), DelayedQueue.MAX_BATCH);
                w.starved = w.running.size() < w.concurrency && w.buffer.isEmpty();
            } catch (InterruptedException e) {
                return;
            } finally {
                w.lock.unlock();
            }
            List<Delivery<V>> got;
            try {
                got = w.queue.poll(n, w.pollWait);
                w.health.succeeded(Operation.POLL);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                w.events.backendError(Operation.POLL, e);
                if (!pause(w.health.failed(Operation.POLL, e))) {
                    return;
                }
                continue;
            }
            accept(got, n);
        }
    }

    /**
     * Free handlers plus free prefetch slots, less the finished jobs waiting for an ack beyond one batch; the lock is
     * held. While acks fall behind (a slow or unreachable backend), polling pauses instead of piling up handled jobs
     * that stay in flight unacked, whose leases the heartbeat must keep extending and a shutdown would hand back.
     */
    private int capacity() {
        return w.concurrency + w.prefetch.now() - w.running.size() - w.buffer.size()
                - Math.max(0, w.toAck.size() - Worker.ACK_BATCH);
    }

    /**
     * Buffered jobs beyond the free handlers: those that wait because every handler is busy (a job a handler just
     * freed is about to take does not count); the lock is held.
     */
    private int waiting() {
        return Math.max(0, w.buffer.size() - Math.max(0, w.concurrency - w.running.size()));
    }

    /** Buffers what a poll that asked for {@code asked} returned, and lets the prefetch follow it. */
    private void accept(List<Delivery<V>> deliveries, int asked) {
        if (deliveries.isEmpty()) {
            if (w.prefetch.adaptive()) {
                w.lock.lock();
                try {
                    w.prefetch.polled(asked, 0, w.starved, waiting());
                } finally {
                    w.lock.unlock();
                }
            }
            return;
        }
        long now = w.ticker.read();
        List<WorkerTask<V>> tasks = new ArrayList<>(deliveries.size());
        for (Delivery<V> d : deliveries) {
            WorkerTask<V> t = new WorkerTask<>(w, d, now);
            w.held.add(t);
            tasks.add(t);
            w.events.fire(t, Event.DELIVERED, null, null);
        }
        boolean stopped;
        w.lock.lock();
        try {
            stopped = !w.polling;
            if (!stopped) {
                w.prefetch.polled(asked, tasks.size(), w.starved, waiting());
                w.buffer.addAll(tasks);
            }
        } finally {
            w.lock.unlock();
        }
        if (stopped) {
            for (WorkerTask<V> t : tasks) {
                w.jobs.release(t);
            }
        } else {
            dispatch();
        }
    }

    /** Starts buffered tasks on free handlers; called without the lock (the executor may run a task in place). */
    void dispatch() {
        while (true) {
            WorkerTask<V> t;
            w.lock.lock();
            try {
                if (w.running.size() >= w.concurrency || w.buffer.isEmpty()) {
                    return;
                }
                t = w.buffer.poll();
                if (!t.start()) {
                    continue; // its lease was lost while it waited
                }
                w.running.add(t);
            } finally {
                w.lock.unlock();
            }
            try {
                w.executor.execute(t);
            } catch (RejectedExecutionException e) {
                LOG.log(System.Logger.Level.WARNING, "worker '" + w.name + "': the executor refused a job; handing it"
                        + " back: " + e);
                w.lock.lock();
                try {
                    w.running.remove(t);
                    w.changed.signalAll();
                } finally {
                    w.lock.unlock();
                }
                t.state.set(BUFFERED);
                w.jobs.release(t);
            }
        }
    }

    /** Backs off after a failed poll; false if the worker stopped polling meanwhile. */
    private boolean pause(long nanos) {
        w.lock.lock();
        try {
            long left = nanos;
            while (left > 0 && w.polling) {
                left = w.changed.awaitNanos(left);
            }
            return w.polling;
        } catch (InterruptedException e) {
            return false;
        } finally {
            w.lock.unlock();
        }
    }
}
