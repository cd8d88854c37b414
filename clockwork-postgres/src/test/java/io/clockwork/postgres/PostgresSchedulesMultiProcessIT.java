package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly one occurrence per fire time across processes: three scheduler JVMs ({@link PostgresSchedulerMain}) run
 * passes back to back on one database against a fast and a once-a-second fixed-rate schedule for a few seconds,
 * racing for every fire time, while this test consumes and acks. Every fire time from the first to the last must be
 * delivered exactly once, none skipped, and the occurrences the three processes say they stored must add up to what
 * was delivered.
 */
@ExtendWith(PostgresExtension.class)
class PostgresSchedulesMultiProcessIT {

    private static final int PROCESSES = 3;
    private static final Duration RUN = Duration.ofSeconds(3);
    private static final Map<String, Duration> RATES = Map.of("fast", Duration.ofMillis(50), "second",
            Duration.ofSeconds(1));

    private final PostgresServerProcess postgres;

    PostgresSchedulesMultiProcessIT(PostgresServerProcess postgres) {
        this.postgres = postgres;
    }

    @Test
    void threeSchedulerProcessesDeliverEachFireTimeExactlyOnceAndSkipNone() throws Exception {
        String name = "multi-process";
        List<Process> children = new ArrayList<>();
        try (PostgresDelayedQueue<String> queue = PostgresDelayedQueue.builder(ContractQueues.dataSource(), name,
                Codec.string()).build();
             PostgresSchedules<String> admin = PostgresSchedules.builder(queue).build()) {
            List<BufferedReader> outs = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), "-Xmx96m", "-XX:TieredStopAtLevel=1",
                        PostgresSchedulerMain.class.getName(), postgres.jdbcUrl(), name)
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                children.add(p);
                outs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (BufferedReader out : outs) {
                assertThat(out.readLine()).isEqualTo("READY");
            }
            Map<String, Long> first = new HashMap<>();
            for (Map.Entry<String, Duration> e : RATES.entrySet()) {
                ScheduleInfo info = admin.put(Schedule.of(e.getKey(), ScheduleRule.fixedRate(e.getValue()), "x"));
                first.put(e.getKey(), info.nextFire().orElseThrow().toEpochMilli());
            }

            Map<String, TreeMap<Long, Integer>> delivered = new HashMap<>();
            RATES.keySet().forEach(k -> delivered.put(k, new TreeMap<>()));
            long end = System.nanoTime() + RUN.toNanos();
            while (System.nanoTime() - end < 0) {
                consume(queue, delivered, Duration.ofMillis(50));
            }
            Map<String, Long> last = new HashMap<>();
            for (String schedule : RATES.keySet()) {
                assertThat(admin.pause(schedule)).isTrue(); // it waits for a pass holding the row: none stores after
                last.put(schedule, admin.get(schedule).orElseThrow().lastFire().orElseThrow().toEpochMilli());
            }
            for (Process child : children) {
                OutputStream in = child.getOutputStream();
                in.write("STOP\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
            long stored = 0;
            List<Long> perProcess = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                String line = outs.get(i).readLine();
                assertThat(line).as("process %s's last line", i).startsWith("STORED ");
                long n = Long.parseLong(line.substring("STORED ".length()));
                perProcess.add(n);
                stored += n;
                assertThat(children.get(i).waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
            while (consume(queue, delivered, Duration.ZERO) > 0) {
                // the occurrences stored before the pause: all due already
            }

            long total = 0;
            for (Map.Entry<String, Duration> e : RATES.entrySet()) {
                TreeMap<Long, Integer> times = delivered.get(e.getKey());
                long p = e.getValue().toMillis();
                long expected = (last.get(e.getKey()) - first.get(e.getKey())) / p + 1;
                assertThat(times.firstKey()).isEqualTo(first.get(e.getKey()));
                assertThat(times.lastKey()).isEqualTo(last.get(e.getKey()));
                assertThat(times).as("fire times of %s", e.getKey()).hasSize((int) expected);
                for (Map.Entry<Long, Integer> t : times.entrySet()) {
                    assertThat(t.getValue()).as("deliveries of %s at %s", e.getKey(), t.getKey()).isEqualTo(1);
                    assertThat((t.getKey() - first.get(e.getKey())) % p).isZero();
                }
                total += times.size();
            }
            assertThat(stored).as("occurrences the processes stored (%s each)", perProcess).isEqualTo(total);
            assertThat(delivered.get("fast")).hasSizeGreaterThan(30);
            assertThat(delivered.get("second")).hasSizeGreaterThanOrEqualTo(2);
            System.out.printf("[reliability] postgres schedules: %d scheduler processes, %d fire times in %s, each"
                    + " delivered once; stored per process %s%n", PROCESSES, total, RUN, perProcess);
        } finally {
            for (Process p : children) {
                p.destroyForcibly();
            }
        }
    }

    private static int consume(PostgresDelayedQueue<String> queue, Map<String, TreeMap<Long, Integer>> delivered,
                               Duration wait) throws InterruptedException {
        List<Delivery<String>> batch = queue.poll(100, wait);
        for (Delivery<String> d : batch) {
            Occurrence o = Occurrence.of(d.id()).orElseThrow();
            delivered.get(o.schedule()).merge(o.fireTime().toEpochMilli(), 1, Integer::sum);
            assertThat(d.ack()).isTrue();
        }
        return batch.size();
    }
}
