package io.clockwork.worker;

import io.clockwork.queue.Delivery;
import io.clockwork.worker.BackendHealth.Operation;
import io.clockwork.worker.WorkerEvents.Event;

import java.util.ArrayList;
import java.util.List;

import static io.clockwork.worker.WorkerTask.DONE;
import static io.clockwork.worker.WorkerTask.SETTLING;
import static io.clockwork.worker.WorkerTask.TO_ACK;

/**
 * A {@link Worker}'s acker: the loop of its acker thread, which acks the jobs handlers finished with
 * {@link io.clockwork.queue.DelayedQueue#ackAll(List)}, up to {@link Worker#ACK_BATCH} per call, sending at once
 * whatever gathered while its previous call was in flight; a failed call puts the batch back and backs off.
 * Thread-safe: it works on the worker's state under the worker's lock.
 *
 * @param <V> the value type
 */
final class WorkerAcker<V> implements Runnable {

    private final Worker<V> w;

    WorkerAcker(Worker<V> worker) {
        this.w = worker;
    }

    @Override
    public void run() {
        List<WorkerTask<V>> batch = new ArrayList<>(Worker.ACK_BATCH);
        List<Delivery<V>> deliveries = new ArrayList<>(Worker.ACK_BATCH);
        while (true) {
            w.lock.lock();
            try {
                while (w.toAck.isEmpty() && !w.stopAcker) {
                    w.acks.await();
                }
                if (w.toAck.isEmpty()) {
                    return;
                }
                while (batch.size() < Worker.ACK_BATCH && !w.toAck.isEmpty()) {
                    WorkerTask<V> t = w.toAck.poll();
                    if (t.leaseLost) {
                        if (t.state.compareAndSet(TO_ACK, DONE)) {
                            w.held.remove(t); // never acked once its lease is known lost
                        }
                    } else if (t.state.compareAndSet(TO_ACK, SETTLING)) {
                        batch.add(t);
                    }
                }
                w.acking = batch.size();
            } catch (InterruptedException e) {
                return;
            } finally {
                w.lock.unlock();
            }
            for (WorkerTask<V> t : batch) {
                deliveries.add(t.delivery);
            }
            List<Boolean> acked = null;
            try {
                acked = deliveries.isEmpty() ? List.of() : w.queue.ackAll(deliveries);
                w.health.succeeded(Operation.ACK);
            } catch (RuntimeException e) {
                w.events.backendError(Operation.ACK, e);
                long backoff = w.health.failed(Operation.ACK, e);
                requeueAcks(batch);
                batch.clear();
                deliveries.clear();
                if (!pauseAcker(backoff)) {
                    return;
                }
                continue;
            }
            for (int i = 0; i < batch.size(); i++) {
                WorkerTask<V> t = batch.get(i);
                w.jobs.end(t);
                if (!acked.get(i)) {
                    w.jobs.leaseLost(t);
                } else {
                    w.events.fire(t, Event.ACKED, null, null);
                }
            }
            w.lock.lock();
            try {
                w.acking = 0;
                w.changed.signalAll();
            } finally {
                w.lock.unlock();
            }
            batch.clear();
            deliveries.clear();
        }
    }

    /** Puts a batch whose ackAll failed back in front, for the heartbeat to extend and the acker to retry. */
    private void requeueAcks(List<WorkerTask<V>> batch) {
        w.lock.lock();
        try {
            for (int i = batch.size() - 1; i >= 0; i--) {
                WorkerTask<V> t = batch.get(i);
                t.ackFailed = true;
                t.state.set(TO_ACK);
                w.toAck.addFirst(t);
            }
            w.acking = 0;
            w.changed.signalAll();
        } finally {
            w.lock.unlock();
        }
    }

    /** Backs off after a failed ack; false if the worker stopped meanwhile (a shutdown gives up on the acks). */
    private boolean pauseAcker(long nanos) {
        w.lock.lock();
        try {
            long left = nanos;
            while (left > 0 && !w.stopAcker) {
                left = w.acks.awaitNanos(left);
            }
            return !w.stopAcker;
        } catch (InterruptedException e) {
            return false;
        } finally {
            w.lock.unlock();
        }
    }

    /** Queues a finished job's ack for the acker thread. Any thread. */
    void queueAck(WorkerTask<V> t) {
        w.lock.lock();
        try {
            w.toAck.add(t);
            w.acks.signal();
        } finally {
            w.lock.unlock();
        }
    }
}
