package io.clockwork.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/**
 * Waits in tests for a condition that another thread makes true, bounded by a real-time deadline. Thread-safe
 * (stateless).
 *
 * <p>The one waiting helper of every module's tests (clockwork-core's test-jar carries it to the others): tests never
 * sleep for a fixed time. The condition decides when the wait ends; the deadline only bounds a broken case, so it is
 * generous, and the short park between two checks is a polling interval, not a wait for the event.
 */
public final class Await {

    /** The deadline of {@link #until(String, BooleanSupplier)}: far longer than anything correct takes. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(20);

    /** The pause between two checks of the condition. */
    private static final long POLL_NANOS = 200_000L;

    private Await() {
    }

    /**
     * Returns once {@code condition} holds; fails the test if it still does not after {@link #DEFAULT_LIMIT}.
     *
     * @param what      the awaited state, for the failure message ("the task ran")
     * @param condition checked on the calling thread until it returns true
     */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_LIMIT, condition);
    }

    /**
     * Returns once {@code condition} holds; fails the test if it still does not after {@code limit}.
     *
     * @param what      the awaited state, for the failure message
     * @param limit     the longest real time to wait
     * @param condition checked on the calling thread until it returns true
     */
    public static void until(String what, Duration limit, BooleanSupplier condition) {
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(condition, "condition");
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + limit + " waiting until " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.currentThread().isInterrupted()) {
                fail("interrupted while waiting until " + what);
            }
        }
    }
}
