package io.clockwork.kafka;

import java.util.Objects;

/**
 * A {@link Timer} that wraps another and drives it with a reaper thread of its own; the same name and behaviour as
 * Kafka's {@code org.apache.kafka.server.util.timer.SystemTimerReaper}. Thread-safe (as the wrapped timer is).
 *
 * <p>The reaper thread loops on {@code timer.advanceClock(200)} (Kafka's {@code WORK_TIMEOUT_MS}) until this
 * reaper is closed; the other methods delegate. {@link #close()} stops the reaper thread, waits for it, and then
 * closes the wrapped timer. Where Kafka adds a no-op task to cut the reaper's wait short, this class interrupts
 * the reaper thread, which ends its wait at once.
 *
 * <p>A {@link SystemTimer} it drives is told so, and leaves the dating of its far tasks to the reaper thread (see
 * {@link SystemTimer}): the reaper takes in new tasks within milliseconds, however long its wait.
 *
 * <p>As in Kafka's {@code ShutdownableThread}, the reaper is not a daemon thread, and an exception other than an
 * interrupt thrown by the wrapped timer's {@code advanceClock} is logged and ends the reaper thread.
 */
public class SystemTimerReaper implements Timer {

    /** How long each {@code advanceClock} call of the reaper waits, in milliseconds, as in Kafka. */
    static final long WORK_TIMEOUT_MS = 200L;

    private static final System.Logger LOG = System.getLogger(SystemTimerReaper.class.getName());

    private final Timer timer;
    private final Thread reaper;
    private volatile boolean running = true;
    private volatile boolean timerClosed;

    /**
     * Wraps a timer and starts the reaper thread that drives it.
     *
     * @param reaperThreadName the reaper thread's name
     * @param timer            the timer to drive; closed by {@link #close()}
     * @throws NullPointerException if an argument is null
     */
    public SystemTimerReaper(String reaperThreadName, Timer timer) {
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        Objects.requireNonNull(reaperThreadName, "reaperThreadName must not be null");
        if (timer instanceof SystemTimer) {
            ((SystemTimer) timer).drivenByReaper();
        }
        this.reaper = new Thread(this::reap, reaperThreadName);
        reaper.setDaemon(false);
        reaper.start();
    }

    private void reap() {
        try {
            while (running) {
                try {
                    timer.advanceClock(WORK_TIMEOUT_MS);
                } catch (InterruptedException ignored) {
                    // close() interrupts to cut the wait short; the loop re-checks running
                }
            }
        } catch (RuntimeException | Error e) {
            if (running) {
                LOG.log(System.Logger.Level.ERROR, "reaper '" + reaper.getName() + "' stops: advanceClock threw", e);
            }
        }
    }

    /**
     * Adds a task to the wrapped timer.
     *
     * @param timerTask the task
     */
    @Override
    public void add(TimerTask timerTask) {
        timer.add(timerTask);
    }

    /**
     * Delegates to the wrapped timer; the reaper thread calls it too, so a caller takes turns with it.
     *
     * @param timeoutMs how long to wait for a task to fall due, in milliseconds
     * @return whether any task expired
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean advanceClock(long timeoutMs) throws InterruptedException {
        return timer.advanceClock(timeoutMs);
    }

    /** @return the wrapped timer's size */
    @Override
    public int size() {
        return timer.size();
    }

    /**
     * Stops the reaper thread, waits for it to end, then closes the wrapped timer (once, however often this is
     * called).
     *
     * @throws Exception what the wrapped timer's {@code close()} throws
     */
    @Override
    public void close() throws Exception {
        running = false;
        if (Thread.currentThread() != reaper) {
            reaper.interrupt();
            boolean interrupted = false;
            while (reaper.isAlive()) {
                try {
                    reaper.join();
                } catch (InterruptedException e) {
                    interrupted = true; // finish closing, then restore the flag
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (timerClosed) {
                return;
            }
            timerClosed = true;
        }
        timer.close();
    }

    /** @return true once the reaper thread has ended (visible for testing, as in Kafka) */
    boolean isShutdown() {
        return !reaper.isAlive();
    }

    @Override
    public String toString() {
        return "SystemTimerReaper[" + reaper.getName() + ", " + timer + "]";
    }
}
