package io.clockwork.worker;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.time.Nanos;
import io.clockwork.worker.BackendHealth.Operation;
import io.clockwork.worker.WorkerEvents.Event;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static io.clockwork.worker.WorkerTask.BUFFERED;
import static io.clockwork.worker.WorkerTask.DONE;
import static io.clockwork.worker.WorkerTask.RUNNING;
import static io.clockwork.worker.WorkerTask.SETTLING;
import static io.clockwork.worker.WorkerTask.TO_ACK;

/**
 * Runs a {@link JobHandler} over a {@link DelayedQueue}: takes messages, hands each to the handler on one of a bounded
 * number of threads, acks those handled, retries or dead-letters those that failed, keeps long jobs' leases alive,
 * and shuts down without losing or doubling anything. Thread-safe; started by {@link Builder#build()}, stopped by
 * {@link #shutdown(Duration)} or {@link #close()}. The same on every backend: it uses only the queue's contract.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Threads</b>: a poller takes messages with {@link DelayedQueue#poll(int, Duration)}, as many as there are
 *   free handlers plus free prefetch slots ({@code prefetch} 0: one per free handler), so at most
 *   {@code concurrency + prefetch} deliveries are held; {@code concurrency} handlers run at once, on the worker's own
 *   threads or on the caller's {@link Executor}; an acker acks what the handlers finished with
 *   {@link DelayedQueue#ackAll(List)}, sending at once whatever has gathered while its previous call was in flight
 *   (no linger, so acks are grouped under load and never wait when idle); a heartbeat extends every held delivery
 *   ({@link Delivery#extend(Duration)}) once a third of the queue's visibility timeout has passed since its lease
 *   began or was last extended.</li>
 *   <li><b>Outcomes</b>: a handler that returns normally is acked; one that throws is retried after the
 *   {@link RetryPolicy}'s delay (or the delay of a {@link RetryLater} it threw) with its error recorded
 *   ({@link Delivery#nack(Duration, String)}), or dead-lettered with {@code "class: message"} as the reason
 *   ({@link Delivery#deadLetter(String)}) when its exception is never retried or its attempts are used up (the
 *   policy's {@code maxAttempts}, or the queue's if lower).</li>
 *   <li><b>Leases</b>: a delivery whose extend or ack returns false has lost its lease (it timed out and may be with
 *   another consumer): the listener hears it once, {@link Job#isLeaseLost()} turns true, and the worker neither
 *   acks nor retries it; a prefetched one is dropped without running.</li>
 *   <li><b>Backend failures</b> never end the worker: every queue call is caught, the poller and the acker back off
 *   (bounded exponential, {@code BackendHealth}) and try again, and the log says so once per change of state.</li>
 *   <li><b>Shutdown</b> stops polling, hands back at once the prefetched deliveries that never started
 *   ({@link Delivery#release()}: due now, attempt unchanged), waits for running handlers and their acks up to the
 *   deadline, then interrupts what still runs (those messages come back after the visibility timeout). Every
 *   delivery ends exactly one way (acked, retried, dead, released, dropped after a lost lease, or abandoned), each
 *   decided by one compare-and-set on its state, so nothing is acked twice and nothing is lost.</li>
 * </ul>
 * Collaborators: {@link WorkerTask} (one held delivery and its state machine), {@link LeaseHeartbeat} (the heartbeat
 * thread) and {@link WorkerEvents} (listener calls); the worker keeps the poller, the handlers' turnover, the acker and
 * the shutdown, which share its lock.
 * Modelled on the workers of BullMQ ({@code Worker}: concurrency, lock renewal, graceful close), Sidekiq and
 * Amazon SQS consumers (visibility-timeout heartbeats); unlike BullMQ's, a lost lease is detected by the receipt
 * check of the backend rather than by a lock token per job.
 *
 * @param <V> the value type
 */
public final class Worker<V> implements AutoCloseable {

    /** Default handler count: 1. */
    public static final int DEFAULT_CONCURRENCY = 1;
    /** Largest handler count. */
    public static final int MAX_CONCURRENCY = 10_000;
    /** Default prefetch: 0, a message is taken only for a free handler. */
    public static final int DEFAULT_PREFETCH = 0;
    /** Default longest wait of one poll: 1 s, which also bounds how long a shutdown waits for the poller. */
    public static final Duration DEFAULT_POLL_WAIT = Duration.ofSeconds(1);
    /** Longest poll wait accepted: 1 min. */
    public static final Duration MAX_POLL_WAIT = Duration.ofMinutes(1);
    /** How long {@link #close()} lets running handlers finish: 30 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    /** Most deliveries one {@link DelayedQueue#ackAll(List)} call of the acker carries. */
    static final int ACK_BATCH = 100;

    private static final System.Logger LOG = System.getLogger(Worker.class.getName());
    private static final AtomicInteger WORKER_NUMBER = new AtomicInteger();

    private final DelayedQueue<V> queue;
    private final JobHandler<V> handler;
    private final int concurrency;
    private final int prefetch;
    private final RetryPolicy retry;
    private final WorkerEvents<V> events;
    private final Executor executor;
    private final ExecutorService ownThreads;
    private final Ticker ticker;
    private final Duration pollWait;
    private final Duration lease;
    private final int maxAttempts;
    private final String name;
    private final BackendHealth health;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when capacity frees up, work ends, a batch of acks ends, or the worker stops. */
    private final Condition changed = lock.newCondition();
    /** Signalled when acks arrive or the acker must stop: the acker's own, so a finished job wakes nobody else. */
    private final Condition acks = lock.newCondition();
    // Guarded by lock.
    private final ArrayDeque<WorkerTask<V>> buffer = new ArrayDeque<>();
    private final ArrayDeque<WorkerTask<V>> toAck = new ArrayDeque<>();
    private final Set<WorkerTask<V>> running = ConcurrentHashMap.newKeySet();
    private int acking;
    private boolean polling = true;
    private boolean stopAcker;
    private WorkerShutdown shutdown;

    /** Every delivery held: buffered, running or awaiting its ack; what the heartbeat extends. */
    private final Set<WorkerTask<V>> held = ConcurrentHashMap.newKeySet();
    private final AtomicInteger releasedAtShutdown = new AtomicInteger();
    private final AtomicInteger finishedDuringShutdown = new AtomicInteger();
    private volatile boolean shuttingDown;

    private final Thread poller;
    private final Thread acker;
    private final LeaseHeartbeat<V> heartbeat;
    private final Ticker.Watch watch;

    private Worker(Builder<V> b) {
        this.queue = b.queue;
        this.handler = b.handler;
        this.concurrency = b.concurrency != 0 ? b.concurrency : DEFAULT_CONCURRENCY;
        this.prefetch = b.prefetch >= 0 ? b.prefetch : DEFAULT_PREFETCH;
        this.retry = b.retry != null ? b.retry : RetryPolicy.DEFAULT;
        this.ticker = b.ticker != null ? b.ticker : Ticker.system();
        this.pollWait = b.pollWait != null ? b.pollWait : DEFAULT_POLL_WAIT;
        this.lease = queue.visibilityTimeout();
        this.maxAttempts = Math.min(retry.maxAttempts(), queue.maxAttempts());
        this.name = b.name != null ? b.name : queue.name() + "-" + WORKER_NUMBER.incrementAndGet();
        this.health = new BackendHealth("worker '" + name + "' of queue '" + queue.name() + "'");
        this.events = new WorkerEvents<>(b.listener, name);
        if (b.executor != null) {
            this.executor = b.executor;
            this.ownThreads = null;
        } else {
            AtomicInteger n = new AtomicInteger();
            this.ownThreads = Executors.newFixedThreadPool(concurrency,
                    r -> daemon(r, "clockwork-worker-" + name + "-handler-" + n.incrementAndGet()));
            this.executor = ownThreads;
        }
        this.poller = daemon(this::pollLoop, "clockwork-worker-" + name + "-poller");
        this.acker = daemon(this::ackLoop, "clockwork-worker-" + name + "-acker");
        this.heartbeat = new LeaseHeartbeat<>("clockwork-worker-" + name + "-heartbeat", ticker, lease, held, health,
                events, this::leaseLost);
        this.watch = ticker.watch(this::wakeAll);
        poller.start();
        acker.start();
        heartbeat.start();
    }

    /**
     * Starts a builder.
     *
     * @param queue   where the messages come from; the worker does not close it
     * @param handler what to do with each
     * @param <V>     the value type
     * @return the builder
     */
    public static <V> Builder<V> builder(DelayedQueue<V> queue, JobHandler<V> handler) {
        return new Builder<>(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(handler, "handler"));
    }

    /** @return the worker's name (its threads' names contain it) */
    public String name() {
        return name;
    }

    /** @return how many handlers run now */
    public int running() {
        return running.size();
    }

    /** @return how many deliveries the worker holds: prefetched, running, or awaiting their ack */
    public int held() {
        return held.size();
    }

    /**
     * Stops the worker: it takes no more messages, hands back at once the prefetched ones that never started, lets
     * running handlers finish and their acks land until {@code timeout} has passed, then interrupts the handlers
     * still running (their messages come back after the visibility timeout). Idempotent: later calls wait for the
     * first and return its result. Does not close the queue.
     *
     * @param timeout how long running handlers may take to finish
     * @return what happened
     * @throws InterruptedException if interrupted while waiting (the worker then finishes its shutdown without waiting
     *                              for handlers: it interrupts them)
     */
    public WorkerShutdown shutdown(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + Nanos.waitOf(timeout);
        synchronized (this) {
            if (shutdown != null) {
                return shutdown;
            }
            shuttingDown = true;
            try {
                shutdown = stop(deadline);
            } catch (InterruptedException e) {
                shutdown = stop(System.nanoTime());
                Thread.currentThread().interrupt();
            }
            return shutdown;
        }
    }

    /**
     * {@link #shutdown(Duration)} with {@link #DEFAULT_SHUTDOWN_TIMEOUT}; if interrupted, it interrupts the handlers
     * at once and keeps the thread's interrupt status.
     */
    @Override
    public void close() {
        try {
            shutdown(DEFAULT_SHUTDOWN_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "Worker[" + name + " on " + queue.name() + ", concurrency " + concurrency + ", prefetch " + prefetch
                + "]";
    }

    // ---- shutdown ----

    private WorkerShutdown stop(long deadline) throws InterruptedException {
        List<WorkerTask<V>> unstarted;
        lock.lock();
        try {
            polling = false;
            unstarted = new ArrayList<>(buffer);
            buffer.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        int runningAtStart = running.size();
        for (WorkerTask<V> t : unstarted) {
            release(t);
        }
        // The poller ends after its current poll (at most pollWait) and releases what that poll brings.
        joinUntil(poller, deadline);
        lock.lock();
        try {
            while ((!running.isEmpty() || !toAck.isEmpty() || acking > 0) && System.nanoTime() - deadline < 0) {
                changed.awaitNanos(deadline - System.nanoTime());
            }
        } finally {
            lock.unlock();
        }
        int interrupted = 0;
        for (WorkerTask<V> t : List.copyOf(running)) {
            if (t.abandon()) {
                held.remove(t);
                interrupted++;
            }
        }
        int unacked;
        lock.lock();
        try {
            stopAcker = true;
            changed.signalAll();
            acks.signalAll();
        } finally {
            lock.unlock();
        }
        heartbeat.stop();
        // The acker sends what is queued once more, then gives up on what the backend still refuses.
        acker.join(TimeUnit.NANOSECONDS.toMillis(Math.max(0L, deadline - System.nanoTime())) + 1);
        lock.lock();
        try {
            unacked = toAck.size() + acking;
            toAck.clear();
        } finally {
            lock.unlock();
        }
        heartbeat.join(1000);
        if (ownThreads != null) {
            ownThreads.shutdown();
        }
        watch.close();
        int finished = Math.max(0, Math.min(runningAtStart, finishedDuringShutdown.get()));
        WorkerShutdown result = new WorkerShutdown(releasedAtShutdown.get(), finished, interrupted, unacked);
        LOG.log(result.clean() ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
                () -> "worker '" + name + "' of queue '" + queue.name() + "' stopped: " + result);
        return result;
    }

    private static void joinUntil(Thread t, long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left > 0) {
            t.join(TimeUnit.NANOSECONDS.toMillis(left) + 1);
        }
    }

    // ---- the poller ----

    private void pollLoop() {
        while (true) {
            int n;
            lock.lock();
            try {
                while (polling && capacity() < 1) {
                    changed.await();
                }
                if (!polling) {
                    return;
                }
                n = Math.min(capacity(), DelayedQueue.MAX_BATCH);
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            List<Delivery<V>> got;
            try {
                got = queue.poll(n, pollWait);
                health.succeeded(Operation.POLL);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                events.backendError(Operation.POLL, e);
                if (!pause(health.failed(Operation.POLL, e))) {
                    return;
                }
                continue;
            }
            accept(got);
        }
    }

    /** Free handlers plus free prefetch slots; the lock is held. */
    private int capacity() {
        return concurrency + prefetch - running.size() - buffer.size();
    }

    private void accept(List<Delivery<V>> deliveries) {
        if (deliveries.isEmpty()) {
            return;
        }
        long now = ticker.read();
        List<WorkerTask<V>> tasks = new ArrayList<>(deliveries.size());
        for (Delivery<V> d : deliveries) {
            WorkerTask<V> t = new WorkerTask<>(this, d, now);
            held.add(t);
            tasks.add(t);
            events.fire(t, Event.DELIVERED, null, null);
        }
        boolean stopped;
        lock.lock();
        try {
            stopped = !polling;
            if (!stopped) {
                buffer.addAll(tasks);
            }
        } finally {
            lock.unlock();
        }
        if (stopped) {
            for (WorkerTask<V> t : tasks) {
                release(t);
            }
        } else {
            dispatch();
        }
    }

    /** Starts buffered tasks on free handlers; called without the lock (the executor may run a task in place). */
    private void dispatch() {
        while (true) {
            WorkerTask<V> t;
            lock.lock();
            try {
                if (running.size() >= concurrency || buffer.isEmpty()) {
                    return;
                }
                t = buffer.poll();
                if (!t.start()) {
                    continue; // its lease was lost while it waited
                }
                running.add(t);
            } finally {
                lock.unlock();
            }
            try {
                executor.execute(t);
            } catch (RejectedExecutionException e) {
                LOG.log(System.Logger.Level.WARNING, "worker '" + name + "': the executor refused a job; handing it"
                        + " back: " + e);
                lock.lock();
                try {
                    running.remove(t);
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
                t.state.set(BUFFERED);
                release(t);
            }
        }
    }

    // ---- a job's outcome ----

    /**
     * Runs on a handler thread: the handler, then the outcome; without prefetch, then the next job the ack took in
     * the same call (see {@link #turnover}), and so on while one is ready.
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
        long started = events.on() ? System.nanoTime() : 0L; // no clock read without a listener
        try {
            handler.handle(t);
        } catch (Throwable e) {
            failure = e;
        } finally {
            t.handlerEnded();
        }
        if (events.on()) {
            events.handled(t, System.nanoTime() - started, failure);
        }
        WorkerTask<V> next = null;
        if (failure == null) {
            if (prefetch == 0 && polling && !t.leaseLost && t.state.compareAndSet(RUNNING, SETTLING)) {
                next = turnover(t);
            } else if (t.state.compareAndSet(RUNNING, TO_ACK)) {
                queueAck(t);
            }
        } else if (t.state.compareAndSet(RUNNING, SETTLING)) {
            settleFailure(t, failure);
        }
        return finished(t, next);
    }

    private void queueAck(WorkerTask<V> t) {
        lock.lock();
        try {
            toAck.add(t);
            acks.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Without prefetch, a handler that finished acks its job and takes the next in one call
     * ({@link DelayedQueue#ackAndPoll}): no hand-off to the acker and the poller, one round trip per job. If the
     * backend fails, the ack goes to the acker (which retries it with backoff) and the poller takes the next.
     *
     * @param t a job in SETTLING
     * @return the next job, started (RUNNING), or null if none was ready
     */
    private WorkerTask<V> turnover(WorkerTask<V> t) {
        AckAndPoll<V> r;
        try {
            r = queue.ackAndPoll(t.delivery);
            health.succeeded(Operation.ACK);
        } catch (RuntimeException e) {
            events.backendError(Operation.ACK, e);
            health.failed(Operation.ACK, e);
            t.ackFailed = true;
            t.state.set(TO_ACK);
            queueAck(t);
            return null;
        }
        end(t);
        if (!r.acked()) {
            leaseLost(t);
        } else {
            events.fire(t, Event.ACKED, null, null);
        }
        if (r.next() == null) {
            return null;
        }
        WorkerTask<V> n = new WorkerTask<>(this, r.next(), ticker.read());
        held.add(n);
        events.fire(n, Event.DELIVERED, null, null);
        return n;
    }

    /**
     * Ends t's turn on its handler thread and, when the worker still polls, starts {@code next} in its place (else
     * hands next back at once).
     *
     * @return next, started; or null
     */
    private WorkerTask<V> finished(WorkerTask<V> t, WorkerTask<V> next) {
        boolean started = false;
        lock.lock();
        try {
            running.remove(t);
            if (shuttingDown && !t.abandoned) {
                finishedDuringShutdown.incrementAndGet();
            }
            if (next != null && polling && next.start()) {
                running.add(next);
                started = true;
            }
            if (!started || shuttingDown) {
                changed.signalAll(); // capacity freed; a turnover frees none, and waking the poller would cost
            }
        } finally {
            lock.unlock();
        }
        if (next != null && !started) {
            release(next);
        }
        if (polling) {
            dispatch();
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
        boolean dies = t.attempt() >= maxAttempts || !(failure instanceof RetryLater) && !retry.retries(failure);
        Operation op = dies ? Operation.DEAD_LETTER : Operation.NACK;
        Duration delay = null;
        boolean held;
        try {
            if (dies) {
                held = t.delivery.deadLetter(error);
            } else {
                delay = failure instanceof RetryLater later ? later.delay() : retry.delayAfter(t.attempt());
                held = t.delivery.nack(delay, error);
            }
            health.succeeded(op);
        } catch (RuntimeException e) {
            // The message comes back after the visibility timeout: the attempt counts anyway.
            events.backendError(op, e);
            health.failed(op, e);
            end(t);
            return;
        }
        end(t);
        if (!held) {
            leaseLost(t);
        } else {
            events.fire(t, dies ? Event.DEAD_LETTERED : Event.RETRIED, error, delay);
        }
    }

    /** The recorded error: the class name, and the message if any. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null ? e.getClass().getName() : e.getClass().getName() + ": " + message;
    }

    private void release(WorkerTask<V> t) {
        if (!t.state.compareAndSet(BUFFERED, SETTLING)) {
            return;
        }
        boolean released;
        try {
            released = t.delivery.release();
            health.succeeded(Operation.RELEASE);
        } catch (RuntimeException e) {
            events.backendError(Operation.RELEASE, e);
            health.failed(Operation.RELEASE, e);
            end(t);
            return;
        }
        end(t);
        if (released) {
            releasedAtShutdown.incrementAndGet();
            events.fire(t, Event.RELEASED, null, null);
        }
    }

    private void end(WorkerTask<V> t) {
        t.state.set(DONE);
        held.remove(t);
    }

    /** Called when an extend or ack found the delivery no longer holding its message. */
    private void leaseLost(WorkerTask<V> t) {
        if (t.leaseLost) {
            return;
        }
        t.leaseLost = true;
        if (t.state.compareAndSet(BUFFERED, DONE)) {
            held.remove(t);
            lock.lock();
            try {
                buffer.remove(t);
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
        events.fire(t, Event.LEASE_LOST, null, null);
    }

    // ---- the acker ----

    private void ackLoop() {
        List<WorkerTask<V>> batch = new ArrayList<>(ACK_BATCH);
        List<Delivery<V>> deliveries = new ArrayList<>(ACK_BATCH);
        while (true) {
            lock.lock();
            try {
                while (toAck.isEmpty() && !stopAcker) {
                    acks.await();
                }
                if (toAck.isEmpty()) {
                    return;
                }
                while (batch.size() < ACK_BATCH && !toAck.isEmpty()) {
                    WorkerTask<V> t = toAck.poll();
                    if (t.leaseLost) {
                        if (t.state.compareAndSet(TO_ACK, DONE)) {
                            held.remove(t); // never acked once its lease is known lost
                        }
                    } else if (t.state.compareAndSet(TO_ACK, SETTLING)) {
                        batch.add(t);
                    }
                }
                acking = batch.size();
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            for (WorkerTask<V> t : batch) {
                deliveries.add(t.delivery);
            }
            List<Boolean> acked = null;
            try {
                acked = deliveries.isEmpty() ? List.of() : queue.ackAll(deliveries);
                health.succeeded(Operation.ACK);
            } catch (RuntimeException e) {
                events.backendError(Operation.ACK, e);
                long backoff = health.failed(Operation.ACK, e);
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
                end(t);
                if (!acked.get(i)) {
                    leaseLost(t);
                } else {
                    events.fire(t, Event.ACKED, null, null);
                }
            }
            lock.lock();
            try {
                acking = 0;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            batch.clear();
            deliveries.clear();
        }
    }

    /** Puts a batch whose ackAll failed back in front, for the heartbeat to extend and the acker to retry. */
    private void requeueAcks(List<WorkerTask<V>> batch) {
        lock.lock();
        try {
            for (int i = batch.size() - 1; i >= 0; i--) {
                WorkerTask<V> t = batch.get(i);
                t.ackFailed = true;
                t.state.set(TO_ACK);
                toAck.addFirst(t);
            }
            acking = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Backs off after a failed ack; false if the worker stopped meanwhile (a shutdown gives up on the acks). */
    private boolean pauseAcker(long nanos) {
        lock.lock();
        try {
            long left = nanos;
            while (left > 0 && !stopAcker) {
                left = acks.awaitNanos(left);
            }
            return !stopAcker;
        } catch (InterruptedException e) {
            return false;
        } finally {
            lock.unlock();
        }
    }

    // ---- shared ----

    /** Backs off after a failed poll; false if the worker stopped polling meanwhile. */
    private boolean pause(long nanos) {
        lock.lock();
        try {
            long left = nanos;
            while (left > 0 && polling) {
                left = changed.awaitNanos(left);
            }
            return polling;
        } catch (InterruptedException e) {
            return false;
        } finally {
            lock.unlock();
        }
    }

    private void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
            acks.signalAll();
        } finally {
            lock.unlock();
        }
        heartbeat.wake();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Builds and starts a {@link Worker}. Not thread-safe. Each option may be set once; a bad value fails at once,
     * naming the option and its range.
     *
     * @param <V> the value type
     */
    public static final class Builder<V> {
        private final DelayedQueue<V> queue;
        private final JobHandler<V> handler;
        private int concurrency;
        private int prefetch = -1;
        private Executor executor;
        private RetryPolicy retry;
        private WorkerListener<V> listener;
        private Ticker ticker;
        private Duration pollWait;
        private String name;

        private Builder(DelayedQueue<V> queue, JobHandler<V> handler) {
            this.queue = queue;
            this.handler = handler;
        }

        /**
         * @param concurrency how many handlers run at once, in [1, {@value #MAX_CONCURRENCY}]; default 1
         * @return this builder
         */
        public Builder<V> concurrency(int concurrency) {
            checkUnset(this.concurrency != 0, "concurrency");
            if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
                throw new IllegalArgumentException("concurrency must be in [1, " + MAX_CONCURRENCY + "], was "
                        + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /**
         * @param prefetch how many messages to hold beyond those running, taken in the same polls, in
         *                 [0, {@link DelayedQueue#MAX_BATCH}]; default 0 (one message per free handler). Prefetched
         *                 messages are in flight: the heartbeat extends them, and a shutdown hands them back at once.
         * @return this builder
         */
        public Builder<V> prefetch(int prefetch) {
            checkUnset(this.prefetch >= 0, "prefetch");
            if (prefetch < 0 || prefetch > DelayedQueue.MAX_BATCH) {
                throw new IllegalArgumentException("prefetch must be in [0, " + DelayedQueue.MAX_BATCH + "], was "
                        + prefetch);
            }
            this.prefetch = prefetch;
            return this;
        }

        /**
         * @param executor runs the handlers instead of the worker's own {@code concurrency} threads; the worker
         *                 still starts at most {@code concurrency} at once, and neither shuts it down nor owns its
         *                 threads (it interrupts only a handler of its own that outlives a shutdown's deadline)
         * @return this builder
         */
        public Builder<V> executor(Executor executor) {
            Objects.requireNonNull(executor, "executor");
            checkUnset(this.executor != null, "executor");
            this.executor = executor;
            return this;
        }

        /**
         * @param policy how failed jobs are retried; default {@link RetryPolicy#DEFAULT}
         * @return this builder
         */
        public Builder<V> retryPolicy(RetryPolicy policy) {
            Objects.requireNonNull(policy, "retryPolicy");
            checkUnset(this.retry != null, "retryPolicy");
            this.retry = policy;
            return this;
        }

        /**
         * @param listener hears the worker's life-cycle events; default none (and no cost)
         * @return this builder
         */
        public Builder<V> listener(WorkerListener<V> listener) {
            Objects.requireNonNull(listener, "listener");
            checkUnset(this.listener != null, "listener");
            this.listener = listener;
            return this;
        }

        /**
         * @param ticker the clock of the heartbeat (when a lease is due for extension); default the system ticker.
         *               Give the queue's ticker where a test drives time.
         * @return this builder
         */
        public Builder<V> ticker(Ticker ticker) {
            Objects.requireNonNull(ticker, "ticker");
            checkUnset(this.ticker != null, "ticker");
            this.ticker = ticker;
            return this;
        }

        /**
         * @param wait the longest wait of one poll, in (0, {@link #MAX_POLL_WAIT}]; default 1 s. A shutdown waits
         *             at most this long for the poll in progress.
         * @return this builder
         */
        public Builder<V> pollWait(Duration wait) {
            Objects.requireNonNull(wait, "pollWait");
            checkUnset(this.pollWait != null, "pollWait");
            if (wait.isNegative() || wait.isZero() || wait.compareTo(MAX_POLL_WAIT) > 0) {
                throw new IllegalArgumentException("pollWait must be in (0, " + MAX_POLL_WAIT + "], was " + wait);
            }
            this.pollWait = wait;
            return this;
        }

        /**
         * @param name names the worker's threads and log lines; default the queue's name and a number
         * @return this builder
         */
        public Builder<V> name(String name) {
            Objects.requireNonNull(name, "name");
            checkUnset(this.name != null, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
            return this;
        }

        /**
         * Builds the worker and starts it: it begins taking messages at once.
         *
         * @return the running worker
         */
        public Worker<V> build() {
            return new Worker<>(this);
        }

        private static void checkUnset(boolean set, String option) {
            if (set) {
                throw new IllegalStateException(option + " was already set");
            }
        }
    }
}
