package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly one occurrence per fire time across processes: four scheduler JVMs ({@link SchedulerMain}) run passes
 * back to back on one Redis against two fast fixed-rate schedules for several seconds, racing for every fire time,
 * while this test consumes and acks. Every fire time from the first to the last must be delivered exactly once, none
 * skipped, and the occurrences the four processes say they stored must add up to what was delivered. The schedules
 * are stored before the schedulers start, so the first fire time is the one put returned.
 */
@ExtendWith(RedisExtension.class)
class RedisSchedulesMultiProcessIT {

    private static final int PROCESSES = 4;
    private static final Duration RUN = Duration.ofSeconds(8);
    private static final Map<String, Duration> RATES = Map.of("fast", Duration.ofMillis(20), "slow",
            Duration.ofMillis(50));

    private final RedisServerProcess redis;

    RedisSchedulesMultiProcessIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void fourSchedulerProcessesDeliverEachFireTimeExactlyOnceAndSkipNone() throws Exception {
        String name = "multi-process";
        List<Process> children = new ArrayList<>();
        try (RedisDelayedQueue<String> queue = RedisDelayedQueue.builder(redis.uri(), name, Codec.string())
                .partitions(2).build();
             RedisSchedules<String> admin = RedisSchedules.builder(queue).build()) {
            List<BufferedReader> outs = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), "-Xmx96m", "-XX:TieredStopAtLevel=1",
                        SchedulerMain.class.getName(), redis.uri(), name)
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                children.add(p);
                outs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (BufferedReader out : outs) {
                assertThat(out.readLine()).isEqualTo("READY");
            }
            // The schedules are stored before any scheduler runs, so what put returns is what it stored: a pass that
            // ran in between would already have moved the next fire time on.
            Map<String, Long> first = new HashMap<>();
            for (Map.Entry<String, Duration> e : RATES.entrySet()) {
                ScheduleInfo info = admin.put(Schedule.of(e.getKey(), ScheduleRule.fixedRate(e.getValue()), "x"));
                assertThat(info.lastFire()).as("%s fired before the schedulers started", e.getKey()).isEmpty();
                first.put(e.getKey(), info.nextFire().orElseThrow().toEpochMilli());
            }
            for (Process p : children) {
                send(p, "GO");
            }

            Map<String, TreeMap<Long, Integer>> delivered = new HashMap<>();
            RATES.keySet().forEach(k -> delivered.put(k, new TreeMap<>()));
            long end = System.nanoTime() + RUN.toNanos();
            while (System.nanoTime() - end < 0) {
                consume(queue, delivered, Duration.ofMillis(50));
            }
            Map<String, Long> last = new HashMap<>();
            for (String schedule : RATES.keySet()) {
                assertThat(admin.pause(schedule)).isTrue(); // no occurrence is stored after this returns
                last.put(schedule, admin.get(schedule).orElseThrow().lastFire().orElseThrow().toEpochMilli());
            }
            long stored = 0;
            for (Process p : children) {
                send(p, "STOP");
            }
            List<Long> perProcess = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                String line = outs.get(i).readLine();
                assertThat(line).as("process %s's last line", i).startsWith("STORED ");
                long n = Long.parseLong(line.substring("STORED ".length()));
                perProcess.add(n);
                stored += n;
                assertThat(children.get(i).waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
            long idle = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() - idle < 0) {
                if (consume(queue, delivered, Duration.ofMillis(100)) > 0) {
                    idle = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                }
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
            assertThat(total).isGreaterThan(300);
            System.out.printf("[reliability] schedules: %d scheduler processes, %d fire times in %s, each delivered"
                    + " once; stored per process %s%n", PROCESSES, total, RUN, perProcess);
        } finally {
            for (Process p : children) {
                p.destroyForcibly();
            }
        }
    }

    private static void send(Process child, String line) throws IOException {
        OutputStream in = child.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static int consume(RedisDelayedQueue<String> queue, Map<String, TreeMap<Long, Integer>> delivered,
                               Duration wait) throws InterruptedException {
        List<Delivery<String>> batch = queue.poll(100, wait);
        for (Delivery<String> d : batch) {
            Occurrence o = Occurrence.of(d.id()).orElseThrow();
            delivered.get(o.schedule()).merge(o.fireTime().toEpochMilli(), 1, Integer::sum);
            assertThat(d.ack()).isTrue();
        }
        return batch.size();
    }

    @Test
    void afterAStoppedSchedulerRestartsFireOnceSendsTheOldestMissedFireTimeThenGoesOn() throws Exception {
        long p = 100;
        try (RedisDelayedQueue<String> queue = RedisDelayedQueue.builder(redis.uri(), "restarted", Codec.string())
                .build()) {
            List<Long> seen = new ArrayList<>();
            long lastBefore;
            try (RedisSchedules<String> first = RedisSchedules.builder(queue)
                    .misfireThreshold(Duration.ofMillis(300)).build().start()) {
                first.put(Schedule.of("beat", ScheduleRule.fixedRate(Duration.ofMillis(p)), "v"));
                while (seen.size() < 3) {
                    Delivery<String> d = queue.poll(Duration.ofSeconds(10));
                    seen.add(Occurrence.of(d.id()).orElseThrow().fireTime().toEpochMilli());
                    d.ack();
                }
            }
            try (RedisSchedules<String> reader = RedisSchedules.builder(queue).build()) { // not started
                lastBefore = reader.get("beat").orElseThrow().lastFire().orElseThrow().toEpochMilli();
            }
            while (true) { // what the first scheduler stored before it stopped
                Delivery<String> d = queue.poll(Duration.ofMillis(200));
                if (d == null) {
                    break;
                }
                d.ack();
            }
            Thread.sleep(2000); // the downtime: about 20 fire times with no scheduler
            try (RedisSchedules<String> second = RedisSchedules.builder(queue)
                    .misfireThreshold(Duration.ofMillis(300)).build().start()) {
                List<Long> after = new ArrayList<>();
                while (after.size() < 5) {
                    Delivery<String> d = queue.poll(Duration.ofSeconds(10));
                    after.add(Occurrence.of(d.id()).orElseThrow().fireTime().toEpochMilli());
                    d.ack();
                }
                after.sort(null);
                assertThat(after.get(0)).as("the oldest missed fire time, once").isEqualTo(lastBefore + p);
                assertThat(after.get(1) - after.get(0)).as("the other missed ones are skipped").isGreaterThan(10 * p);
                for (int i = 2; i < after.size(); i++) {
                    assertThat(after.get(i) - after.get(i - 1)).isEqualTo(p);
                }
                assertThat(second.get("beat").orElseThrow().lastFire()).isPresent();
            }
        }
    }

    @Test
    void aStartedSchedulerFiresInTheBackground() throws Exception {
        try (RedisDelayedQueue<String> queue = RedisDelayedQueue.builder(redis.uri(), "started", Codec.string())
                .build();
             RedisSchedules<String> schedules = RedisSchedules.builder(queue).build().start()) {
            long first = schedules.put(Schedule.of("bg", ScheduleRule.fixedRate(Duration.ofMillis(50)), "v"))
                    .nextFire().orElseThrow().toEpochMilli();
            List<Long> seen = new ArrayList<>();
            while (seen.size() < 5) {
                Delivery<String> d = queue.poll(Duration.ofSeconds(10));
                assertThat(d).isNotNull();
                seen.add(Occurrence.of(d.id()).orElseThrow().fireTime().toEpochMilli());
                d.ack();
            }
            assertThat(seen).containsExactly(first, first + 50, first + 100, first + 150, first + 200);
            assertThat(Instant.ofEpochMilli(first)).isBefore(Instant.now().plusSeconds(1));
        }
    }
}
