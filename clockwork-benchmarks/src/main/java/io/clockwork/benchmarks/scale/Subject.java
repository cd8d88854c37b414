package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.timer.Rivals;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One store of pending items under measurement: a timer (ours or a rival) or Clockwork's in-process delayed queue,
 * behind the few operations the scale harness needs. Thread-safe as far as the store is: {@link #producer} may be
 * called from any thread, and each {@link Producer} belongs to the thread that opened it; {@link #deliver} is called
 * by one thread at a time.
 *
 * <p>Time: delays are nanoseconds on {@link System#nanoTime()}'s timeline, and so are the instants of a
 * {@link Span}. Items scheduled with {@link Producer#scheduleCounted} are the only ones that count as delivered.
 */
abstract class Subject implements AutoCloseable {

    /** Our {@code WheelTimer}, 1 ms tick, tasks on its driver thread. */
    static final String CLOCKWORK = Rivals.CLOCKWORK;
    /** Netty's {@code HashedWheelTimer}, 1 ms tick, 512 buckets. */
    static final String NETTY = Rivals.NETTY;
    /** The JDK's {@code ScheduledThreadPoolExecutor(1)}, remove-on-cancel. */
    static final String JDK = Rivals.JDK;
    /** Our {@code InMemoryDelayedQueue}, default options, values kept by reference. */
    static final String QUEUE = "clockwork-queue";
    /** Every subject, ours first. */
    static final List<String> ALL = List.of(CLOCKWORK, NETTY, JDK, QUEUE);

    /** A delay that never comes due during a run. */
    static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);

    /** When a batch of counted items was delivered: from the start of the delivery work to its last item. */
    record Span(long firstNanos, long lastNanos) {

        /** @return the span's length in nanoseconds, at least 1 */
        long nanos() {
            return Math.max(1, lastNanos - firstNanos);
        }
    }

    /**
     * One thread's access to the subject, with a fixed array of handle slots so that it can cancel what it
     * scheduled without a lookup. Not thread-safe: owned by one thread.
     */
    abstract static class Producer {

        /**
         * Schedules an item that stays pending, keeping its handle in {@code slot}.
         *
         * @param slot       where to keep the handle, replacing the previous one
         * @param delayNanos the delay
         */
        abstract void scheduleFar(int slot, long delayNanos);

        /**
         * Cancels the item whose handle is in {@code slot}.
         *
         * @param slot the slot
         * @return what the subject's cancel says
         */
        abstract boolean cancel(int slot);

        /**
         * Schedules an item that stays pending and drops its handle, so that only the subject retains it.
         *
         * @param delayNanos the delay
         */
        abstract void fill(long delayNanos);

        /**
         * Schedules an item that counts as delivered in the batch announced by {@link #expect}.
         *
         * @param slot       where to keep the handle
         * @param delayNanos the delay
         */
        abstract void scheduleCounted(int slot, long delayNanos);
    }

    private final String name;

    Subject(String name) {
        this.name = name;
    }

    /**
     * Opens a running subject.
     *
     * @param name one of {@link #ALL}
     * @return the subject; close it when done
     * @throws IllegalArgumentException for an unknown name
     */
    static Subject open(String name) {
        switch (name) {
            case CLOCKWORK:
            case NETTY:
            case JDK:
                return new TimerSubject(name);
            case QUEUE:
                return new QueueSubject();
            default:
                throw new IllegalArgumentException("unknown subject '" + name + "', expected one of " + ALL);
        }
    }

    /** @return the name in the tables */
    final String name() {
        return name;
    }

    /** @return the names of the schedule, cancel and delivery operations, as the tables show them */
    abstract List<String> operations();

    /** @return the subject's tick, as text ("-" if it has none) */
    abstract String tick();

    /**
     * @param slots how many handles the producer keeps, in slots {@code [0, slots)}
     * @return a producer for the calling thread
     */
    abstract Producer producer(int slots);

    /** @return items the subject reports as pending, or -1 if it cannot tell */
    abstract long pending();

    /**
     * Announces the next batch of counted items; call it before scheduling them.
     *
     * @param count how many will be scheduled
     */
    abstract void expect(int count);

    /**
     * Delivers, or waits for the subject to deliver, the batch announced by {@link #expect}.
     *
     * @param dueNanos     when the batch is due
     * @param timeoutNanos how long to wait at most
     * @return when the delivery work started and ended
     * @throws InterruptedException  if interrupted while waiting
     * @throws IllegalStateException if the batch was not delivered in time
     */
    abstract Span deliver(long dueNanos, long timeoutNanos) throws InterruptedException;

    /** Stops the subject and its threads; pending items are dropped. */
    @Override
    public abstract void close();

    @Override
    public String toString() {
        return name;
    }
}
