package io.clockwork.worker;

import io.clockwork.queue.Delivery;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One delivery a {@link Worker} holds, and the {@link Job} its handler sees. Thread-safe: its state moves by
 * compare-and-set, so exactly one of the worker's threads settles it.
 *
 * <p>States: {@link #BUFFERED} (prefetched, not started), {@link #RUNNING} (its handler runs), {@link #TO_ACK}
 * (handled; its ack waits for the acker), {@link #SETTLING} (in an ack, nack, dead-letter or release call: the
 * heartbeat leaves it alone) and {@link #DONE}.
 *
 * @param <V> the value type
 */
final class WorkerTask<V> implements Job<V>, Runnable {

    static final int BUFFERED = 0;
    static final int RUNNING = 1;
    static final int TO_ACK = 2;
    static final int SETTLING = 3;
    static final int DONE = 4;

    final Delivery<V> delivery;
    final AtomicInteger state = new AtomicInteger(BUFFERED);
    /** When the lease began or was last extended, on the worker's ticker. */
    volatile long leaseFrom;
    volatile boolean leaseLost;
    /**
     * Set when an ack call failed: it may have run, so a lease that then looks lost may be this ack's doing; only the
     * acker's retry, whose backend can tell the two apart, decides.
     */
    volatile boolean ackFailed;
    /** Set, and the handler interrupted, under this task's monitor, so the interrupt never outlives the job. */
    volatile boolean abandoned;
    /** Set, and the handler interrupted, under this task's monitor, when its timeout passed or its lease was lost. */
    private boolean interrupted;
    /** The thread running the handler, while it runs; guarded by this task's monitor. */
    private Thread thread;
    private final Worker<V> worker;

    WorkerTask(Worker<V> worker, Delivery<V> delivery, long now) {
        this.worker = worker;
        this.delivery = delivery;
        this.leaseFrom = now;
    }

    /** BUFFERED to RUNNING; false if it was settled meanwhile (a lost lease). */
    boolean start() {
        return state.compareAndSet(BUFFERED, RUNNING);
    }

    /** Notes the thread that runs the handler, so that {@link #abandon} can interrupt it. */
    synchronized void runningOn(Thread t) {
        thread = t;
    }

    /** The handler returned or threw: clears the thread, and an interrupt meant for the handler only. */
    synchronized void handlerEnded() {
        thread = null;
        if (abandoned || interrupted) {
            Thread.interrupted(); // the interrupt was for the handler, not for the pool thread
        }
    }

    /** Interrupts the handler if it still runs this job (its timeout passed, or its lease was lost). */
    synchronized void interruptHandler() {
        if (thread != null) {
            interrupted = true;
            thread.interrupt();
        }
    }

    /** Interrupts a handler still running at the shutdown deadline; true if this call gave it up. */
    boolean abandon() {
        if (!state.compareAndSet(RUNNING, DONE)) {
            return false;
        }
        synchronized (this) {
            abandoned = true;
            if (thread != null) {
                thread.interrupt();
            }
        }
        return true;
    }

    /** Runs the job, and whatever its ack took in after it, on the calling (handler) thread. */
    @Override
    public void run() {
        worker.jobs.run(this);
    }

    @Override
    public String id() {
        return delivery.id();
    }

    @Override
    public V value() {
        return delivery.value();
    }

    @Override
    public int attempt() {
        return delivery.attempt();
    }

    @Override
    public Map<String, String> headers() {
        return delivery.headers();
    }

    @Override
    public boolean isLeaseLost() {
        return leaseLost;
    }

    @Override
    public String toString() {
        return "Job[" + delivery.id() + ", attempt " + delivery.attempt() + "]";
    }
}
