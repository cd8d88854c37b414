package io.clockwork.timer;

import io.clockwork.time.Nanos;
import io.clockwork.engine.TimerCore;
import io.clockwork.time.Ticker;
import io.clockwork.engine.TimingWheel;

import java.time.Duration;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;

/**
 * A timer that runs tasks after a delay, on a hierarchical timing wheel driven by one thread. Thread-safe.
 *
 * <h2>Design</h2>
 * The timer is the engine's {@code TimerCore} and one driver thread. {@link #schedule} is lock-free: it allocates one
 * {@link Timeout} (which is the wheel's node) and hands it to the driver through the calling thread's own lane, a
 * release store with no locked instruction (threads without a lane use a shared lock-free inbox), waking the driver
 * only if it sleeps past the new deadline. The driver files new timeouts, expires due buckets, and sleeps until the
 * next non-empty bucket (found from occupancy bitmaps, not a {@code DelayQueue}). {@link Timeout#cancel()} is one
 * CAS; the driver drops cancelled timeouts when it meets them and purges them in bulk when they pile up. Compare
 * Netty's {@code HashedWheelTimer}, which wakes on every tick, and Kafka's {@code SystemTimer}, which takes a lock
 * per bucket and a {@code DelayQueue} per advance.
 *
 * <h2>Time</h2>
 * Time is read from the configured {@link Ticker}. A task never runs before its delay has elapsed; it runs within
 * one tick after it, plus scheduling latency. Delays are saturated at about 292 years; zero and negative delays
 * run at the next pass of the driver. On the {@link Ticker#system() system ticker}, a delay of at least 1,024 times
 * the driver's longest sleep (10 ms) plus four ticks, 14.3 s with the default 1 ms tick, is measured from a reading
 * the driver takes when it files the timeout, a few milliseconds after the call, instead of one taken in
 * {@code schedule}: such a task may run up to 14 ms (with a 1 ms tick; under 1/1000 of its delay) later than one
 * dated at the call, still never before its delay, and {@code schedule} reads no clock, which is most of its cost.
 * Request timeouts, scheduled by the million and nearly always cancelled, are such delays. On a ticker that jumps
 * (a test's {@code ManualTicker}) every timeout is dated at the call, and the driver wakes at every jump
 * ({@link Ticker#watch}).
 *
 * <h2>Tasks</h2>
 * Tasks run on the driver thread unless an {@link Builder#executor(Executor) executor} is set; then a slow task
 * delays nothing else. A task that throws is reported to the {@link Builder#failureHandler failure handler} (by
 * default logged) and the timer keeps running. A due timeout that the executor refuses is reported there too, as a
 * {@link TimeoutRejectedException} carrying the timeout, and counted in {@link #rejectedCount()}; the timer does
 * not retry it nor run it itself (see {@link Builder#executor(Executor)}).
 */
public final class WheelTimer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WheelTimer.class.getName());
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final TimerCore<WheelTimeout> core;
    private final Executor executor;
    private final BiConsumer<? super Timeout, ? super Throwable> failureHandler;
    /** Told each expired timeout's lateness; null (the default) costs the expiry path one null check. */
    private final LongConsumer latenessListener;
    /** Timeouts the executor refused; written by the driver thread only when one is refused. */
    private final AtomicLong rejected = new AtomicLong();
    private final Thread driver;
    private volatile Set<Timeout> unrun;

    private WheelTimer(Builder b) {
        String name = b.name != null ? b.name : "clockwork-timer-" + SEQUENCE.incrementAndGet();
        this.executor = b.executor;
        this.failureHandler = b.failureHandler != null ? b.failureHandler : WheelTimer::logFailure;
        this.latenessListener = b.latenessListener;
        // Only a ticker that moves with real time bounds how much later than the call the driver's reading is.
        this.core = new TimerCore<>(name, b.ticker, b.tickNanos, b.wheelSize, b.maxPending,
                b.ticker == Ticker.system(), this::dispatch);
        ThreadFactory factory = b.threadFactory != null ? b.threadFactory : r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
        this.driver = factory.newThread(this::drive);
        if (driver == null) {
            throw new IllegalArgumentException("threadFactory returned null for timer '" + name + "'");
        }
        driver.start();
    }

    /**
     * Creates a timer with the defaults: 1 ms tick, 64 buckets per level, system ticker, tasks on the timer thread,
     * no bound on pending timers.
     *
     * @return a running timer; close it when done
     */
    public static WheelTimer create() {
        return builder().build();
    }

    /** @return a builder of a timer */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Schedules a task to run once after a delay.
     *
     * @param task  what to run
     * @param delay how long to wait; zero or negative runs it at once; saturates at about 292 years
     * @return the handle that cancels it
     * @throws NullPointerException       if an argument is null
     * @throws IllegalStateException      if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are already pending
     */
    public Timeout schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(delay, "delay");
        return schedule(task, Nanos.saturated(delay));
    }

    /**
     * Schedules a task to run once after a delay.
     *
     * @param task  what to run
     * @param delay how long to wait, in {@code unit}; zero or negative runs it at once
     * @param unit  the unit of {@code delay}
     * @return the handle that cancels it
     * @throws NullPointerException       if an argument is null
     * @throws IllegalStateException      if the timer is stopped
     * @throws RejectedExecutionException if {@code maxPending} timers are already pending
     */
    public Timeout schedule(Runnable task, long delay, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return schedule(task, unit.toNanos(delay)); // TimeUnit saturates
    }

    private Timeout schedule(Runnable task, long delayNanos) {
        Objects.requireNonNull(task, "task");
        WheelTimeout timeout = new WheelTimeout(task, this);
        core.schedule(timeout, delayNanos);
        return timeout;
    }

    /** @return timers scheduled and neither run, cancelled nor abandoned; exact when no call is in flight */
    public long pendingCount() {
        return core.pendingCount();
    }

    /**
     * Counts the due timeouts whose task the {@link Builder#executor(Executor) executor} refused, each of which was
     * reported to the failure handler as a {@link TimeoutRejectedException}. Any thread.
     *
     * @return refusals since the timer was built; always 0 without an executor
     */
    public long rejectedCount() {
        return rejected.get();
    }

    /** @return timeouts ever accepted by {@code schedule}, including those later cancelled; any thread */
    public long scheduledCount() {
        return core.scheduledCount();
    }

    /** @return timeouts whose {@link Timeout#cancel()} returned true; any thread */
    public long cancelledCount() {
        return core.cancelledCount();
    }

    /** @return timeouts that fell due and were run or handed to the executor; any thread */
    public long expiredCount() {
        return core.expiredCount();
    }

    /** @return the timer's name, also its thread's name with the default thread factory */
    public String name() {
        return core.name();
    }

    /**
     * Stops the timer: waits for the driver thread to finish the task it runs, if any, and returns the timeouts
     * that never ran and now never will. Later calls return an empty set. Tasks already handed to an executor are
     * the executor's; it is not shut down.
     *
     * @return the abandoned timeouts: an unmodifiable set whose {@code contains} and {@code size} take constant time
     * @throws IllegalStateException if called from a task running on the timer's own thread
     */
    public Set<Timeout> stop() {
        if (Thread.currentThread() == driver) {
            throw new IllegalStateException("timer '" + name() + "' cannot be stopped from one of its own tasks");
        }
        boolean first = !core.isStopped();
        core.markStopped();
        boolean interrupted = false;
        while (driver.isAlive()) {
            try {
                driver.join();
            } catch (InterruptedException e) {
                interrupted = true; // finish stopping, then restore the flag
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Set<Timeout> result = unrun;
        return first && result != null ? result : Collections.emptySet();
    }

    /** Same as {@link #stop()}, discarding its result, for try-with-resources. */
    @Override
    public void close() {
        stop();
    }

    TimerCore<WheelTimeout> core() {
        return core;
    }

    private void drive() {
        try {
            core.drive();
        } finally {
            AbandonedTimeouts abandoned = new AbandonedTimeouts(this);
            core.abandonAll(abandoned::add);
            unrun = abandoned;
        }
    }

    private void dispatch(WheelTimeout timeout) {
        if (latenessListener != null) {
            reportLateness(timeout);
        }
        if (executor == null) {
            timeout.run();
            return;
        }
        try {
            executor.execute(timeout);
        } catch (Throwable refusal) {
            refused(timeout, refusal);
        }
    }

    private void reportLateness(WheelTimeout timeout) {
        try {
            latenessListener.accept(core.latenessNanos(timeout));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "lateness listener of timer '" + name() + "' threw", e);
        }
    }

    /** The executor threw instead of taking the timeout: count it and report it, on the driver thread. */
    private void refused(WheelTimeout timeout, Throwable refusal) {
        rejected.incrementAndGet();
        reportFailure(timeout, new TimeoutRejectedException(name(), timeout, executor, refusal));
    }

    void reportFailure(Timeout timeout, Throwable failure) {
        try {
            failureHandler.accept(timeout, failure);
        } catch (Throwable handlerFailure) {
            handlerFailure.addSuppressed(failure);
            logFailure(timeout, handlerFailure);
        }
    }

    private static void logFailure(Timeout timeout, Throwable failure) {
        if (failure instanceof TimeoutRejectedException refusal) {
            LOG.log(System.Logger.Level.WARNING, refusal.getMessage(), refusal.getCause());
        } else {
            LOG.log(System.Logger.Level.WARNING, "timer task " + timeout.task() + " threw", failure);
        }
    }

    @Override
    public String toString() {
        return "WheelTimer[" + name() + ", pending=" + pendingCount() + (core.isStopped() ? ", stopped" : "") + "]";
    }

    /**
     * Configures a {@link WheelTimer}. Not thread-safe. Each option may be set once; a bad value fails at once,
     * naming the option and its allowed range.
     */
    public static final class Builder {

        /** Shortest tick. */
        public static final Duration MIN_TICK = Duration.ofNanos(1_000);
        /** Longest tick. */
        public static final Duration MAX_TICK = Duration.ofHours(1);

        private String name;
        private long tickNanos = TimeUnit.MILLISECONDS.toNanos(1);
        private boolean tickSet;
        private int wheelSize = TimingWheel.MAX_WHEEL_SIZE;
        private boolean wheelSizeSet;
        private Ticker ticker = Ticker.system();
        private boolean tickerSet;
        private ThreadFactory threadFactory;
        private Executor executor;
        private long maxPending = Long.MAX_VALUE;
        private boolean maxPendingSet;
        private BiConsumer<? super Timeout, ? super Throwable> failureHandler;
        private LongConsumer latenessListener;

        private Builder() {
        }

        /**
         * @param name the timer's name, used in errors and as the thread name
         * @return this builder
         */
        public Builder name(String name) {
            Objects.requireNonNull(name, "name");
            checkUnset(this.name != null, "name");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            this.name = name;
            return this;
        }

        /**
         * @param tick the precision of the timer, in [1 µs, 1 h]; default 1 ms
         * @return this builder
         */
        public Builder tick(Duration tick) {
            Objects.requireNonNull(tick, "tick");
            checkUnset(tickSet, "tick");
            if (tick.compareTo(MIN_TICK) < 0 || tick.compareTo(MAX_TICK) > 0) {
                throw new IllegalArgumentException("tick must be in [" + MIN_TICK + ", " + MAX_TICK + "], was " + tick);
            }
            this.tickNanos = tick.toNanos();
            this.tickSet = true;
            return this;
        }

        /**
         * @param wheelSize buckets per wheel level, a power of two in [2, 64]; default 64
         * @return this builder
         */
        public Builder wheelSize(int wheelSize) {
            checkUnset(wheelSizeSet, "wheelSize");
            if (wheelSize < TimingWheel.MIN_WHEEL_SIZE || wheelSize > TimingWheel.MAX_WHEEL_SIZE
                    || Integer.bitCount(wheelSize) != 1) {
                throw new IllegalArgumentException("wheelSize must be a power of two in [" + TimingWheel.MIN_WHEEL_SIZE
                        + ", " + TimingWheel.MAX_WHEEL_SIZE + "], was " + wheelSize);
            }
            this.wheelSize = wheelSize;
            this.wheelSizeSet = true;
            return this;
        }

        /**
         * @param ticker the time source; default {@link Ticker#system()}
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            Objects.requireNonNull(ticker, "ticker");
            checkUnset(tickerSet, "ticker");
            this.ticker = ticker;
            this.tickerSet = true;
            return this;
        }

        /**
         * @param threadFactory makes the driver thread; default: a daemon thread named after the timer
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            Objects.requireNonNull(threadFactory, "threadFactory");
            checkUnset(this.threadFactory != null, "threadFactory");
            this.threadFactory = threadFactory;
            return this;
        }

        /**
         * Sets what runs expired tasks, so that a slow task delays no other; default: the driver thread.
         *
         * <p>If the executor refuses a due timeout ({@code execute} throws, as a saturated or shut-down
         * {@code ThreadPoolExecutor} does with its default policy), that task does not run: the timer reports it to
         * the {@link #failureHandler failure handler} as a {@link TimeoutRejectedException}, which carries the
         * {@link Timeout} and has the executor's exception as its cause, and counts it in
         * {@link WheelTimer#rejectedCount()}; the default handler logs it as a refusal. The timeout stays expired
         * ({@link Timeout#isExpired()} is true, {@link Timeout#cancel()} returns false) and is not among those
         * {@link WheelTimer#stop()} returns. The timer neither retries nor runs the task on its own thread: a
         * refusal is the executor's back-pressure or its shutdown, and running the task anyway would put it on the
         * thread the executor exists to keep free. To run refused tasks on the timer thread instead, give the
         * executor that policy (a {@code ThreadPoolExecutor} with {@code CallerRunsPolicy}); an executor that drops
         * tasks without throwing ({@code DiscardPolicy}) hides them from the timer.
         *
         * @param executor runs expired tasks; its {@code execute} is called on the driver thread
         * @return this builder
         */
        public Builder executor(Executor executor) {
            Objects.requireNonNull(executor, "executor");
            checkUnset(this.executor != null, "executor");
            this.executor = executor;
            return this;
        }

        /**
         * @param maxPending pending timers past which {@code schedule} throws
         *                   {@link RejectedExecutionException}, at least 1; default unbounded
         * @return this builder
         */
        public Builder maxPending(long maxPending) {
            checkUnset(maxPendingSet, "maxPending");
            if (maxPending < 1) {
                throw new IllegalArgumentException("maxPending must be at least 1, was " + maxPending);
            }
            this.maxPending = maxPending;
            this.maxPendingSet = true;
            return this;
        }

        /**
         * @param failureHandler told, on the thread where it happened, about each task that throws (with what it
         *                       threw) and each timeout the executor refuses (with a
         *                       {@link TimeoutRejectedException}); default: logged through {@link System.Logger}
         * @return this builder
         */
        public Builder failureHandler(BiConsumer<? super Timeout, ? super Throwable> failureHandler) {
            Objects.requireNonNull(failureHandler, "failureHandler");
            checkUnset(this.failureHandler != null, "failureHandler");
            this.failureHandler = failureHandler;
            return this;
        }

        /**
         * @param latenessListener told, on the timer thread as each timeout falls due, how late it is in nanoseconds
         *                         (the ticker's reading then minus the deadline, at least 0; a tick's rounding
         *                         included; for a far timeout the driver dated, from the deadline it gave) before
         *                         its task runs or goes to the executor; for metrics. It must be quick; one that
         *                         throws is logged. Default: none, and expiry reads no clock for it
         * @return this builder
         */
        public Builder latenessListener(LongConsumer latenessListener) {
            Objects.requireNonNull(latenessListener, "latenessListener");
            checkUnset(this.latenessListener != null, "latenessListener");
            this.latenessListener = latenessListener;
            return this;
        }

        /** @return a running timer */
        public WheelTimer build() {
            return new WheelTimer(this);
        }

        private static void checkUnset(boolean set, String option) {
            if (set) {
                throw new IllegalStateException(option + " was already set");
            }
        }
    }
}
