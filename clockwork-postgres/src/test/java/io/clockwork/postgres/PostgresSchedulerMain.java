package io.clockwork.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.queue.Codec;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A scheduler process for {@link PostgresSchedulesMultiProcessIT}: it opens the queue on a pool of its own, prints
 * {@code READY}, and runs {@link PostgresSchedules#fireDue()} passes back to back (a 2 ms pause between them) until a
 * line arrives on its stdin; then it prints {@code STORED <n>}, the occurrences its own passes stored, and exits.
 * Not thread-safe: a process of its own.
 */
public final class PostgresSchedulerMain {

    private PostgresSchedulerMain() {
    }

    /**
     * @param args JDBC URL, queue name
     * @throws Exception on any failure (the test then sees no {@code STORED} line)
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        AtomicBoolean stop = new AtomicBoolean();
        try (HikariDataSource pool = ContractQueues.pool(args[0], 3);
             PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(pool, args[1], Codec.string())
                     .build();
             PostgresSchedules<String> schedules = PostgresSchedules.builder(queue).build()) {
            Thread control = new Thread(() -> {
                try {
                    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                } catch (Exception e) {
                    // stdin closed: stop as well
                }
                stop.set(true);
            });
            control.setDaemon(true);
            control.start();
            out.println("READY");
            long stored = 0;
            while (!stop.get()) {
                stored += schedules.fireDue();
                LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
            }
            out.println("STORED " + stored);
        }
    }
}
