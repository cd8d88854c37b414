package io.clockwork.kafka;

import io.clockwork.engine.TimerEntry;

/**
 * One schedule of a {@link TimerTask} on a {@link SystemTimer}: the wheel node itself, so an {@code add} allocates
 * only this. Thread-safe state transitions (see {@link TimerEntry}); the links belong to the timer's owner.
 *
 * <p>An entry takes one of two paths. <i>Wheel</i> entries go through the timer's {@link TimerCore} and are
 * counted by {@link SystemTimer#size()}; the core marks them expired before handing them to the task thread.
 * <i>Direct</i> entries were already due when added (as Kafka submits already-expired tasks at once): they go
 * straight to the task thread, still pending, and become expired only when that thread takes them.
 */
final class KafkaTimerEntry extends TimerEntry implements Runnable {

    /**
     * The deadline that marks a direct entry: a wheel entry's deadline is never -1 (it is non-negative, or the
     * complement of a delay of seconds while the owner has yet to date it).
     */
    private static final long DIRECT = -1L;

    final TimerTask task;
    private final SystemTimer timer;

    KafkaTimerEntry(TimerTask task, SystemTimer timer) {
        this.task = task;
        this.timer = timer;
    }

    /**
     * Marks this entry as bypassing the wheel, before it is published (so it costs no field: 40 bytes per entry
     * with compressed references). Wheel entries get their deadline from {@link TimerCore#scheduleAt}.
     */
    void markDirect() {
        deadline(DIRECT);
    }

    /** @return true if this entry bypassed the wheel (it was already due when added) */
    boolean isDirect() {
        return deadline() == DIRECT;
    }

    /**
     * Cancels this schedule if it is still pending; any thread.
     *
     * @return true if this call cancelled it
     */
    boolean cancel() {
        if (transition(CANCELLED)) {
            if (!isDirect()) {
                timer.core().entryCancelled();
            }
            return true;
        }
        return false;
    }

    /** Runs the task on the task thread; what it throws is logged, never propagated. */
    @Override
    public void run() {
        try {
            task.run();
        } catch (Throwable t) {
            timer.reportFailure(task, t);
        }
    }

    @Override
    public String toString() {
        return "TimerTaskEntry[" + stateName() + ", delayMs=" + task.delayMs + ", " + task + "]";
    }
}
