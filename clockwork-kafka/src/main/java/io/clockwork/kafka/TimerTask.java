package io.clockwork.kafka;

import io.clockwork.engine.TimerEntry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A task to run once after a delay on a Kafka-style {@link Timer}; the same name and semantics as Kafka's
 * {@code org.apache.kafka.server.util.timer.TimerTask}. Thread-safe.
 *
 * <p>Subclasses implement {@link #run()}. A task is bound to at most one schedule at a time: {@link Timer#add}
 * binds it to a new schedule and cancels the one it had, so adding the same task again keeps only the newest
 * schedule (on whichever timer). {@link #cancel()} cancels the schedule it is bound to; one that has not yet
 * been taken to run then never runs.
 *
 * <p>{@link #isCancelled()} is Kafka's definition: true while the task has no schedule, that is before its first
 * {@code add} and after {@code cancel()} — even a cancel that came after the task ran. A task that ran (or whose
 * timer closed before it ran) keeps its schedule, so it reads as not cancelled.
 *
 * <p>Binding costs one atomic swap; the schedule itself is the timer's wheel node, so an {@code add} allocates
 * one object. A cancel costs one CAS, on the schedule's state, as a {@code WheelTimer} timeout's does: a task
 * whose schedule is cancelled has none, so it stays bound to that schedule until it is added again. Only a cancel
 * that finds its schedule no longer pending (it ran, or its timer closed) unbinds the task, with a second CAS.
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
     * Cancels the task's current schedule, if any, so that the task has none. O(1), lock-free, from any thread. A
     * task already taken to run is not stopped; a task not yet taken never runs (unless it is added again).
     */
    public void cancel() {
        KafkaTimerEntry e = entry;
        if (e != null && !e.cancel()) {
            // It ran, was abandoned or was cancelled already: unbind, so that it reads as cancelled from now on.
            ENTRY.compareAndSet(this, e, (KafkaTimerEntry) null);
        }
    }

    /**
     * Tells whether the task has no schedule, as Kafka defines it: true before the first {@link Timer#add add} and
     * after {@link #cancel()}; false while scheduled and after it ran.
     *
     * @return true if the task has no schedule
     */
    public boolean isCancelled() {
        KafkaTimerEntry e = entry;
        return e == null || e.state() == TimerEntry.CANCELLED;
    }

    /** @return the schedule this task is bound to, or null (visible for testing) */
    KafkaTimerEntry entry() {
        return entry;
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
