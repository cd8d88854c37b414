package io.clockwork.redis;

import io.clockwork.queue.Codec;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A scheduler process for {@link RedisSchedulesMultiProcessIT}: it opens the queue, prints {@code READY}, waits for a
 * first line on its stdin (the test has stored its schedules), then runs {@link RedisSchedules#fireDue()} passes back
 * to back (a 1 ms pause between them) until a second line arrives; then it prints {@code STORED <n>}, the occurrences
 * its own passes stored, and exits. Not thread-safe: a process of its own.
 */
public final class SchedulerMain {

    private SchedulerMain() {
    }

    /**
     * @param args Redis URI, queue name
     * @throws Exception on any failure (the test then sees no {@code STORED} line)
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        AtomicBoolean stop = new AtomicBoolean();
        try (RedisDelayedQueue<String> queue = RedisDelayedQueue.builder(args[0], args[1], Codec.string()).build();
             RedisSchedules<String> schedules = RedisSchedules.builder(queue).build()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            out.println("READY");
            if (in.readLine() == null) {
                return; // stdin closed before the go: the test gave up
            }
            Thread control = new Thread(() -> {
                try {
                    in.readLine();
                } catch (Exception e) {
                    // stdin closed: stop as well
                }
                stop.set(true);
            });
            control.setDaemon(true);
            control.start();
            long stored = 0;
            while (!stop.get()) {
                stored += schedules.fireDue();
                LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
            }
            out.println("STORED " + stored);
        }
    }
}
