package io.clockwork.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Worker}'s graceful shutdown, step by step: stop polling, hand back the prefetched deliveries that never
 * started ({@link io.clockwork.queue.Delivery#release()}), wait for running handlers and their acks up to the
 * deadline, interrupt what still runs, stop the acker and the heartbeat, and count what happened. Not thread-safe:
 * {@link Worker#shutdown(java.time.Duration)} runs it once, under the worker's monitor.
 *
 * @param <V> the value type
 */
final class ShutdownSequence<V> {

    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final Worker<V> w;

    ShutdownSequence(Worker<V> worker) {
        this.w = worker;
    }

    /**
     * Stops the worker: no more polls; prefetched jobs handed back at once; running handlers and their acks waited
     * for until {@code deadline}, then interrupted; the threads ended.
     *
     * @param deadline a {@link System#nanoTime()} reading
     * @return what happened
     * @throws InterruptedException if interrupted while waiting
     */
    WorkerShutdown stop(long deadline) throws InterruptedException {
        List<WorkerTask<V>> unstarted;
        w.lock.lock();
        try {
            w.polling = false;
            unstarted = new ArrayList<>(w.buffer);
            w.buffer.clear();
            w.changed.signalAll();
        } finally {
            w.lock.unlock();
        }
        int runningAtStart = w.running.size();
        for (WorkerTask<V> t : unstarted) {
            w.jobs.release(t);
        }
        // The poller ends after its current poll (at most pollWait) and releases what that poll brings.
        joinUntil(w.poller, deadline);
        w.lock.lock();
        try {
            while ((!w.running.isEmpty() || !w.toAck.isEmpty() || w.acking > 0) && System.nanoTime() - deadline < 0) {
                w.changed.awaitNanos(deadline - System.nanoTime());
            }
        } finally {
            w.lock.unlock();
        }
        int interrupted = 0;
        for (WorkerTask<V> t : List.copyOf(w.running)) {
            if (t.abandon()) {
                w.held.remove(t);
                interrupted++;
            }
        }
        int unacked;
        w.lock.lock();
        try {
            w.stopAcker = true;
            w.changed.signalAll();
            w.acks.signalAll();
        } finally {
            w.lock.unlock();
        }
        w.heartbeat.stop();
        // The acker sends what is queued once more, then gives up on what the backend still refuses.
        w.acker.join(TimeUnit.NANOSECONDS.toMillis(Math.max(0L, deadline - System.nanoTime())) + 1);
        w.lock.lock();
        try {
            unacked = w.toAck.size() + w.acking;
            w.toAck.clear();
        } finally {
            w.lock.unlock();
        }
        w.heartbeat.join(1000);
        if (w.ownThreads != null) {
            w.ownThreads.shutdown();
        }
        w.watch.close();
        w.timeouts.close();
        int finished = Math.max(0, Math.min(runningAtStart, w.finishedDuringShutdown.get()));
        WorkerShutdown result = new WorkerShutdown(w.releasedAtShutdown.get(), finished, interrupted, unacked);
        LOG.log(result.clean() ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
                () -> "worker '" + w.name + "' of queue '" + w.queue.name() + "' stopped: " + result);
        return result;
    }

    private static void joinUntil(Thread t, long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left > 0) {
            t.join(TimeUnit.NANOSECONDS.toMillis(left) + 1);
        }
    }
}
