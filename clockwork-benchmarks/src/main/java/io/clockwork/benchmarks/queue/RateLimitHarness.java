package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How exactly {@code rateLimit(permits, interval)} holds on Redis for consumers in separate processes: one
 * {@code redis-server} it starts, a due backlog larger than the run can take, and {@code --consumers} consumer JVMs
 * (each a {@link Consumer}, one queue client and {@code --threads} polling threads) taking batches under a limit of
 * {@code --permits} per second for {@code --seconds}. The consumers do not ack, so every delivery stays in the
 * queue's in-flight set scored by the server's clock at its take plus the visibility timeout: the harness reads every
 * delivery's server time from there afterwards, counts the deliveries in the run's first {@code --seconds} of server
 * time (target: permits per second times seconds) and the most in any one-second window, sliding by millisecond
 * (never above the permits). It also prints the server's cost, {@code INFO commandstats} over the run: the script
 * calls and their time per delivery, and the commands on the rate limit's log ({@code HGET} of the limit,
 * {@code ZREVRANGEBYSCORE}, {@code ZREMRANGEBYSCORE}) per delivery. Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.RateLimitHarness
 * [--seconds 30] [--permits 1000] [--consumers 3] [--threads 2] [--partitions 1]}</pre>
 */
public final class RateLimitHarness {

    private static final String NAME = "rate-limit";
    private static final Duration VISIBILITY = Duration.ofHours(1);
    private static final int BATCH = 100;
    private static final int OFFER_BATCH = 1000;
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("seconds", "30");
        DEFAULTS.put("permits", "1000");
        DEFAULTS.put("consumers", "3");
        DEFAULTS.put("threads", "2");
        DEFAULTS.put("partitions", "1");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private RateLimitHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int seconds = opts.getInt("seconds");
        int permits = opts.getInt("permits");
        int consumers = opts.getInt("consumers");
        int partitions = opts.getInt("partitions");
        if (seconds < 1 || permits < 1 || consumers < 1 || opts.getInt("threads") < 1 || partitions < 1) {
            throw new IllegalArgumentException("seconds, permits, consumers, threads and partitions must be >= 1");
        }
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            int backlog = (int) Math.min(Integer.MAX_VALUE, (long) permits * (seconds + 5) * 11 / 10);
            try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(server.uri(), NAME, Codec.string())
                    .partitions(partitions).visibilityTimeout(VISIBILITY).rateLimit(permits, Duration.ofSeconds(1))
                    .build()) {
                List<String> values = new ArrayList<>(OFFER_BATCH);
                for (int i = 0; i < OFFER_BATCH; i++) {
                    values.add("job-" + i);
                }
                for (int offered = 0; offered < backlog; offered += OFFER_BATCH) {
                    q.offerAll(values, Duration.ZERO);
                }
                System.out.println(String.format(Locale.ROOT, "backlog %,d due; %d consumer JVMs x %s threads, "
                        + "%d partition(s), limit %,d per second, %d s", q.stats().ready(), consumers,
                        opts.get("threads"), partitions, permits, seconds));
                server.call("CONFIG", "RESETSTAT");
                ExecutorService forks = Executors.newFixedThreadPool(consumers);
                List<Future<List<String[]>>> children = new ArrayList<>();
                for (int c = 0; c < consumers; c++) {
                    children.add(forks.submit(() -> Harness.fork(Consumer.class, List.of(server.uri(),
                            Integer.toString(partitions), Integer.toString(permits), opts.get("threads"),
                            Integer.toString(seconds)))));
                }
                long polled = 0;
                for (Future<List<String[]>> child : children) {
                    for (String[] row : child.get()) {
                        polled += Long.parseLong(row[0]);
                    }
                }
                forks.shutdown();
                Map<String, long[]> stats = ServerTime.commandStats(server);
                report(deliveryTimes(server, partitions), polled, seconds, permits, stats);
                System.out.println("rate-limited waits counted: " + q.counters().orElseThrow().rateLimited());
            }
        }
    }

    /** @return every delivery's server time in ms, sorted: in-flight scores less the visibility timeout */
    private static List<Long> deliveryTimes(RedisServers.Server server, int partitions) {
        List<Long> times = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            List<?> r = (List<?>) server.call("ZRANGE", "cw:{" + NAME + ":" + p + "}:inflight", "0", "-1",
                    "WITHSCORES");
            for (int i = 1; i < r.size(); i += 2) {
                String score = String.valueOf(r.get(i));
                if (!score.equals("inf")) {
                    times.add(Long.parseLong(score) - VISIBILITY.toMillis());
                }
            }
        }
        times.sort(null);
        return times;
    }

    private static void report(List<Long> times, long polled, int seconds, int permits, Map<String, long[]> stats) {
        if (times.isEmpty()) {
            throw new IllegalStateException("no delivery");
        }
        long start = times.get(0);
        long inRun = times.stream().filter(t -> t < start + seconds * 1000L).count();
        long target = (long) permits * seconds;
        int most = 0;
        int from = 0;
        for (int to = 0; to < times.size(); to++) {
            while (times.get(from) <= times.get(to) - 1000) {
                from++;
            }
            most = Math.max(most, to - from + 1);
        }
        long[] scripts = ServerTime.scripts(stats);
        long deliveries = times.size();
        System.out.println();
        System.out.println("| measure | value |");
        System.out.println("|---|---:|");
        System.out.println(String.format(Locale.ROOT, "| deliveries in the first %d s of server time | %,d (%+.2f%% "
                + "of %,d) |", seconds, inRun, 100.0 * (inRun - target) / target, target));
        System.out.println(String.format(Locale.ROOT, "| most in any 1 s window (sliding by 1 ms) | %,d (limit %,d) |",
                most, permits));
        System.out.println(String.format(Locale.ROOT, "| deliveries in all, polled by the consumers | %,d, %,d |",
                deliveries, polled));
        System.out.println(String.format(Locale.ROOT, "| script calls per delivery | %.3f |",
                scripts[0] / (double) deliveries));
        System.out.println(String.format(Locale.ROOT, "| script µs per delivery | %.2f |",
                scripts[1] / (double) deliveries));
        for (String command : List.of("hget", "zrevrangebyscore", "zremrangebyscore")) {
            long[] s = stats.getOrDefault(command, new long[2]);
            System.out.println(String.format(Locale.ROOT, "| %s (the limiter's) per delivery: calls, µs | %.3f, "
                    + "%.3f |", command.toUpperCase(Locale.ROOT), s[0] / (double) deliveries,
                    s[1] / (double) deliveries));
        }
    }

    /**
     * A consumer process: one queue client, its threads polling batches without acking until the run ends; prints
     * how many deliveries it took as a {@link Harness#ROW}. Not thread-safe; a {@code main}.
     */
    public static final class Consumer {

        private Consumer() {
        }

        /**
         * @param args Redis URI, partitions, permits per second, threads, seconds
         * @throws Exception on any failure
         */
        public static void main(String[] args) throws Exception {
            String uri = args[0];
            int partitions = Integer.parseInt(args[1]);
            int permits = Integer.parseInt(args[2]);
            int threads = Integer.parseInt(args[3]);
            Duration run = Duration.ofSeconds(Long.parseLong(args[4]));
            try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, NAME, Codec.string())
                    .partitions(partitions).visibilityTimeout(VISIBILITY).rateLimit(permits, Duration.ofSeconds(1))
                    .build()) {
                long endNanos = System.nanoTime() + run.toNanos(); // from when this consumer can poll
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<Long>> polls = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    polls.add(pool.submit(() -> {
                        long taken = 0;
                        while (System.nanoTime() - endNanos < 0) {
                            List<Delivery<String>> got = q.poll(BATCH, Duration.ofMillis(200));
                            taken += got.size();
                        }
                        return taken;
                    }));
                }
                long taken = 0;
                for (Future<Long> f : polls) {
                    taken += f.get();
                }
                pool.shutdown();
                System.out.println(Harness.ROW + taken);
            }
        }
    }
}
