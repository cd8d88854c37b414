package io.clockwork.kafka;

import io.clockwork.testing.Await;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Helpers shared by the Kafka-face tests. Not thread-safe: static helpers and per-test tasks. */
final class KafkaFaceTesting {

    /** Far longer than anything should take; only a broken timer waits this long. */
    static final Duration PATIENCE = Duration.ofSeconds(10);

    private KafkaFaceTesting() {
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
        Await.until("the task thread reaches a marker task", marker::ran);
    }
}
