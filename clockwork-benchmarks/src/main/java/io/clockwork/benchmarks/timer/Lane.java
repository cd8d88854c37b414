package io.clockwork.benchmarks.timer;

/**
 * One producer thread's access to a {@link TimerRival}, with a fixed array of handle slots so that a benchmark can
 * cancel a timer it scheduled earlier without allocating. Not thread-safe: owned by one thread.
 */
public abstract class Lane {

    /**
     * Schedules the rival's shared no-op task and keeps the handle in {@code slot}. Rivals whose API makes the task
     * the handle (Kafka's {@code TimerTask}) allocate one task per call, as their users must.
     *
     * @param slot       where to keep the handle, replacing the previous one
     * @param delayNanos the delay
     */
    public abstract void schedule(int slot, long delayNanos);

    /**
     * Schedules {@code task} and keeps the handle in {@code slot}; used where each timer must report when it ran.
     *
     * @param slot       where to keep the handle
     * @param delayNanos the delay, a whole number of milliseconds for rivals whose API takes milliseconds
     * @param task       what to run
     */
    public abstract void schedule(int slot, long delayNanos, Runnable task);

    /**
     * Schedules the shared no-op task and drops the handle, so that only the timer retains the timer.
     *
     * @param delayNanos the delay
     */
    public abstract void scheduleDetached(long delayNanos);

    /**
     * Cancels the timer whose handle is in {@code slot}.
     *
     * @param slot the slot
     * @return what the rival's cancel says (true where it returns nothing)
     */
    public abstract boolean cancel(int slot);

    /**
     * Drives a rival that has no thread of its own; a no-op for the others.
     *
     * @param nowNanos {@link System#nanoTime()}
     * @return how many timers expired
     */
    public int poll(long nowNanos) {
        return 0;
    }

    /** @return true if this lane's thread must call {@link #poll} for timers to expire */
    public boolean needsPolling() {
        return false;
    }

    static long ceilMillis(long nanos) {
        return nanos <= 0 ? 0 : (nanos + 999_999L) / 1_000_000L;
    }
}
