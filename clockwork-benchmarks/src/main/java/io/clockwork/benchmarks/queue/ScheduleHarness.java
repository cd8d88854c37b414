package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisSchedules;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleRule;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lateness of recurring schedules' occurrences on one {@code redis-server}: {@code --schedules} fixed-rate schedules
 * (period {@code --period-ms}) on one queue, {@code --schedulers} started {@link RedisSchedules} clients racing for
 * every fire time, and {@code --consumers} threads polling batches of 100 and acking. An occurrence's lateness is
 * the time from when it is due (its fire time plus its schedule's spread offset) to when a consumer receives it, both
 * read from this machine's wall clock, which is the server's. Two scenarios, one after the other on a flushed server:
 * {@code aligned} (every schedule fires at the same instant each period: the stampede) and {@code spread} (each
 * schedule's occurrences spread over the period by {@code Schedule.spread}). Occurrences whose fire time falls in the
 * first period are warm-up and not counted; the report counts those delivered twice (must be 0) and fire times never
 * delivered (must be 0). Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.ScheduleHarness
 * [--schedules 10000] [--period-ms 10000] [--seconds 40] [--schedulers 2] [--consumers 4] [--partitions 1]}</pre>
 */
public final class ScheduleHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("schedules", "10000");
        DEFAULTS.put("period-ms", "10000");
        DEFAULTS.put("seconds", "40");
        DEFAULTS.put("schedulers", "2");
        DEFAULTS.put("consumers", "4");
        DEFAULTS.put("partitions", "1");
        DEFAULTS.put("scenarios", "aligned,spread");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private ScheduleHarness() {
    }

    /** One scenario's figures. */
    record Result(String scenario, long expected, long delivered, long duplicates, long missing, long[] latenessMs) {
        String row() {
            long[] l = latenessMs;
            return String.format(Locale.ROOT, "| %s | %,d | %,d | %d | %d | %d | %d | %d |", scenario, expected,
                    delivered, duplicates, missing, percentile(l, 0.5), percentile(l, 0.99),
                    l.length == 0 ? 0 : l[l.length - 1]);
        }
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        List<Result> results = new ArrayList<>();
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            System.out.println("# schedule lateness: " + opts.get("schedules") + " schedules every "
                    + opts.get("period-ms") + " ms for " + opts.get("seconds") + " s, " + opts.get("schedulers")
                    + " schedulers, " + opts.get("consumers") + " consumers, " + opts.get("partitions")
                    + " partition(s) (redis " + servers.version() + ", " + Runtime.getRuntime().availableProcessors()
                    + " cores, JDK " + System.getProperty("java.version") + ")");
            for (String scenario : opts.list("scenarios")) {
                server.call("FLUSHALL");
                results.add(run(server.uri(), scenario, opts));
            }
        }
        System.out.println();
        System.out.println("| scenario | fire times | delivered | twice | missing | median ms | p99 ms | max ms |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : results) {
            System.out.println(r.row());
        }
    }

    static Result run(String uri, String scenario, Harness opts) throws Exception {
        int schedules = opts.getInt("schedules");
        long period = opts.getInt("period-ms");
        long runMs = opts.getInt("seconds") * 1000L;
        boolean spread = scenario.equals("spread");
        if (!spread && !scenario.equals("aligned")) {
            throw new IllegalArgumentException("scenario must be aligned or spread, was '" + scenario + "'");
        }
        List<AutoCloseable> open = new ArrayList<>();
        Map<String, Long> offsets = new ConcurrentHashMap<>();
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        List<long[]> lateness = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong countFrom = new AtomicLong(Long.MAX_VALUE);
        List<Thread> consumers = new ArrayList<>();
        try {
            RedisDelayedQueue<String> admin = RedisDelayedQueue.builder(uri, "scheduled", Codec.string())
                    .partitions(opts.getInt("partitions")).build();
            open.add(admin);
            RedisSchedules<String> setup = RedisSchedules.builder(admin).build();
            open.add(0, setup);
            long start = System.currentTimeMillis();
            for (int i = 0; i < schedules; i++) {
                Schedule<String> s = Schedule.of("s-" + i, ScheduleRule.fixedRate(Duration.ofMillis(period)), "x");
                if (spread) {
                    s = s.spread(Duration.ofMillis(period));
                }
                offsets.put(s.name(), s.spreadOffsetMillis());
                setup.put(s);
            }
            long created = System.currentTimeMillis();
            // fire times from the first whole period after setup are counted
            long first = (created / period + 2) * period;
            countFrom.set(first);
            long end = created + runMs;
            System.out.printf(Locale.ROOT, "  %s: %,d schedules created in %,d ms%n", scenario, schedules,
                    created - start);
            for (int c = 0; c < opts.getInt("consumers"); c++) {
                RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "scheduled", Codec.string()).build();
                open.add(q);
                long[] own = new long[1 << 20];
                int[] n = {0};
                lateness.add(own);
                Thread t = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            List<Delivery<String>> batch = q.poll(100, Duration.ofMillis(100));
                            long now = System.currentTimeMillis();
                            for (Delivery<String> d : batch) {
                                Occurrence o = Occurrence.of(d.id()).orElseThrow();
                                long fire = o.fireTime().toEpochMilli();
                                if (fire >= countFrom.get() && fire < end - period) {
                                    seen.merge(d.id(), 1, Integer::sum);
                                    long due = fire + offsets.get(o.schedule());
                                    if (n[0] < own.length - 1) {
                                        own[++n[0]] = now - due;
                                    }
                                }
                            }
                            q.ackAll(batch);
                        }
                        own[0] = n[0];
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "consumer-" + c);
                t.start();
                consumers.add(t);
            }
            for (int s = 0; s < opts.getInt("schedulers"); s++) {
                RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "scheduled", Codec.string()).build();
                open.add(q);
                open.add(0, RedisSchedules.builder(q).build().start());
            }
            long slack = Math.min(2000, 3 * period); // counted fire times are due by `end`: time to deliver them
            while (System.currentTimeMillis() < end + slack) {
                Thread.sleep(100);
            }
            stop.set(true);
            for (Thread t : consumers) {
                t.join();
            }
            long fireTimes = Math.max(0, (end - period - first + period - 1) / period);
            long expected = fireTimes * schedules;
            long delivered = 0;
            long duplicates = 0;
            for (int v : seen.values()) {
                delivered++;
                duplicates += v - 1;
            }
            int total = 0;
            for (long[] own : lateness) {
                total += (int) own[0];
            }
            long[] all = new long[total];
            int at = 0;
            for (long[] own : lateness) {
                System.arraycopy(own, 1, all, at, (int) own[0]);
                at += (int) own[0];
            }
            Arrays.sort(all);
            return new Result(scenario, expected, delivered, duplicates, Math.max(0, expected - delivered), all);
        } finally {
            stop.set(true);
            for (AutoCloseable c : open) {
                c.close();
            }
        }
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }
}
