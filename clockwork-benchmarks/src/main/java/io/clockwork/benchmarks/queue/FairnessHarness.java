package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.redis.RedisDelayedQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * How fairly groups share a backlog: one group holds {@code --big} due messages, then {@code --groups} groups of
 * {@code --each} are offered, all due at once; {@code --consumers} threads take and ack one message at a time until
 * every small group's messages are delivered. Reports how many of the big group's messages went before the last small
 * one (the target: under 2,000) and the small messages' waits (from the end of the offers to their delivery), median,
 * p99 and max, with groups (round robin) and, for contrast, the same messages without groups (due order). The
 * in-process queue ({@code InMemoryDelayedQueue}) by default; {@code --backend redis} runs a {@code RedisDelayedQueue}
 * of {@code --partitions} on a {@code redis-server} the harness starts, one client shared by the consumer threads.
 * Waits are read on this JVM's clock. Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.FairnessHarness
 * [--big 100000] [--groups 100] [--each 10] [--consumers 4] [--rounds 3] [--backend inprocess|redis]
 * [--partitions 1]}</pre>
 */
public final class FairnessHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("big", "100000");
        DEFAULTS.put("groups", "100");
        DEFAULTS.put("each", "10");
        DEFAULTS.put("consumers", "4");
        DEFAULTS.put("rounds", "3");
        DEFAULTS.put("backend", "inprocess");
        DEFAULTS.put("partitions", "1");
        DEFAULTS.put("redis-server", "redis-server");
    }

    /** One run's figures: big-group deliveries before the last small one, and the small ones' waits in µs. */
    private record Result(int bigBefore, long[] smallWaitsMicros) {
        long percentile(double p) {
            return smallWaitsMicros[Math.min(smallWaitsMicros.length - 1, (int) Math.ceil(p * smallWaitsMicros.length)
                    - 1)];
        }
    }

    private FairnessHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int big = opts.getInt("big");
        int groups = opts.getInt("groups");
        int each = opts.getInt("each");
        int consumers = opts.getInt("consumers");
        String backend = opts.get("backend");
        if (!backend.equals("inprocess") && !backend.equals("redis")) {
            throw new IllegalArgumentException("backend must be inprocess or redis, was " + backend);
        }
        try (RedisServers servers = backend.equals("redis") ? new RedisServers(opts.get("redis-server")) : null) {
            Supplier<DelayedQueue<String>> queues = servers == null
                    ? () -> InMemoryDelayedQueue.<String>builder().codec(Codec.string()).build()
                    : redisQueues(servers.standalone().uri(), opts.getInt("partitions"));
            System.out.println("# fairness: 1 group of " + big + " due messages, then " + groups + " groups of "
                    + each + ", " + consumers + " consumers taking and acking one at a time (" + (servers == null
                    ? "in process" : "Redis, " + opts.get("partitions") + " partition(s)") + ", JDK "
                    + Runtime.version().feature() + ", " + Runtime.getRuntime().availableProcessors() + " cores)");
            table(opts.getInt("rounds"), queues, big, groups, each, consumers);
        }
    }

    /** @return fresh Redis queues, each with a new name, on one server */
    private static Supplier<DelayedQueue<String>> redisQueues(String uri, int partitions) {
        AtomicInteger runs = new AtomicInteger();
        return () -> RedisDelayedQueue.builder(uri, "fairness-" + runs.incrementAndGet(), Codec.string())
                .partitions(partitions).build();
    }

    private static void table(int rounds, Supplier<DelayedQueue<String>> queues, int big, int groups, int each,
                              int consumers) throws Exception {
        System.out.println();
        System.out.println("| order | round | big-group deliveries before the last small one | small waits: median ms"
                + " | p99 ms | max ms |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (int r = 0; r < rounds; r++) {
            for (boolean grouped : new boolean[] {true, false}) {
                Result res = run(queues.get(), big, groups, each, consumers, grouped);
                System.out.println(String.format(Locale.ROOT, "| %s | %d | %,d | %.1f | %.1f | %.1f |",
                        grouped ? "groups, round robin" : "no groups, due order", r + 1, res.bigBefore(),
                        res.percentile(0.5) / 1000.0, res.percentile(0.99) / 1000.0,
                        res.smallWaitsMicros()[res.smallWaitsMicros().length - 1] / 1000.0));
            }
        }
    }

    private static Result run(DelayedQueue<String> queue, int big, int groups, int each, int consumers,
                              boolean grouped) throws Exception {
        try (DelayedQueue<String> q = queue) {
            List<Message<String>> batch = new ArrayList<>();
            for (int i = 0; i < big; i++) {
                batch.add(message("x".repeat(100), "big", grouped));
                if (batch.size() == DelayedQueue.MAX_BATCH) {
                    q.offerAll(batch);
                    batch.clear();
                }
            }
            for (int g = 0; g < groups; g++) {
                for (int i = 0; i < each; i++) {
                    batch.add(message("s" + (g * each + i), "small-" + g, grouped));
                    if (batch.size() == DelayedQueue.MAX_BATCH) {
                        q.offerAll(batch);
                        batch.clear();
                    }
                }
            }
            q.offerAll(batch);
            int smallTotal = groups * each;
            AtomicLongArray deliveredAt = new AtomicLongArray(smallTotal);
            AtomicInteger smallLeft = new AtomicInteger(smallTotal);
            AtomicInteger bigDelivered = new AtomicInteger();
            AtomicInteger bigBefore = new AtomicInteger(-1);
            long start = System.nanoTime();
            CountDownLatch done = new CountDownLatch(consumers);
            for (int c = 0; c < consumers; c++) {
                Thread t = new Thread(() -> {
                    try {
                        while (smallLeft.get() > 0) {
                            Delivery<String> d = q.poll(Duration.ofMillis(100));
                            if (d == null) {
                                continue;
                            }
                            if (d.value().startsWith("s")) {
                                deliveredAt.set(Integer.parseInt(d.value().substring(1)), System.nanoTime());
                                if (smallLeft.decrementAndGet() == 0) {
                                    bigBefore.set(bigDelivered.get());
                                }
                            } else {
                                bigDelivered.incrementAndGet();
                            }
                            d.ack();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        done.countDown();
                    }
                }, "fairness-consumer-" + c);
                t.start();
            }
            done.await();
            long[] waits = new long[smallTotal];
            for (int i = 0; i < smallTotal; i++) {
                waits[i] = (deliveredAt.get(i) - start) / 1000;
            }
            Arrays.sort(waits);
            return new Result(bigBefore.get(), waits);
        }
    }

    /** A message whose value tells the consumers which it is (a big-group message's is 100 bytes of 'x'). */
    private static Message<String> message(String value, String group, boolean grouped) {
        Message<String> m = Message.of(value);
        return grouped ? m.group(group) : m;
    }
}
