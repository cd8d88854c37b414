package io.clockwork.benchmarks.timer;

import io.clockwork.kafka.SystemTimer;
import io.clockwork.kafka.SystemTimerReaper;
import io.clockwork.kafka.TimerTask;

/**
 * Our Kafka face, {@link SystemTimer} (Kafka's defaults: 1 ms tick, wheel size 20) behind our
 * {@link SystemTimerReaper}, used exactly as {@link KafkaRival} uses Kafka's: the drop-in comparison. Thread-safe.
 */
final class ClockworkKafkaRival extends TimerRival {

    private final SystemTimerReaper timer;

    ClockworkKafkaRival() {
        super(Rivals.CLOCKWORK_KAFKA);
        timer = new SystemTimerReaper("clockwork-kafka-bench-reaper", new SystemTimer("clockwork-kafka-bench"));
    }

    @Override
    public Lane lane(int capacity) {
        return new Lane() {
            private final TimerTask[] handles = new TimerTask[capacity];

            @Override
            public void schedule(int slot, long delayNanos) {
                TimerTask task = new NoopTask(ceilMillis(delayNanos));
                timer.add(task);
                handles[slot] = task;
            }

            @Override
            public void schedule(int slot, long delayNanos, Runnable task) {
                TimerTask t = new RunnableTask(ceilMillis(delayNanos), task);
                timer.add(t);
                handles[slot] = t;
            }

            @Override
            public void scheduleDetached(long delayNanos) {
                timer.add(new NoopTask(ceilMillis(delayNanos)));
            }

            @Override
            public boolean cancel(int slot) {
                handles[slot].cancel();
                return true;
            }
        };
    }

    @Override
    public long pending() {
        return timer.size();
    }

    @Override
    public void close() {
        try {
            timer.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing our Kafka-face timer failed", e);
        }
    }

    /** The smallest task the Kafka API allows: the user's per-timer object. */
    static final class NoopTask extends TimerTask {
        NoopTask(long delayMs) {
            super(delayMs);
        }

        @Override
        public void run() {
        }
    }

    private static final class RunnableTask extends TimerTask {
        private final Runnable task;

        RunnableTask(long delayMs, Runnable task) {
            super(delayMs);
            this.task = task;
        }

        @Override
        public void run() {
            task.run();
        }
    }
}
