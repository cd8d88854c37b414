package io.clockwork;

import io.clockwork.timer.Timeout;
import io.clockwork.timer.WheelTimer;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A small end-to-end run of the timer, printed for a person: schedules request timeouts, cancels most of them as
 * their "responses" arrive, and reports what fired and how late. Not part of the API; the {@code clockwork} CLI
 * will replace it. Single-threaded use of a thread-safe timer.
 */
public final class Demo {

    private Demo() {
    }

    /**
     * Runs the demo.
     *
     * @param args optional: the number of timers (default 20,000)
     * @throws InterruptedException if interrupted while waiting for timers
     */
    public static void main(String[] args) throws InterruptedException {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        SplittableRandom random = new SplittableRandom(2026);
        long[] deadline = new long[count];
        long[] lateness = new long[count];
        Timeout[] timeouts = new Timeout[count];
        boolean[] cancelled = new boolean[count];

        System.out.printf("Clockwork demo: %,d request timeouts of 50-1,000 ms on a WheelTimer (1 ms tick)%n", count);
        try (WheelTimer timer = WheelTimer.builder().name("demo-timer").tick(Duration.ofMillis(1)).build()) {
            int expected = 0;
            for (int i = 0; i < count; i++) {
                if (random.nextInt(10) != 0) {
                    cancelled[i] = true; // decided up front; cancelled below, as a response would
                } else {
                    expected++;
                }
            }
            CountDownLatch fired = new CountDownLatch(expected);
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                int id = i;
                long delayMs = 50 + random.nextInt(951);
                deadline[i] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
                timeouts[i] = timer.schedule(() -> {
                    lateness[id] = System.nanoTime() - deadline[id];
                    fired.countDown();
                }, delayMs, TimeUnit.MILLISECONDS);
            }
            long scheduledNanos = System.nanoTime() - start;
            int cancels = 0;
            for (int i = 0; i < count; i++) {
                if (cancelled[i] && timeouts[i].cancel()) {
                    cancels++;
                }
            }
            System.out.printf("scheduled %,d in %.1f ms, cancelled %,d, pending %,d%n",
                    count, scheduledNanos / 1e6, cancels, timer.pendingCount());
            if (!fired.await(30, TimeUnit.SECONDS)) {
                System.out.printf("only %,d of %,d fired within 30 s%n", expected - fired.getCount(), expected);
                System.exit(1);
            }
            long[] late = new long[expected];
            int n = 0;
            for (int i = 0; i < count; i++) {
                if (!cancelled[i]) {
                    late[n++] = lateness[i];
                }
            }
            Arrays.sort(late);
            System.out.printf("fired %,d (none early: min lateness %.3f ms), pending now %,d%n",
                    expected, late[0] / 1e6, timer.pendingCount());
            System.out.printf("lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms%n",
                    late[expected / 2] / 1e6, late[(int) (expected * 0.99)] / 1e6, late[expected - 1] / 1e6);
            if (late[0] < 0) {
                System.out.println("ERROR: a timer fired before its deadline");
                System.exit(1);
            }
        }
    }
}
