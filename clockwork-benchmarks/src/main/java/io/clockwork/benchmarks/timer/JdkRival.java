package io.clockwork.benchmarks.timer;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's {@link ScheduledThreadPoolExecutor} with one thread and {@code setRemoveOnCancelPolicy(true)}, so that
 * cancelled tasks leave its heap at once instead of lingering until their deadline. Thread-safe.
 */
final class JdkRival extends TimerRival {

    private static final Runnable NOOP = () -> { };

    private final ScheduledThreadPoolExecutor executor;

    JdkRival() {
        super(Rivals.JDK);
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "jdk-bench");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public Lane lane(int capacity) {
        return new Lane() {
            private final ScheduledFuture<?>[] handles = new ScheduledFuture<?>[capacity];

            @Override
            public void schedule(int slot, long delayNanos) {
                handles[slot] = executor.schedule(NOOP, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void schedule(int slot, long delayNanos, Runnable task) {
                handles[slot] = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void scheduleDetached(long delayNanos) {
                executor.schedule(NOOP, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public boolean cancel(int slot) {
                return handles[slot].cancel(false);
            }
        };
    }

    @Override
    public long pending() {
        return executor.getQueue().size();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
