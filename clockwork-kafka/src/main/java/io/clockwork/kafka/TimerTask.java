package io.clockwork.kafka;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A task to run once after a delay on a Kafka-style {@link Timer}; the same name and semantics as Kafka's
 * {@code org.apache.kafka.server.util.timer.TimerTask}. Thread-safe.
 *
 * <p>Subclasses implement {@link #run()}. A task is bound to at most one schedule at a time: {@link Timer#add}
 * binds it to a new schedule and cancels the one it had, so adding the same task again keeps only the newest
 * schedule (on whichever timer). {@link #cancel()} unbinds it; a bound schedule that has not yet been taken to
 * run then never runs.
 *
 * <p>{@link #isCancelled()} is Kafka's definition: true while the task is bound to no schedule, that is before
 * its first {@code add} and after {@code cancel()} — even a cancel that came after the task ran. A task that ran
 * (or whose timer closed before it ran) stays bound, so it reads as not cancelled.
 *
 * <p>Binding costs one atomic swap; the schedule itself is the timer's wheel node, so an {@code add} allocates
 * one object.
 */
public abstract class TimerTask implements Runnable {

    private static final VarHandle ENTRY;

    static {
        try {
            ENTRY = MethodHandles.lookup().findVarHandle(TimerTask.class, "entry", KafkaTimerEntry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The delay, in milliseconds, from the moment the task is added to the moment it is due. */
    public final long delayMs;

    /** The schedule this task is bound to, or null. */
    @SuppressWarnings("unused") // accessed through ENTRY
    private volatile KafkaTimerEntry entry;

    /**
     * Creates a task due {@code delayMs} after it is added to a timer.
     *
     * @param delayMs the delay in milliseconds; zero or negative runs the task as soon as it is added; a delay past
     *                about 292 years saturates there
     */
    public TimerTask(long delayMs) {
        this.delayMs = delayMs;
    }

    /**
     * Cancels the task's current schedule, if any, and unbinds the task. O(1), lock-free, from any thread. A task
     * already taken to run is not stopped; a task not yet taken never runs (unless it is added again).
     */
    public void cancel() {
        KafkaTimerEntry e = (KafkaTimerEntry) ENTRY.getAndSet(this, (KafkaTimerEntry) null);
        if (e != null) {
            e.cancel();
        }
    }

    /**
     * Tells whether the task is bound to no schedule, as Kafka defines it: true before the first
     * {@link Timer#add add} and after {@link #cancel()}; false while scheduled and after it ran.
     *
     * @return true if the task has no schedule
     */
    public boolean isCancelled() {
        return entry == null;
    }

    /**
     * Binds the task to a new schedule and cancels the one it had, so that only the newest schedule can run.
     *
     * @param newEntry the schedule about to be handed to a timer
     */
    final void bind(KafkaTimerEntry newEntry) {
        KafkaTimerEntry old = (KafkaTimerEntry) ENTRY.getAndSet(this, newEntry);
        if (old != null && old != newEntry) {
            old.cancel();
        }
    }

    /**
     * Unbinds the task from {@code e} if it is still bound to it (an add that failed).
     *
     * @param e the schedule to forget
     */
    final void unbind(KafkaTimerEntry e) {
        ENTRY.compareAndSet(this, e, (KafkaTimerEntry) null);
    }
}
