package io.clockwork.redis;

import io.clockwork.testing.Await;

import java.time.Duration;
import java.util.Locale;

/**
 * Helpers of the reliability ITs ({@code RedisQueue*IT}): waiting out a fixed outage (on {@link Await}, never a
 * blind sleep) and printing the figures each test measures, as {@code [reliability] <test>: <figures>} lines on stdout.
 * Thread-safe.
 */
final class Reliability {

    private Reliability() {
    }

    /**
     * Returns once {@code amount} has passed on this machine's monotonic clock, polling it with a deadline: for
     * tests whose scenario is a fixed outage (a server paused for 5 s).
     *
     * @param amount how long
     */
    static void hold(Duration amount) {
        long until = System.nanoTime() + amount.toNanos();
        Await.until("time passes", amount.plusSeconds(5), () -> System.nanoTime() - until >= 0);
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
