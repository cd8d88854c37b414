package io.clockwork.engine;

import io.clockwork.time.Ticker;

import java.lang.System.Logger.Level;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The engine's shared driver: one {@link TimerCore} and one daemon thread per {@link Ticker}, on which the faces that
 * have no thread of their own run "this at that time" (session expiry, {@code TimeCacheMap} rotation). Thread-safe.
 *
 * <p>Faces {@link #acquire} the driver of their ticker and {@link #release} it when they close; the thread starts
 * with the first lease and stops with the last, so a process with nothing to expire has no thread, and readings of
 * different tickers are never compared. Tasks run on the driver thread, one at a time, in deadline order: they must
 * be short (a face's callbacks run here, as Storm's and ZooKeeper's run on their single expiry threads). A task that
 * throws is logged and the driver goes on.
 */
public final class SharedDriver {

    /** Name of every driver thread; a driver's thread is named this plus its number. */
    public static final String THREAD_NAME = "clockwork-engine";

    private static final System.Logger LOG = System.getLogger(SharedDriver.class.getName());
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int WHEEL_SIZE = 64;
    private static final Object LOCK = new Object();
    private static final Map<Ticker, SharedDriver> BY_TICKER = new IdentityHashMap<>(); // guarded by LOCK
    private static int started;                                                      // guarded by LOCK

    private final Ticker ticker;
    private final TimerCore<Task> core;
    private final Thread thread;
    private int leases; // guarded by LOCK

    private SharedDriver(Ticker ticker, String name) {
        this.ticker = ticker;
        this.core = new TimerCore<>(name, ticker, TICK_NANOS, WHEEL_SIZE, Long.MAX_VALUE, SharedDriver::run);
        this.thread = new Thread(this::drive, name);
        thread.setDaemon(true);
    }

    /**
     * Takes a lease on the driver of a ticker, starting its thread if no lease is held.
     *
     * @param ticker the time source of the tasks to come
     * @return the ticker's driver; {@link #release} it once
     */
    public static SharedDriver acquire(Ticker ticker) {
        Objects.requireNonNull(ticker, "ticker");
        synchronized (LOCK) {
            SharedDriver s = BY_TICKER.get(ticker);
            if (s == null) {
                s = new SharedDriver(ticker, THREAD_NAME + "-" + ++started);
                BY_TICKER.put(ticker, s);
                s.thread.start();
            }
            s.leases++;
            return s;
        }
    }

    /**
     * Returns a lease taken with {@link #acquire}. The last release stops the thread: tasks still pending then never
     * run (their faces have cancelled them when they closed). It does not wait for the thread to end, so a task may
     * release its own face's lease.
     */
    public void release() {
        synchronized (LOCK) {
            if (leases == 0) {
                throw new IllegalStateException("driver " + core.name() + " has no lease to release");
            }
            if (--leases == 0) {
                BY_TICKER.remove(ticker);
                core.markStopped();
            }
        }
    }

    /**
     * Runs a task once after a delay on this driver's thread.
     *
     * @param task       what to run; it must be short
     * @param delayNanos the delay on the ticker; zero or negative runs it at the driver's next pass
     * @return the handle that cancels it
     * @throws IllegalStateException if every lease was released
     */
    public Task schedule(Runnable task, long delayNanos) {
        Task t = new Task(Objects.requireNonNull(task, "task"), core);
        core.schedule(t, delayNanos);
        return t;
    }

    /**
     * Runs a task once at a ticker reading on this driver's thread. Prefer it to {@link #schedule} when the time
     * comes from an earlier reading: a delay computed from one comes due late by whatever passed since (a GC pause,
     * or a test's jump of a manual ticker, after which the task would wait for another jump).
     *
     * @param task          what to run; it must be short
     * @param tickerReading when, on the ticker's timeline; a reading that has passed runs it at the next pass
     * @return the handle that cancels it
     * @throws IllegalStateException if every lease was released
     */
    public Task scheduleAt(Runnable task, long tickerReading) {
        Task t = new Task(Objects.requireNonNull(task, "task"), core);
        core.scheduleAtReading(t, tickerReading);
        return t;
    }

    /** @return the driver thread while a lease is held; for tests that check which thread runs what */
    public Thread thread() {
        return thread;
    }

    /**
     * Tells whether a ticker has a running driver; for tests that check the thread stops with the last lease.
     *
     * @param ticker a time source
     * @return true if a lease on the ticker's driver is held
     */
    public static boolean isRunning(Ticker ticker) {
        synchronized (LOCK) {
            return BY_TICKER.containsKey(ticker);
        }
    }

    private void drive() {
        try {
            core.drive();
        } finally {
            core.abandonAll(t -> { });
        }
    }

    private static void run(Task t) {
        try {
            t.action.run();
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "scheduled task " + t.action + " threw; the driver goes on", e);
            if (e instanceof VirtualMachineError) {
                throw e;
            }
        }
    }

    @Override
    public String toString() {
        return "SharedDriver[" + core.name() + ", " + ticker + ", pending=" + core.pendingCount() + "]";
    }

    /** A task scheduled on a {@link SharedDriver}: the wheel's node itself. Thread-safe. */
    public static final class Task extends TimerEntry {
        private final Runnable action;
        private final TimerCore<Task> core;

        private Task(Runnable action, TimerCore<Task> core) {
            this.action = action;
            this.core = core;
        }

        /**
         * Cancels the task if it has not run yet.
         *
         * @return true if this call cancelled it
         */
        public boolean cancel() {
            if (transition(CANCELLED)) {
                core.entryCancelled();
                return true;
            }
            return false;
        }
    }
}
