package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.worker.Job;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import io.clockwork.redis.RedisDelayedQueue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Consuming a due backlog, as users run it: Clockwork's {@link Worker} (concurrency 4; its default, adaptive
 * prefetch, an explicit prefetch 0 and an explicit {@code --prefetch}; a handler that does nothing; acks included)
 * against four threads calling Redisson's {@code RBlockingQueue.poll()} one element at a time (no ack exists), each
 * on a backlog of {@code --backlog} due 100-byte values on one {@code redis-server}, in the same run, the rivals
 * alternating every round. Redisson's destination list is filled directly (as if its transfer task had already moved
 * everything), so it pays nothing for the transfer. A last row,
 * {@code lettuce-ping}, is the same number of bare {@code PING} round trips from as many threads on one Lettuce
 * connection: the ceiling of any consumer that waits for one round trip per message (no prefetch) on this client and
 * machine. With Node.js and npm present, BullMQ's {@code Worker} (concurrency {@code --concurrency} and 50, a no-op
 * processor, {@code removeOnComplete}) drains the same backlog on the same server ({@link BullMqRival}). Reports the
 * median of the rounds' drain rates, the ratios to Redisson's and to BullMQ's at the same concurrency, and the
 * {@code redis-server} process's CPU per message over each drain (from /proc). Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.WorkerHarness
 * [--backlog 100000] [--rounds 3] [--concurrency 4] [--prefetch 32]}</pre>
 */
public final class WorkerHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("backlog", "100000");
        DEFAULTS.put("rounds", "3");
        DEFAULTS.put("concurrency", "4");
        DEFAULTS.put("prefetch", "32");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private WorkerHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int backlog = opts.getInt("backlog");
        int concurrency = opts.getInt("concurrency");
        int prefetch = opts.getInt("prefetch");
        String value = RedissonFaceHarness.value(0);
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, List<Double>> cpu = new LinkedHashMap<>(); // redis-server CPU µs per message, per round
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            System.out.println("# worker on a due backlog of " + backlog + " (redis " + servers.version() + ", "
                    + Runtime.getRuntime().availableProcessors() + " cores, JDK " + System.getProperty("java.version")
                    + ")");
            List<String> rivals = new ArrayList<>(List.of("clockwork-worker-default", "clockwork-worker-prefetch-0",
                    "clockwork-worker-prefetch-" + prefetch, "redisson-poll", "lettuce-ping"));
            String noBullMq = BullMqRival.unavailable();
            if (noBullMq == null) {
                rivals.add("bullmq-worker-c" + concurrency);
                rivals.add("bullmq-worker-c50");
            } else {
                System.out.println("BullMQ rows skipped: " + noBullMq);
            }
            for (int r = 0; r < opts.getInt("rounds"); r++) {
                List<String> order = new ArrayList<>(rivals);
                Collections.rotate(order, r);
                for (String rival : order) {
                    server.call("FLUSHALL");
                    double rate;
                    if (rival.startsWith("bullmq")) {
                        BullMqRival.Run run = BullMqRival.drain(server, backlog,
                                Integer.parseInt(rival.substring(rival.lastIndexOf('c') + 1)));
                        rate = run.perSecond();
                        cpu.computeIfAbsent(rival, k -> new ArrayList<>()).add(run.redisCpuMicrosPerJob());
                    } else if (rival.startsWith("redisson")) {
                        rate = redisson(server.uri(), backlog, concurrency, value);
                    } else if (rival.startsWith("lettuce")) {
                        rate = pings(server.uri(), backlog, concurrency);
                    } else {
                        int p = rival.endsWith("-default") ? -1 : rival.endsWith("-0") ? 0 : prefetch;
                        rate = clockwork(server, backlog, concurrency, p, value, cpu.computeIfAbsent(rival,
                                k -> new ArrayList<>()));
                    }
                    rates.computeIfAbsent(rival, k -> new ArrayList<>()).add(rate);
                    System.out.println(String.format(Locale.ROOT, "  round %d %s: %,.0f messages/s", r, rival, rate));
                }
            }
        }
        double theirs = median(rates.get("redisson-poll"));
        List<Double> bull = rates.get("bullmq-worker-c" + concurrency);
        System.out.println();
        System.out.println("| consumer (" + concurrency + " threads or handlers) | messages/s (median) | rounds "
                + "| vs Redisson | vs BullMQ c" + concurrency + " | redis-server CPU µs per message (median) |");
        System.out.println("|---|---:|---|---:|---:|---:|");
        rates.forEach((rival, l) -> System.out.println(String.format(Locale.ROOT, "| %s | %,.0f | %s | %s | %s | %s |",
                rival, median(l), fmt(l), rival.startsWith("redisson-") ? "" : String.format(Locale.ROOT, "%.2fx",
                        median(l) / theirs), bull == null ? "" : String.format(Locale.ROOT, "%.2fx",
                        median(l) / median(bull)), cpu.containsKey(rival) ? String.format(Locale.ROOT, "%.1f",
                        median(cpu.get(rival))) : "")));
    }

    /**
     * Fills a queue with due messages, then times a worker draining it (counted on the acks); {@code prefetch} -1
     * leaves the prefetch unset (adaptive).
     */
    private static double clockwork(RedisServers.Server server, int backlog, int concurrency, int prefetch,
                                    String value, List<Double> cpuPerMessage) throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(server.uri(), "worker-bench", Codec.string())
                .build()) {
            for (int done = 0; done < backlog; done += 1000) {
                q.offerAll(Collections.nCopies(Math.min(1000, backlog - done), value), Duration.ZERO);
            }
            CountDownLatch all = new CountDownLatch(backlog);
            AtomicInteger acked = new AtomicInteger();
            WorkerListener<String> counter = new WorkerListener<>() {
                @Override
                public void acked(Job<String> job) {
                    acked.incrementAndGet();
                    all.countDown();
                }
            };
            long t0 = System.nanoTime();
            long cpu0 = server.cpuMillis();
            Worker.Builder<String> b = Worker.builder(q, job -> { }).concurrency(concurrency).listener(counter);
            Worker<String> w = (prefetch < 0 ? b : b.prefetch(prefetch)).build();
            try {
                if (!all.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("worker acked only " + acked.get() + " of " + backlog);
                }
                double rate = backlog / ((System.nanoTime() - t0) / 1e9);
                cpuPerMessage.add((server.cpuMillis() - cpu0) * 1000.0 / backlog);
                return rate;
            } finally {
                w.shutdown(Duration.ofSeconds(10));
            }
        }
    }

    /**
     * The floor of one round trip per message on Clockwork's client library: threads sending {@code PING} on one
     * shared Lettuce connection, as many as the backlog, doing nothing else. A consumer without prefetch waits for at
     * least one round trip per message per thread, so no such consumer on this client and machine is faster.
     */
    private static double pings(String uri, int count, int threads) throws Exception {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            AtomicInteger sent = new AtomicInteger();
            List<Thread> pingers = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    RedisCommands<String, String> sync = connection.sync();
                    while (sent.incrementAndGet() <= count) {
                        sync.ping();
                    }
                }, "lettuce-pinger-" + i);
                t.start();
                pingers.add(t);
            }
            for (Thread t : pingers) {
                t.join();
            }
            return count / ((System.nanoTime() - t0) / 1e9);
        } finally {
            client.shutdown();
        }
    }

    /** Fills Redisson's destination list directly, then times threads polling it one element at a time. */
    private static double redisson(String uri, int backlog, int threads, String value) throws Exception {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress(uri);
        RedissonClient client = Redisson.create(config);
        try {
            RBlockingQueue<String> destination = client.getBlockingQueue("worker-bench");
            for (int done = 0; done < backlog; done += 1000) {
                destination.addAll(Collections.nCopies(Math.min(1000, backlog - done), value));
            }
            AtomicInteger taken = new AtomicInteger();
            List<Thread> pollers = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    while (taken.get() < backlog && destination.poll() != null) {
                        taken.incrementAndGet();
                    }
                }, "redisson-poller-" + i);
                t.start();
                pollers.add(t);
            }
            for (Thread t : pollers) {
                t.join();
            }
            if (taken.get() != backlog) {
                throw new IllegalStateException("Redisson pollers took " + taken.get() + " of " + backlog);
            }
            return backlog / ((System.nanoTime() - t0) / 1e9);
        } finally {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private static double median(List<Double> l) {
        List<Double> s = new ArrayList<>(l);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static String fmt(List<Double> l) {
        List<String> out = new ArrayList<>();
        for (double d : l) {
            out.add(String.format(Locale.ROOT, "%,.0f", d));
        }
        return String.join(", ", out);
    }
}
