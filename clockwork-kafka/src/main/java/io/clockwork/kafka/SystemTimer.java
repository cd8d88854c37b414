package io.clockwork.kafka;

import io.clockwork.engine.TimerCore;
import io.clockwork.engine.TimerEntry;
import io.clockwork.time.ManualTicker;
import io.clockwork.time.Ticker;
import io.clockwork.engine.MpscInbox;
import io.clockwork.engine.TimingWheel;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A drop-in for Kafka's {@code org.apache.kafka.server.util.timer.SystemTimer}, the timer behind Kafka's request
 * purgatories, as a thin adapter over Clockwork's timing-wheel engine. Thread-safe: {@link #add}, {@link #size()}
 * and {@link #close()} from any thread; {@link #advanceClock} from any thread, one caller at a time (concurrent
 * callers are serialised).
 *
 * <h2>Design</h2>
 * The wheel is the shared engine (a {@link TimerCore} around one {@link TimingWheel}), not a second wheel: an
 * {@code add} allocates one node, binds the task to it (cancelling the task's previous schedule, as Kafka does) and
 * pushes it onto a lock-free inbox; {@link TimerTask#cancel()} is one CAS. Where Kafka takes a read lock per
 * {@code add}, a lock per bucket, and a {@code DelayQueue} poll per bucket in {@code advanceClock}, this class finds
 * the next due bucket from occupancy bitmaps and parks the caller of {@code advanceClock} until then, or until an
 * earlier task arrives. Expired tasks run on one task thread, named {@code "executor-" + executorName} as in Kafka,
 * fed through a second intrusive inbox: expiring a task allocates nothing.
 *
 * <p>An {@code add} dates its task with a clock read, the largest part of its cost, except on a timer that a
 * {@link SystemTimerReaper} drives on system time: there, as {@link io.clockwork.timer.WheelTimer} does, a task whose
 * delay is at least {@link TimerCore#ownerDatedDelayNanos()} (14.3 s with the default 1 ms tick) is dated by the
 * reaper when it files the task, a few milliseconds after the {@code add}. Request timeouts, added by the million
 * and nearly always cancelled within seconds, are such delays, and most are cancelled before they are ever dated. A
 * timer driven by hand dates every task at {@code add}: nothing bounds when its next {@code advanceClock} comes.
 *
 * <h2>Semantics kept from Kafka</h2>
 * <ul>
 *   <li>Nothing expires unless someone calls {@link #advanceClock}: loop on it, or wrap this timer in a
 *       {@link SystemTimerReaper}. {@code advanceClock(timeoutMs)} runs everything due; if nothing is due it waits
 *       up to {@code timeoutMs} for a bucket to fall due and returns whether any task expired.</li>
 *   <li>A task already due when added (delay zero or negative, or due within the tick the clock has already
 *       reached) is handed to the task thread at once, without waiting for {@code advanceClock}.</li>
 *   <li>Adding a task that is already scheduled keeps only the newest schedule; {@link #size()} counts pending
 *       tasks, cancelled ones excluded.</li>
 *   <li>A task that throws does not stop the task thread (Kafka's executor swallows it in a {@code Future}; this
 *       class logs it through {@link System.Logger}).</li>
 *   <li>{@link #close()} shuts the task thread down: tasks already handed to it still run, waiting at most five
 *       seconds for them, and pending tasks never run.</li>
 * </ul>
 *
 * <h2>Differences</h2>
 * <ul>
 *   <li>A task never runs early: it expires in the tick of its deadline or the next. (Kafka's buckets start at the
 *       floor of the deadline, so a task may run up to one tick early.) A task the reaper dates (above) may run
 *       later than that by the reaper's longest sleep plus four ticks (about 14 ms with a 1 ms tick), under 1/1000
 *       of its delay.</li>
 *   <li>{@code tickMs} and {@code wheelSize} accept what Kafka accepts ({@code >= 1}). The engine keeps
 *       power-of-two levels of 2 to 64 buckets and as many levels as cover every delay, so {@code wheelSize} is
 *       rounded up to a power of two in that range (20 becomes 32). This changes the memory layout only: when a
 *       task runs depends on {@code tickMs} alone.</li>
 *   <li>{@code startMs} (Kafka: the wheel's start on {@code Time.SYSTEM.hiResClockMs()}) is read as the wheel's
 *       clock, in milliseconds, at construction. It sets the phase of the tick grid: tick boundaries fall on
 *       multiples of {@code tickMs} of that clock, as in Kafka. It is never compared with the ticker, so a
 *       {@code startMs} taken from another clock (a mock time, or 0) cannot delay or hasten anything.</li>
 *   <li>Bad input fails fast: a null task or name ({@link NullPointerException} naming it), {@code add} after
 *       {@code close()} ({@link IllegalStateException} naming the timer; Kafka's executor would throw
 *       {@code RejectedExecutionException} for an already-due task and silently keep the others). Delays past
 *       about 292 years saturate there. After {@code close()}, {@code advanceClock} returns false at once and
 *       {@code size()} is 0.</li>
 * </ul>
 * With a {@link ManualTicker} everything, including the wait of {@code advanceClock}, is measured on the ticker:
 * {@code advanceClock(0)} after {@code ticker.advance(...)} is fully deterministic.
 */
public class SystemTimer implements Timer {

    /** The prefix of the task thread's name, as in Kafka: the thread is {@code "executor-" + executorName}. */
    public static final String SYSTEM_TIMER_THREAD_PREFIX = "executor-";
    /** Kafka's default tick, used by {@link #SystemTimer(String)}: 1 ms. */
    public static final long DEFAULT_TICK_MS = 1L;
    /** Kafka's default wheel size, used by {@link #SystemTimer(String)}: 20 (the engine rounds it to 32). */
    public static final int DEFAULT_WHEEL_SIZE = 20;

    private static final System.Logger LOG = System.getLogger(SystemTimer.class.getName());
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String executorName;
    private final Ticker ticker;
    private final TimerCore<KafkaTimerEntry> core;
    /** Serialises {@link #advanceClock} callers, who take turns as the core's owner. */
    private final ReentrantLock ownerLock = new ReentrantLock();

    /** Expired tasks on their way to the task thread. */
    private final MpscInbox<KafkaTimerEntry> taskQueue = new MpscInbox<>();
    private final Thread taskThread;
    private volatile boolean taskThreadParked;
    private volatile boolean taskThreadStopping;
    /** True once a {@link SystemTimerReaper} drives this timer: far tasks are then dated by the reaper (see above). */
    private volatile boolean reaped;

    /**
     * Creates a timer as Kafka's does: 1 ms tick, wheel size 20, system time. Its task thread starts at once and,
     * as in Kafka, is not a daemon: close the timer when done.
     *
     * @param executorName names the task thread, {@code "executor-" + executorName}
     * @throws NullPointerException if {@code executorName} is null
     */
    public SystemTimer(String executorName) {
        this(executorName, DEFAULT_TICK_MS, DEFAULT_WHEEL_SIZE, 0L, Ticker.system());
    }

    /**
     * Creates a timer with Kafka's full set of parameters, on system time.
     *
     * @param executorName names the task thread, {@code "executor-" + executorName}
     * @param tickMs       the precision, in milliseconds, in [1, {@link Long#MAX_VALUE}]
     * @param wheelSize    buckets per wheel level, in [1, {@link Integer#MAX_VALUE}]; rounded to a power of two in
     *                     [2, 64], which changes memory layout but not when tasks run
     * @param startMs      the wheel's clock at construction, in milliseconds (Kafka passes
     *                     {@code Time.SYSTEM.hiResClockMs()}); it sets the phase of the tick grid
     * @throws NullPointerException     if {@code executorName} is null
     * @throws IllegalArgumentException if {@code tickMs} or {@code wheelSize} is out of range, naming it
     */
    public SystemTimer(String executorName, long tickMs, int wheelSize, long startMs) {
        this(executorName, tickMs, wheelSize, startMs, Ticker.system());
    }

    /**
     * Creates a timer on the given ticker, for deterministic tests with a {@link ManualTicker}: the wheel starts at
     * the ticker's current reading, and {@link #advanceClock} measures its wait on the ticker.
     *
     * @param executorName names the task thread, {@code "executor-" + executorName}
     * @param tickMs       the precision, in milliseconds, in [1, {@link Long#MAX_VALUE}]
     * @param wheelSize    buckets per wheel level, in [1, {@link Integer#MAX_VALUE}]
     * @param ticker       the time source
     * @throws NullPointerException     if {@code executorName} or {@code ticker} is null
     * @throws IllegalArgumentException if {@code tickMs} or {@code wheelSize} is out of range, naming it
     */
    public SystemTimer(String executorName, long tickMs, int wheelSize, Ticker ticker) {
        this(executorName, tickMs, wheelSize, 0L, ticker);
    }

    private SystemTimer(String executorName, long tickMs, int wheelSize, long startMs, Ticker ticker) {
        this.executorName = Objects.requireNonNull(executorName, "executorName");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        if (tickMs < 1) {
            throw new IllegalArgumentException("tickMs must be in [1, " + Long.MAX_VALUE + "], was " + tickMs);
        }
        if (wheelSize < 1) {
            throw new IllegalArgumentException("wheelSize must be in [1, " + Integer.MAX_VALUE + "], was "
                    + wheelSize);
        }
        long tickNanos = TimeUnit.MILLISECONDS.toNanos(tickMs); // saturates
        // Kafka's tick grid sits on multiples of tickMs of its clock; startMs is that clock now.
        long phaseNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(Math.floorMod(startMs, tickMs)), tickNanos - 1);
        long origin = ticker.read() - phaseNanos;
        Consumer<KafkaTimerEntry> toTaskThread = this::handToTaskThread;
        // SHARED: add() binds the task to its entry before scheduling it, so a cancel may come first. Owner dating is
        // possible only on a ticker that moves with real time; add() uses it only once a reaper drives the timer.
        this.core = new TimerCore<>(executorName, ticker, tickNanos, engineWheelSize(wheelSize), origin,
                Long.MAX_VALUE, TimerEntry.SHARED, ticker == Ticker.system(), toTaskThread);
        Thread t = new Thread(this::runTasks, SYSTEM_TIMER_THREAD_PREFIX + executorName);
        t.setDaemon(false); // as Kafka's KafkaThread.nonDaemon
        this.taskThread = t;
        t.start();
    }

    /**
     * Maps Kafka's wheel size onto the engine's: the next power of two, within the engine's range.
     *
     * @param wheelSize Kafka's wheel size, at least 1
     * @return a power of two in [{@link TimingWheel#MIN_WHEEL_SIZE}, {@link TimingWheel#MAX_WHEEL_SIZE}]
     */
    static int engineWheelSize(int wheelSize) {
        if (wheelSize >= TimingWheel.MAX_WHEEL_SIZE) {
            return TimingWheel.MAX_WHEEL_SIZE;
        }
        int pow2 = Integer.highestOneBit(wheelSize);
        if (pow2 < wheelSize) {
            pow2 <<= 1;
        }
        return Math.max(TimingWheel.MIN_WHEEL_SIZE, pow2);
    }

    /**
     * Adds a task due {@link TimerTask#delayMs} milliseconds from now; if the task is already scheduled (on this
     * or another timer), that schedule is cancelled. A task already due runs at once on the task thread; the others
     * run when {@link #advanceClock} finds them due. Lock-free; allocates one node.
     *
     * @param timerTask the task
     * @throws NullPointerException  if {@code timerTask} is null
     * @throws IllegalStateException if the timer is closed
     */
    @Override
    public void add(TimerTask timerTask) {
        Objects.requireNonNull(timerTask, "timerTask");
        if (core.isStopped()) {
            throw closedError();
        }
        KafkaTimerEntry entry = new KafkaTimerEntry(timerTask, this);
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(timerTask.delayMs); // saturates
        if (reaped && delayNanos >= core.ownerDatedDelayNanos()) {
            // Far from due: the reaper dates it (class comment), so no clock is read here.
            timerTask.bind(entry);
            try {
                core.schedule(entry, delayNanos);
            } catch (IllegalStateException stopped) {
                timerTask.unbind(entry);
                throw closedError();
            }
            return;
        }
        long deadline = core.deadlineAfter(delayNanos);
        boolean due = delayNanos <= 0 || core.isDueOnArrival(deadline);
        if (due) {
            entry.markDirect(); // published by bind's volatile write
        }
        timerTask.bind(entry);
        if (due) {
            handToTaskThread(entry);
            if (taskThreadStopping && entry.transition(TimerEntry.CANCELLED)) {
                // Raced with close(): the task thread's last sweep may have missed it, and it will never run.
                timerTask.unbind(entry);
                throw closedError();
            }
            return;
        }
        try {
            core.scheduleAt(entry, deadline, delayNanos);
        } catch (IllegalStateException stopped) {
            timerTask.unbind(entry);
            throw closedError();
        }
    }

    /**
     * Runs every task that is due; if none is, waits up to {@code timeoutMs} for one to fall due (an {@code add}
     * of an earlier task cuts the wait short) and runs what then is. Tasks run on the task thread; this call only
     * hands them over. Callers are serialised: a second caller waits for the first, within its own timeout.
     *
     * @param timeoutMs how long to wait for a task to fall due, in milliseconds; zero or negative does not wait
     * @return true if any task expired, false if none did within the timeout or the timer is closed
     * @throws InterruptedException if the calling thread is interrupted on entry or while waiting
     */
    @Override
    public boolean advanceClock(long timeoutMs) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before advancing timer '" + executorName + "'");
        }
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0L, timeoutMs));
        long start = ticker.read();
        if (!ownerLock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        try {
            while (!core.isStopped()) {
                if (core.expireDue() > 0) {
                    return true;
                }
                long remaining = timeoutNanos - (ticker.read() - start);
                if (remaining <= 0) {
                    return false;
                }
                // Wake at least every MAX_PARK_NANOS while timers are held, as WheelTimer's driver does: a reaper
                // waits up to 200 ms a call, and in that time cancelled tasks would pile up in the inbox, each
                // kept alive (and copied by every young GC) until the owner drops it.
                core.awaitWork(core.isIdle() ? remaining : Math.min(remaining, TimerCore.MAX_PARK_NANOS));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while advancing timer '" + executorName + "'");
                }
            }
            return false;
        } finally {
            ownerLock.unlock();
        }
    }

    /**
     * Returns the number of tasks added and neither expired nor cancelled (nor abandoned by {@link #close()}).
     * Tasks that were already due when added never count. Exact when no call is in flight.
     *
     * @return the number of pending tasks, at most {@link Integer#MAX_VALUE}
     */
    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, core.pendingCount());
    }

    /**
     * Closes the timer: later {@code add}s fail, pending tasks never run, and the task thread finishes the tasks
     * already handed to it, then ends. Waits up to five seconds for that (not when called from a task), then
     * interrupts the task thread, as Kafka's shutdown does. Idempotent.
     */
    @Override
    public void close() {
        if (!core.isStopped()) {
            core.markStopped();
            ownerLock.lock(); // an advanceClock in progress sees the stop and returns promptly
            try {
                core.abandonAll(e -> { });
            } finally {
                ownerLock.unlock();
            }
            taskThreadStopping = true;
            LockSupport.unpark(taskThread);
        }
        if (Thread.currentThread() == taskThread) {
            return;
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (taskThread.isAlive()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                LOG.log(System.Logger.Level.WARNING, "task thread of timer '" + executorName
                        + "' still runs 5 s after close; interrupting it");
                taskThread.interrupt();
                break;
            }
            try {
                taskThread.join(Math.max(1L, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                interrupted = true; // finish closing, then restore the flag
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Lets {@link #add} leave the dating of far tasks to the caller of {@link #advanceClock}: called by a
     * {@link SystemTimerReaper}, whose thread calls it without pause until the timer closes.
     */
    void drivenByReaper() {
        reaped = true;
    }

    /** @return true once closed and the task thread has ended (visible for testing, as in Kafka) */
    boolean isTerminated() {
        return core.isStopped() && !taskThread.isAlive();
    }

    /** @return true while some thread is inside {@link #advanceClock} (visible for testing) */
    boolean isAdvancing() {
        return ownerLock.isLocked();
    }

    /** @return the name given at construction */
    String executorName() {
        return executorName;
    }

    TimerCore<KafkaTimerEntry> core() {
        return core;
    }

    private void handToTaskThread(KafkaTimerEntry entry) {
        taskQueue.offer(entry);
        if (taskThreadParked) {
            LockSupport.unpark(taskThread);
        }
    }

    /** The task thread: runs expired tasks in the order they were handed over, until closed. */
    private void runTasks() {
        Consumer<KafkaTimerEntry> runOne = e -> {
            // Wheel entries were marked expired by the core; direct ones are claimed here, unless cancelled since.
            if (!e.isDirect() || e.transition(TimerEntry.EXPIRED)) {
                e.run();
            }
        };
        while (true) {
            if (taskQueue.drain(runOne) > 0) {
                continue;
            }
            if (taskThreadStopping) {
                if (taskQueue.isEmpty()) {
                    return;
                }
                continue;
            }
            // Dekker with handToTaskThread: publish the intent to park, then re-check the queue.
            taskThreadParked = true;
            if (taskQueue.isEmpty() && !taskThreadStopping) {
                Thread.interrupted(); // a task's stray interrupt must not turn parking into spinning
                LockSupport.park(this);
            }
            taskThreadParked = false;
        }
    }

    void reportFailure(TimerTask task, Throwable failure) {
        LOG.log(System.Logger.Level.WARNING, "timer task " + task + " of timer '" + executorName + "' threw",
                failure);
    }

    private IllegalStateException closedError() {
        return new IllegalStateException("SystemTimer '" + executorName + "' is closed; it accepts no new tasks");
    }

    @Override
    public String toString() {
        return "SystemTimer[" + executorName + ", tick=" + core.tickNanos() + "ns, size=" + size()
                + (core.isStopped() ? ", closed" : "") + "]";
    }
}
