package io.clockwork.redis;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/**
 * Helpers of the reliability ITs ({@code RedisQueue*IT}): waiting for a condition with a deadline (never a blind
 * sleep) and printing the figures each test measures, as {@code [reliability] <test>: <figures>} lines on stdout.
 * Thread-safe.
 */
final class Reliability {

    private Reliability() {
    }

    /**
     * Polls a condition every half millisecond until it holds, failing the test after {@code limit}.
     *
     * @param what      what is awaited, for the failure message
     * @param limit     the deadline
     * @param condition the condition
     */
    static void await(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within " + limit + ": " + what);
            }
            LockSupport.parkNanos(500_000);
        }
    }

    /**
     * Returns once {@code amount} has passed on this machine's monotonic clock, checking every half millisecond: for
     * tests whose scenario is a fixed outage (a server paused for 5 s).
     *
     * @param amount how long
     */
    static void hold(Duration amount) {
        long until = System.nanoTime() + amount.toNanos();
        await("time passes", amount.plusSeconds(5), () -> System.nanoTime() - until >= 0);
    }

    /**
     * Prints one line of figures.
     *
     * @param test   which test
     * @param format figures, {@link String#format} style
     * @param args   the values
     */
    static void report(String test, String format, Object... args) {
        System.out.println("[reliability] " + test + ": " + String.format(Locale.ROOT, format, args));
    }

    /** @return {@code n} per second over {@code nanos} */
    static double perSecond(long n, long nanos) {
        return n * 1e9 / Math.max(1, nanos);
    }

    /** @return milliseconds in {@code nanos} */
    static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
