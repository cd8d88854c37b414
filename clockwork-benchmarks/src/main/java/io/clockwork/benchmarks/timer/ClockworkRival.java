package io.clockwork.benchmarks.timer;

import io.clockwork.timer.Timeout;
import io.clockwork.timer.WheelTimer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Our {@link WheelTimer} with a 1 ms tick; tasks run on its driver thread. Thread-safe. */
final class ClockworkRival extends TimerRival {

    private static final Runnable NOOP = () -> { };

    private final WheelTimer timer;

    ClockworkRival() {
        super(Rivals.CLOCKWORK);
        timer = WheelTimer.builder().name("clockwork-bench").tick(Duration.ofMillis(1)).build();
    }

    @Override
    public Lane lane(int capacity) {
        return new Lane() {
            private final Timeout[] handles = new Timeout[capacity];

            @Override
            public void schedule(int slot, long delayNanos) {
                handles[slot] = timer.schedule(NOOP, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void schedule(int slot, long delayNanos, Runnable task) {
                handles[slot] = timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void scheduleDetached(long delayNanos) {
                timer.schedule(NOOP, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public boolean cancel(int slot) {
                return handles[slot].cancel();
            }
        };
    }

    @Override
    public long pending() {
        return timer.pendingCount();
    }

    @Override
    public void close() {
        timer.close();
    }
}
