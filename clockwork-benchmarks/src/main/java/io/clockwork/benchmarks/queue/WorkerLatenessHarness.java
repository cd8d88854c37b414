package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.worker.Worker;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How late a {@link Worker} with its defaults (adaptive prefetch) starts each job at low load, on one
 * {@code redis-server}: {@code --rate} offers per second for {@code --seconds}, delays uniform in [20, 200] ms, a
 * worker of concurrency 4 whose handler records when it started each job. Lateness = handler start minus the earliest
 * moment the message may be due (the wall clock read before the offer was sent, plus its delay; the server dates it
 * no earlier), so a negative lateness is a job started early. Prints percentiles and the count of early jobs. Not
 * thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.WorkerLatenessHarness
 * [--rate 500] [--seconds 10] [--warmup-seconds 3] [--prefetch adaptive|N]}</pre>
 */
public final class WorkerLatenessHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("rate", "500");
        DEFAULTS.put("seconds", "10");
        DEFAULTS.put("warmup-seconds", "3");
        DEFAULTS.put("prefetch", "adaptive");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private WorkerLatenessHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int rate = opts.getInt("rate");
        int warmup = rate * opts.getInt("warmup-seconds");
        int total = warmup + rate * opts.getInt("seconds");
        AtomicLongArray lateness = new AtomicLongArray(total); // µs
        AtomicInteger handled = new AtomicInteger();
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(server.uri(), "lateness", Codec.string())
                    .build();
                 Worker<String> w = prefetch(opts.get("prefetch"), Worker.builder(q, job -> {
                     long now = micros();
                     String[] p = job.value().split(":");
                     lateness.set(Integer.parseInt(p[0]), now - Long.parseLong(p[1]));
                     handled.incrementAndGet();
                 }).concurrency(4)).build()) {
                long start = System.nanoTime();
                for (int i = 0; i < total; i++) {
                    long at = start + i * 1_000_000_000L / rate;
                    long wait = at - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait); // the offers' pace is the workload
                    }
                    long delayMs = ThreadLocalRandom.current().nextLong(20, 201);
                    long dueMicros = micros() + delayMs * 1000;
                    q.offer(i + ":" + dueMicros, Duration.ofMillis(delayMs));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (handled.get() < total && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(10);
                }
                System.out.println(w);
            }
        }
        long[] l = new long[total - warmup]; // the first warmup-seconds of offers warm the JVM and are not counted
        for (int i = warmup; i < total; i++) {
            l[i - warmup] = lateness.get(i);
        }
        Arrays.sort(l);
        long early = Arrays.stream(l).filter(x -> x < 0).count();
        System.out.println(String.format(Locale.ROOT, "| Worker c4, prefetch %s | %d of %d | %.2f | %.2f | %.2f | %.2f"
                        + " | %.2f | %d |", opts.get("prefetch"), handled.get() - warmup, total - warmup, pct(l, 50), pct(l, 90), pct(l, 99), pct(l, 99.9),
                l[l.length - 1] / 1000.0, early));
        System.out.println("(columns: handled, p50, p90, p99, p99.9, max ms, early)");
    }

    private static <V> Worker.Builder<V> prefetch(String option, Worker.Builder<V> b) {
        return option.equals("adaptive") ? b : b.prefetch(Integer.parseInt(option));
    }

    /** @return the wall clock in µs since the epoch (the server's TIME reads the same clock on this machine) */
    private static long micros() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
    }

    private static double pct(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)] / 1000.0;
    }
}
