package io.clockwork.expiry;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a generous deadline passes; tests never sleep for a fixed time. */
final class Await {

    private static final Duration LIMIT = Duration.ofSeconds(20);

    private Await() {
    }

    static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + LIMIT + " waiting until " + what);
            }
            LockSupport.parkNanos(200_000); // a polling interval: the condition decides, the deadline bounds it
        }
    }
}
