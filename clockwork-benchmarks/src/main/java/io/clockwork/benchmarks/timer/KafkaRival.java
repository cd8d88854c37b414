package io.clockwork.benchmarks.timer;

import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's {@link SystemTimer} (1 ms tick, 20 buckets per level, its defaults) driven by a {@link SystemTimerReaper},
 * as Kafka's broker drives it. Its API makes the task the handle, so each schedule allocates a {@link TimerTask}.
 * Thread-safe.
 */
final class KafkaRival extends TimerRival {

    private final SystemTimerReaper timer;

    KafkaRival() {
        super(Rivals.KAFKA);
        timer = new SystemTimerReaper("kafka-bench-reaper", new SystemTimer("kafka-bench"));
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
            throw new IllegalStateException("closing Kafka's timer failed", e);
        }
    }

    /** The smallest task Kafka's API allows: the user's per-timer object. */
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
