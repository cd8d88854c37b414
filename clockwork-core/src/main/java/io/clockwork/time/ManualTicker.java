package io.clockwork.time;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when told to, for deterministic tests. Thread-safe.
 *
 * <p>Time never goes backwards: {@code advance} rejects negative amounts. Every {@code advance} is a jump: it runs
 * the actions registered through {@link #watch(Runnable)}, so that classes sleeping until a deadline (a timer's
 * driver thread, a consumer blocked in {@code poll}) wake as soon as the test moves time, rather than after a
 * real-time sleep.
 */
public final class ManualTicker implements Ticker {

    private final AtomicLong nanos;
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** Creates a ticker reading zero. */
    public ManualTicker() {
        this(0L);
    }

    /**
     * Creates a ticker with the given first reading; tests start near {@link Long#MAX_VALUE} or
     * {@link Long#MIN_VALUE} to prove that wraparound is handled.
     *
     * @param startNanos the first reading
     */
    public ManualTicker(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long read() {
        return nanos.get();
    }

    /**
     * Moves time forward and wakes the listeners.
     *
     * @param amount how far to move, not negative
     * @return this ticker
     * @throws IllegalArgumentException if {@code amount} is negative
     */
    public ManualTicker advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        if (amount.isNegative()) {
            throw new IllegalArgumentException("amount must not be negative, was " + amount);
        }
        return advanceNanos(Nanos.saturated(amount));
    }

    /**
     * Moves time forward and wakes the listeners.
     *
     * @param amount how far to move, not negative
     * @param unit   the unit of {@code amount}
     * @return this ticker
     * @throws IllegalArgumentException if {@code amount} is negative
     */
    public ManualTicker advance(long amount, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (amount < 0) {
            throw new IllegalArgumentException("amount must not be negative, was " + amount + " " + unit);
        }
        return advanceNanos(unit.toNanos(amount));
    }

    private ManualTicker advanceNanos(long delta) {
        nanos.addAndGet(delta); // wraps on purpose: readings are compared as differences
        for (Runnable listener : listeners) {
            listener.run();
        }
        return this;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The action runs on the advancing thread after every {@code advance}.
     */
    @Override
    public Watch watch(Runnable onJump) {
        Runnable action = Objects.requireNonNull(onJump, "onJump");
        listeners.add(action);
        return () -> listeners.remove(action);
    }

    /** @return how many registrations are open; for tests that check sleepers deregister */
    public int watchCount() {
        return listeners.size();
    }

    @Override
    public String toString() {
        return "ManualTicker[" + nanos.get() + "ns]";
    }
}
