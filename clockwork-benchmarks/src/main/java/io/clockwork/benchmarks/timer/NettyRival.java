package io.clockwork.benchmarks.timer;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;

/**
 * Netty's {@link HashedWheelTimer} with a 1 ms tick and its default 512 buckets, leak detection off (Netty's default
 * for a daemon worker thread), no bound on pending timeouts. Thread-safe.
 */
final class NettyRival extends TimerRival {

    private static final TimerTask NOOP = timeout -> { };

    private final HashedWheelTimer timer;

    NettyRival() {
        super(Rivals.NETTY);
        timer = new HashedWheelTimer(new DefaultThreadFactory("netty-bench", true), 1, TimeUnit.MILLISECONDS, 512,
                false, -1);
        timer.start();
    }

    @Override
    public Lane lane(int capacity) {
        return new Lane() {
            private final Timeout[] handles = new Timeout[capacity];

            @Override
            public void schedule(int slot, long delayNanos) {
                handles[slot] = timer.newTimeout(NOOP, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void schedule(int slot, long delayNanos, Runnable task) {
                handles[slot] = timer.newTimeout(timeout -> task.run(), delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void scheduleDetached(long delayNanos) {
                timer.newTimeout(NOOP, delayNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public boolean cancel(int slot) {
                return handles[slot].cancel();
            }
        };
    }

    @Override
    public long pending() {
        return timer.pendingTimeouts();
    }

    @Override
    public void close() {
        timer.stop();
    }
}
