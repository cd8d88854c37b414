package io.clockwork.timer;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/** Polls a condition until it holds or a generous deadline passes; tests never sleep for a fixed time. */
final class Await {

    static final Duration DEFAULT = Duration.ofSeconds(20);

    private Await() {
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT, condition);
    }

    static void until(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + limit + " waiting until " + what);
            }
            // A short polling interval, not a wait for the event: the condition decides, the deadline bounds it.
            LockSupport.parkNanos(200_000);
        }
    }
}
