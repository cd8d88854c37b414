package io.clockwork.timer;

import io.clockwork.engine.TimerEntry;

/**
 * The {@link Timeout} of a {@link WheelTimer}: the wheel node itself, so a schedule allocates only this.
 * Thread-safe.
 *
 * <p>It implements {@link Runnable} so that it can be handed to an executor as it is, catching what the task
 * throws without a wrapper allocation.
 */
final class WheelTimeout extends TimerEntry implements Timeout, Runnable {

    private final Runnable task;
    private final WheelTimer timer;

    WheelTimeout(Runnable task, WheelTimer timer) {
        this.task = task;
        this.timer = timer;
    }

    @Override
    public boolean cancel() {
        if (transition(CANCELLED)) {
            timer.core().entryCancelled();
            return true;
        }
        return false;
    }

    @Override
    public boolean isExpired() {
        return state() == EXPIRED;
    }

    @Override
    public boolean isCancelled() {
        return state() == CANCELLED;
    }

    /** @return the timer this timeout was scheduled on */
    WheelTimer timer() {
        return timer;
    }

    @Override
    public Runnable task() {
        return task;
    }

    @Override
    public void run() {
        try {
            task.run();
        } catch (Throwable t) {
            timer.reportFailure(this, t);
        }
    }

    @Override
    public String toString() {
        return "Timeout[" + stateName() + ", " + task + "]";
    }
}
