package io.clockwork.benchmarks.timer;

import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.concurrent.TimeUnit;

/**
 * Agrona's {@link DeadlineTimerWheel}: not thread-safe and threadless, so each lane owns a wheel and drives it
 * from its own thread, polling every {@value #POLL_EVERY} schedules (and in a loop where a harness waits for
 * expiry). It is the reference for what one thread can do with no hand-off at all. Thread-safe only in that each
 * lane is confined to its thread.
 *
 * <p>Its tick must be a power of two in the time unit: 2^20 ns (1.05 ms), 65,536 spokes (a 69 s turn), 16 slots
 * per spoke to start (it grows by doubling). Agrona reuses a slot once its timer expired, so a cancel that comes
 * after expiry may hit a newer timer; the workloads here cancel long before expiry.
 */
final class AgronaRival extends TimerRival {

    static final int POLL_EVERY = 1024;
    private static final long TICK_NANOS = 1L << 20;
    private static final int SPOKES = 1 << 16;
    private static final int INITIAL_SLOTS = 16;

    AgronaRival() {
        super(Rivals.AGRONA);
    }

    @Override
    public boolean shared() {
        return false;
    }

    @Override
    public Lane lane(int capacity) {
        return new AgronaLane(capacity);
    }

    @Override
    public long pending() {
        return -1;
    }

    @Override
    public void close() {
    }

    private static final class AgronaLane extends Lane {
        private final DeadlineTimerWheel wheel =
                new DeadlineTimerWheel(TimeUnit.NANOSECONDS, System.nanoTime(), TICK_NANOS, SPOKES, INITIAL_SLOTS);
        private final long[] ids;
        private final Long2ObjectHashMap<Runnable> tasks = new Long2ObjectHashMap<>();
        private final DeadlineTimerWheel.TimerHandler handler = this::expire;
        private int sincePoll;

        AgronaLane(int capacity) {
            ids = new long[capacity];
        }

        private boolean expire(TimeUnit unit, long now, long timerId) {
            if (!tasks.isEmpty()) {
                Runnable task = tasks.remove(timerId);
                if (task != null) {
                    task.run();
                }
            }
            return true;
        }

        private void maybePoll() {
            if (++sincePoll == POLL_EVERY) {
                sincePoll = 0;
                wheel.poll(System.nanoTime(), handler, Integer.MAX_VALUE);
            }
        }

        @Override
        public void schedule(int slot, long delayNanos) {
            maybePoll();
            ids[slot] = wheel.scheduleTimer(System.nanoTime() + delayNanos);
        }

        @Override
        public void schedule(int slot, long delayNanos, Runnable task) {
            maybePoll();
            long id = wheel.scheduleTimer(System.nanoTime() + delayNanos);
            ids[slot] = id;
            tasks.put(id, task);
        }

        @Override
        public void scheduleDetached(long delayNanos) {
            maybePoll();
            wheel.scheduleTimer(System.nanoTime() + delayNanos);
        }

        @Override
        public boolean cancel(int slot) {
            return wheel.cancelTimer(ids[slot]);
        }

        @Override
        public int poll(long nowNanos) {
            return wheel.poll(nowNanos, handler, Integer.MAX_VALUE);
        }

        @Override
        public boolean needsPolling() {
            return true;
        }
    }
}
