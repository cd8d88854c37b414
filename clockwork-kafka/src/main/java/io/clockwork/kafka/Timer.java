package io.clockwork.kafka;

/**
 * A Kafka-style timer that runs {@link TimerTask}s once their delay has passed, with the name and contract of
 * Kafka's {@code org.apache.kafka.server.util.timer.Timer}. Thread-safe: implementations accept {@link #add} and
 * {@link #size()} from any thread, and {@link #advanceClock} from one thread at a time (see each implementation).
 *
 * <p>As in Kafka, the timer does not advance by itself: whoever owns it calls {@link #advanceClock} in a loop, or
 * wraps it in a {@link SystemTimerReaper}, which does so on its own thread.
 */
public interface Timer extends AutoCloseable {

    /**
     * Adds a task, due {@link TimerTask#delayMs} milliseconds from now. Adding a task that is already scheduled
     * cancels that schedule: only the newest one can run.
     *
     * @param timerTask the task to add
     */
    void add(TimerTask timerTask);

    /**
     * Advances the timer's clock, running every task that has fallen due; if nothing is due, waits up to
     * {@code timeoutMs} for something to fall due.
     *
     * @param timeoutMs how long to wait, in milliseconds, for a task to fall due
     * @return whether any task expired
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    boolean advanceClock(long timeoutMs) throws InterruptedException;

    /**
     * Returns the number of tasks pending execution, cancelled ones excluded.
     *
     * @return the number of pending tasks
     */
    int size();
}
