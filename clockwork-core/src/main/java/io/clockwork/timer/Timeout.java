package io.clockwork.timer;

/**
 * A handle to a task scheduled on a {@link WheelTimer}. Thread-safe.
 *
 * <p>A timeout ends in exactly one of three ways: it expires (its task is run or handed to the executor; an
 * executor's refusal is reported as a {@link TimeoutRejectedException}), it is cancelled, or its timer stops first
 * (then {@link WheelTimer#stop()} returns it). Whichever happens first wins; the others become no-ops.
 */
public interface Timeout {

    /**
     * Cancels the task if it has neither run nor been cancelled. O(1), lock-free, from any thread.
     *
     * @return true if this call cancelled it; false if it had already expired, been cancelled, or been abandoned by
     *         a stopping timer
     */
    boolean cancel();

    /**
     * @return true once the timer has taken the task to run: it may still be running, or, if the timer's executor
     *         refused it, it never runs (the timer then reported a {@link TimeoutRejectedException})
     */
    boolean isExpired();

    /** @return true if {@link #cancel()} succeeded */
    boolean isCancelled();

    /** @return the scheduled task */
    Runnable task();
}
