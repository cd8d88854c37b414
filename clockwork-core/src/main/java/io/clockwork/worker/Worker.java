package io.clockwork.worker;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.time.Nanos;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
 *   {@code concurrency + prefetch} deliveries are held besides finished jobs awaiting their ack; {@code concurrency}
 *   handlers run at once, on the worker's own threads or on the caller's {@link Executor}; with a prefetch above 0,
 *   an acker acks what the handlers finished with {@link DelayedQueue#ackAll(List)}, sending at once whatever has
 *   gathered while its previous call was in flight (no linger, so acks are grouped under load and never wait when
 *   idle), and while more than one batch ({@code ACK_BATCH}) of finished jobs waits for its ack the poller takes
 *   that many fewer, so acks that fall behind slow the polls instead of piling up jobs held unacked; with prefetch
 *   0, a handler that finished acks its job and takes the next in one call ({@link DelayedQueue#ackAndPoll}); a
 *   heartbeat extends every held delivery, prefetched ones included ({@link Delivery#extend(Duration)}), once a third
 *   of the queue's visibility timeout has passed since its lease began or was last extended.</li>
 *   <li><b>Prefetch</b>: one set on the builder stays as set. Unset, it adapts to the load ({@code PrefetchLimit}):
 *   it starts at 0, the cheapest and quickest path while messages trickle in, and doubles (to at least
 *   {@code concurrency}, at most {@link #MAX_ADAPTIVE_PREFETCH} and {@link #ADAPTIVE_PREFETCH_PER_HANDLER} per
 *   handler) when a handler that finished finds more due ({@code ackAndPoll} returned a next message) or, above 0,
 *   when a handler sat idle with nothing buffered while a poll that then came back full was in flight; it halves
 *   when a poll comes back short (fewer were due than it asked for), so an idle queue brings it back to 0 within a
 *   few polls; and it drops by one when a full poll returns while buffered jobs still wait for handlers, so slow
 *   handlers do not hoard messages other consumers could take. A backlog of quick jobs thus gets batched polls and
 *   acks without any setting.</li>
 *   <li><b>Outcomes</b>: a handler that returns normally is acked; one that throws is retried after the
 *   {@link RetryPolicy}'s delay (or the delay of a {@link RetryLater} it threw) with its error recorded
 *   ({@link Delivery#nack(Duration, String)}), or dead-lettered with {@code "class: message"} as the reason
 *   ({@link Delivery#deadLetter(String)}) when its exception is never retried or its attempts are used up (the
 *   policy's {@code maxAttempts}, or the queue's if lower). A job past its timeout ({@link Builder#timeout}, or the
 *   message's own) is interrupted and settled as failed at once ({@link JobTimeoutException}).</li>
 *   <li><b>Leases</b>: a delivery whose extend or ack returns false has lost its lease (it timed out and may be with
 *   another consumer, or it was cancelled, {@link DelayedQueue#cancel}): the listener hears it once,
 *   {@link Job#isLeaseLost()} turns true, a running handler is interrupted, and the worker neither acks nor retries
 *   it; a prefetched one is dropped without running. A cancel thus reaches a running job at the next heartbeat.</li>
 *   <li><b>Backend failures</b> never end the worker: every queue call is caught, the poller and the acker back off
 *   (bounded exponential, {@code BackendHealth}) and try again, and the log says so once per change of state.</li>
 *   <li><b>Shutdown</b> stops polling, hands back at once the prefetched deliveries that never started
 *   ({@link Delivery#release()}: due now, attempt unchanged), waits for running handlers and their acks up to the
 *   deadline, then interrupts what still runs (those messages come back after the visibility timeout). Every
 *   delivery ends exactly one way (acked, retried, dead, released, dropped after a lost lease, or abandoned), each
 *   decided by one compare-and-set on its state, so nothing is acked twice and nothing is lost.</li>
 * </ul>
 * Collaborators, each in its own class: {@link WorkerTask} (one held delivery and its state machine),
 * {@link WorkerPoller} (the poller thread and the start of buffered jobs), {@link JobRunner} (a job's handler and
 * outcome), {@link WorkerAcker} (the acker thread), {@link LeaseHeartbeat} (the heartbeat thread),
 * {@link ShutdownSequence} (the graceful shutdown) and {@link WorkerEvents} (listener calls). The worker holds the
 * state they share, guarded by its lock, and the public face.
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
    /**
     * Where the default, adaptive prefetch starts and returns to when the queue is idle: 0, a message is taken only
     * for a free handler. Also the explicit prefetch that keeps a worker there under any load.
     */
    public static final int DEFAULT_PREFETCH = 0;
    /**
     * Most messages the adaptive prefetch holds beyond running handlers: 100, what one {@link DelayedQueue#ackAll}
     * call of the acker carries. A round trip shared by that many jobs is already a small part of each job's cost, so
     * a larger buffer would only keep more messages from the queue's other consumers.
     */
    public static final int MAX_ADAPTIVE_PREFETCH = 100;
    /**
     * Most messages the adaptive prefetch holds per handler: 25. A worker with few handlers drains its buffer slowly,
     * and what it buffers no other consumer can take, so the adaptive limit is the lower of
     * {@link #MAX_ADAPTIVE_PREFETCH} and this times {@code concurrency}.
     */
    public static final int ADAPTIVE_PREFETCH_PER_HANDLER = 25;
    /** Default longest wait of one poll: 1 s, which also bounds how long a shutdown waits for the poller. */
    public static final Duration DEFAULT_POLL_WAIT = Duration.ofSeconds(1);
    /** Longest poll wait accepted: 1 min. */
    public static final Duration MAX_POLL_WAIT = Duration.ofMinutes(1);
    /** How long {@link #close()} lets running handlers finish: 30 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    /** Most deliveries one {@link DelayedQueue#ackAll(List)} call of the acker carries. */
    static final int ACK_BATCH = 100;

    private static final AtomicInteger WORKER_NUMBER = new AtomicInteger();

    // What the collaborators (WorkerPoller, JobRunner, WorkerAcker, ShutdownSequence) share: set once here, or
    // guarded as marked.
    final DelayedQueue<V> queue;
    final JobHandler<V> handler;
    final int concurrency;
    /** The prefetch set, or the adaptive one; its current value is read without the lock, changed under it. */
    final PrefetchLimit prefetch;
    final RetryPolicy retry;
    final WorkerEvents<V> events;
    final Executor executor;
    final ExecutorService ownThreads;
    final Ticker ticker;
    final Duration pollWait;
    final Duration lease;
    final int maxAttempts;
    final String name;
    final BackendHealth health;

    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when capacity frees up, work ends, a batch of acks ends, or the worker stops. */
    final Condition changed = lock.newCondition();
    /** Signalled when acks arrive or the acker must stop: the acker's own, so a finished job wakes nobody else. */
    final Condition acks = lock.newCondition();
    // Guarded by lock.
    final ArrayDeque<WorkerTask<V>> buffer = new ArrayDeque<>();
    final ArrayDeque<WorkerTask<V>> toAck = new ArrayDeque<>();
    final Set<WorkerTask<V>> running = ConcurrentHashMap.newKeySet();
    int acking;
    boolean polling = true;
    /** Whether a handler sat idle with nothing buffered since the poller last asked for messages. */
    boolean starved;
    boolean stopAcker;

    /** Every delivery held: buffered, running or awaiting its ack; what the heartbeat extends. */
    final Set<WorkerTask<V>> held = ConcurrentHashMap.newKeySet();
    final AtomicInteger releasedAtShutdown = new AtomicInteger();
    final AtomicInteger finishedDuringShutdown = new AtomicInteger();
    volatile boolean shuttingDown;

    final JobRunner<V> jobs = new JobRunner<>(this);
    final WorkerPoller<V> pollLoop = new WorkerPoller<>(this);
    final WorkerAcker<V> ackLoop = new WorkerAcker<>(this);
    final Thread poller;
    final Thread acker;
    final LeaseHeartbeat<V> heartbeat;
    final JobTimeouts<V> timeouts;
    /** The worker's job timeout, or null for none. */
    private final Duration timeout;
    final Ticker.Watch watch;

    private WorkerShutdown shutdown; // guarded by this

    private Worker(Builder<V> b) {
        this.queue = b.queue;
        this.handler = b.handler;
        this.concurrency = b.concurrency != 0 ? b.concurrency : DEFAULT_CONCURRENCY;
        this.prefetch = b.prefetch >= 0 ? PrefetchLimit.fixed(b.prefetch)
                : PrefetchLimit.adaptive(concurrency, adaptivePrefetchMax(concurrency));
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
        this.poller = daemon(pollLoop, "clockwork-worker-" + name + "-poller");
        this.acker = daemon(ackLoop, "clockwork-worker-" + name + "-acker");
        this.heartbeat = new LeaseHeartbeat<>("clockwork-worker-" + name + "-heartbeat", ticker, lease, held, health,
                events, jobs::leaseLost);
        this.timeout = b.timeout;
        this.timeouts = new JobTimeouts<>("clockwork-worker-" + name + "-timeouts", ticker, b.timeout,
                jobs::timedOut);
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

    /** @return the prefetch now: the one set, or the adaptive one's current value */
    int prefetchNow() {
        return prefetch.now();
    }

    /** @return how many prefetched deliveries wait for a free handler */
    int buffered() {
        lock.lock();
        try {
            return buffer.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The largest adaptive prefetch of a worker with {@code concurrency} handlers: the lower of
     * {@link #MAX_ADAPTIVE_PREFETCH} and {@link #ADAPTIVE_PREFETCH_PER_HANDLER} per handler.
     */
    static int adaptivePrefetchMax(int concurrency) {
        return Math.min(MAX_ADAPTIVE_PREFETCH, ADAPTIVE_PREFETCH_PER_HANDLER * concurrency);
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
                shutdown = new ShutdownSequence<>(this).stop(deadline);
            } catch (InterruptedException e) {
                shutdown = new ShutdownSequence<>(this).stop(System.nanoTime());
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
                + (timeout != null ? ", timeout " + timeout : "") + "]";
    }

    /** Wakes every thread of the worker that waits, after a ticker jump. */
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
        private Duration timeout;
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
         * Fixes the prefetch; unset, it adapts to the load. Adaptive, it starts at 0 (one message per free handler,
         * each finished handler acking and taking the next in one {@link DelayedQueue#ackAndPoll} call), grows
         * by doubling, to at least {@code concurrency}, when finished handlers find more messages due or sit idle
         * while a full poll is in flight, halves when a poll comes back short, and drops by one when a full poll
         * returns while prefetched jobs still wait; it never exceeds the lower of {@link #MAX_ADAPTIVE_PREFETCH}
         * and {@link #ADAPTIVE_PREFETCH_PER_HANDLER} times {@code concurrency}. Set it to fix the trade-off: 0 holds
         * only what runs (no batched acks); more takes batches and acks in batches, at the price of messages held
         * that other consumers cannot take.
         *
         * @param prefetch how many messages to hold beyond those running, taken in the same polls, in
         *                 [0, {@link DelayedQueue#MAX_BATCH}]; default adaptive. Prefetched messages are in flight:
         *                 the heartbeat extends them, and a shutdown hands them back at once.
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
         * Gives every job a timeout: a handler still running after this long is interrupted, and the attempt counts
         * as failed ({@link JobTimeoutException}), retried or dead-lettered by the {@link RetryPolicy} at once, so a
         * handler that ignores the interrupt keeps its thread but no longer holds the message. A message may carry
         * its own ({@link io.clockwork.queue.Message#timeout(Duration)}), which wins. Measured on the worker's
         * ticker, from the handler's start; enforced by one timer thread, made by the first job with a timeout.
         *
         * @param timeout in (0, {@link io.clockwork.queue.Message#MAX_TIMEOUT}]; default none
         * @return this builder
         */
        public Builder<V> timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            checkUnset(this.timeout != null, "timeout");
            if (timeout.isNegative() || timeout.isZero()
                    || timeout.compareTo(io.clockwork.queue.Message.MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException("timeout must be in (0, " + io.clockwork.queue.Message.MAX_TIMEOUT
                        + "], was " + timeout);
            }
            this.timeout = timeout;
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
