package io.clockwork.timer;

import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Helpers shared by the Kafka-face tests. Not thread-safe: static helpers and per-test tasks. */
final class KafkaFaceTesting {

    /** Far longer than anything should take; only a broken timer waits this long. */
    static final Duration PATIENCE = Duration.ofSeconds(10);

    private KafkaFaceTesting() {
    }

    /** Polls {@code condition} until it holds, failing after {@link #PATIENCE}; never sleeps blindly. */
    static void awaitCondition(BooleanSupplier condition, String description) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + PATIENCE + " waiting until " + description);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
    }

    /** A task that counts its runs and remembers when (on a ticker) and on which thread it last ran. */
    static class RecordingTask extends TimerTask {
        final int id;
        final Ticker ticker;
        final AtomicInteger runs = new AtomicInteger();
        volatile long ranAtNanos;
        volatile Thread ranOn;

        RecordingTask(long delayMs, int id, Ticker ticker) {
            super(delayMs);
            this.id = id;
            this.ticker = ticker;
        }

        RecordingTask(long delayMs, Ticker ticker) {
            this(delayMs, 0, ticker);
        }

        @Override
        public void run() {
            ranAtNanos = ticker.read();
            ranOn = Thread.currentThread();
            runs.incrementAndGet();
        }

        boolean ran() {
            return runs.get() > 0;
        }

        @Override
        public String toString() {
            return "RecordingTask[id=" + id + ", delayMs=" + delayMs + "]";
        }
    }

    /**
     * Waits until every task handed to the timer's task thread so far has run: the thread runs tasks in hand-over
     * order, so a zero-delay marker added now runs after all of them.
     */
    static void drainTaskThread(SystemTimer timer) {
        RecordingTask marker = new RecordingTask(0, Ticker.system());
        timer.add(marker);
        awaitCondition(marker::ran, "the task thread reaches a marker task");
    }
}
