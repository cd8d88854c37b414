package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.redisson.RedisRedisson;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The Redisson face's value operations against Redisson's {@code RDelayedQueue} at a large backlog, on one
 * {@code redis-server}, in the same run: both queues are filled with {@code --pending} distinct 100-byte values due in
 * one day, then {@code contains(value)} and {@code remove(value)} are timed one call at a time for values at random
 * positions (each removal takes a value that is there). Redisson answers both with a Lua scan of its list that reads
 * each position with {@code LINDEX} (so a call costs about n^2 / 4 list-node steps: minutes at a million, hence few
 * calls); the face looks the value up in its index. Reports the median and the worst call of each, the ratio of
 * medians, the fill rate and {@code used_memory} per pending element. Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.RedissonFaceHarness
 * [--pending 1000000] [--face-ops 2000] [--redisson-ops 3] [--fill-threads 8]}</pre>
 */
public final class RedissonFaceHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("pending", "1000000");
        DEFAULTS.put("face-ops", "2000");
        DEFAULTS.put("redisson-ops", "3");
        DEFAULTS.put("fill-threads", "8");
        DEFAULTS.put("redis-server", "redis-server");
        DEFAULTS.put("seed", "42");
    }

    private RedissonFaceHarness() {
    }

    /** A rival's two operations on one value. */
    private interface ValueOps {
        boolean contains(String v);

        boolean remove(String v);
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int pending = opts.getInt("pending");
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            System.out.println("# Redisson face vs Redisson RDelayedQueue at " + pending + " pending (redis "
                    + servers.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores, JDK "
                    + System.getProperty("java.version") + ")");
            List<String> rows = new ArrayList<>();

            long before = usedMemory(server);
            RedisRedisson face = RedisRedisson.create(server.uri());
            var faceDelayed = face.getDelayedQueue(face.getBlockingQueue("face", Codec.string()));
            double faceFill = fill(pending, opts.getInt("fill-threads"),
                    v -> faceDelayed.offer(v, 1, TimeUnit.DAYS), null);
            long faceBytes = (usedMemory(server) - before) / pending;
            System.out.println("face: filled at " + Math.round(faceFill) + " offers/s, " + faceBytes + " B each");
            Stats faceContains = time(pending, opts.getInt("face-ops"), opts.getInt("seed"), faceDelayed::contains);
            Stats faceRemove = time(pending, opts.getInt("face-ops"), opts.getInt("seed") + 1, faceDelayed::remove);
            rows.add(row("Clockwork face", faceFill, faceBytes, faceContains, faceRemove));
            server.call("FLUSHALL");
            face.shutdown();

            before = usedMemory(server);
            Config config = new Config();
            config.setCodec(StringCodec.INSTANCE);
            config.useSingleServer().setAddress(server.uri()).setTimeout(600_000);
            RedissonClient redisson = Redisson.create(config);
            var theirs = redisson.<String>getDelayedQueue(redisson.getBlockingQueue("redisson"));
            double theirFill = fill(pending, opts.getInt("fill-threads"), null,
                    v -> theirs.offerAsync(v, 1, TimeUnit.DAYS).toCompletableFuture());
            long theirBytes = (usedMemory(server) - before) / pending;
            System.out.println("redisson: filled at " + Math.round(theirFill) + " offers/s, " + theirBytes
                    + " B each; timing " + opts.getInt("redisson-ops") + " calls of each operation (a scan each)");
            Stats theirContains = time(pending, opts.getInt("redisson-ops"), opts.getInt("seed"), theirs::contains);
            Stats theirRemove = time(pending, opts.getInt("redisson-ops"), opts.getInt("seed") + 1, theirs::remove);
            rows.add(row("Redisson RDelayedQueue", theirFill, theirBytes, theirContains, theirRemove));
            theirs.destroy();
            redisson.shutdown();

            System.out.println();
            System.out.println("Fill: the face with " + opts.getInt("fill-threads") + " threads, one offer in "
                    + "flight each; Redisson with offerAsync, 100 in flight per thread.");
            System.out.println();
            System.out.println("| queue @ " + pending + " pending | fill (offers/s) | used_memory / element "
                    + "| contains(value) median (max) | remove(value) median (max) |");
            System.out.println("|---|---:|---:|---:|---:|");
            rows.forEach(System.out::println);
            System.out.println();
            System.out.println(String.format(Locale.ROOT, "Ratio of medians, Redisson / face: contains %.0fx, "
                    + "remove %.0fx.", theirContains.median / faceContains.median,
                    theirRemove.median / faceRemove.median));
        }
    }

    /** The value at position i: distinct, 100 bytes. */
    static String value(int i) {
        String head = String.format(Locale.ROOT, "value-%010d-", i);
        char[] pad = new char[100 - head.length()];
        Arrays.fill(pad, 'x');
        return head + new String(pad);
    }

    /** Offers every value once, from several threads (sync offers) or pipelined (async offers); returns offers/s. */
    private static double fill(int n, int threads, java.util.function.Consumer<String> sync,
                               java.util.function.Function<String, CompletableFuture<Void>> async) throws Exception {
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> parts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int from = (int) ((long) n * t / threads);
            int to = (int) ((long) n * (t + 1) / threads);
            parts.add(pool.submit(() -> {
                List<CompletableFuture<Void>> inFlight = new ArrayList<>();
                for (int i = from; i < to; i++) {
                    if (sync != null) {
                        sync.accept(value(i));
                    } else {
                        inFlight.add(async.apply(value(i)));
                        if (inFlight.size() == 100) {
                            CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).join();
                            inFlight.clear();
                        }
                    }
                }
                CompletableFuture.allOf(inFlight.toArray(new CompletableFuture[0])).join();
                return null;
            }));
        }
        for (Future<?> f : parts) {
            f.get();
        }
        pool.shutdown();
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    /** Times {@code ops} calls on values at random positions (without repeats); each call must answer true. */
    private static Stats time(int n, int ops, int seed, java.util.function.Predicate<String> op) {
        Random random = new Random(seed);
        long[] nanos = new long[ops];
        java.util.Set<Integer> used = new java.util.HashSet<>();
        for (int k = 0; k < ops; k++) {
            int i;
            do {
                i = random.nextInt(n);
            } while (!used.add(i));
            String v = value(i);
            long t0 = System.nanoTime();
            boolean ok = op.test(v);
            nanos[k] = System.nanoTime() - t0;
            if (!ok) {
                throw new IllegalStateException("value " + i + " was not found");
            }
        }
        Arrays.sort(nanos);
        return new Stats(nanos[ops / 2] / 1e6, nanos[ops - 1] / 1e6);
    }

    private record Stats(double median, double max) {
    }

    private static String row(String name, double fill, long bytes, Stats contains, Stats remove) {
        return String.format(Locale.ROOT, "| %s | %,.0f | %,d B | %s ms (%s) | %s ms (%s) |", name, fill, bytes,
                ms(contains.median), ms(contains.max), ms(remove.median), ms(remove.max));
    }

    private static String ms(double v) {
        return v < 1 ? String.format(Locale.ROOT, "%.3f", v) : String.format(Locale.ROOT, "%,.1f", v);
    }

    private static long usedMemory(RedisServers.Server s) {
        for (String l : ((String) s.call("INFO", "memory")).split("\r?\n")) {
            if (l.startsWith("used_memory:")) {
                return Long.parseLong(l.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("no used_memory in INFO");
    }
}
