package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Redis memory per pending message, as a user would measure it: growth of {@code used_memory} while a queue fills
 * with {@code --count} distinct 100-byte values due in one hour, on one {@code redis-server} flushed between rivals.
 * Clockwork's {@code RedisDelayedQueue} at each partition count of {@code --partitions} (filled through
 * {@code offerAll}, 1,000 per call) and Redisson's {@code RDelayedQueue} (filled with {@code offerAsync}, 1,000 in
 * flight) run in the same run. Reports bytes per message, bytes beyond the 100-byte payload, and the ratio to
 * Redisson's. Not thread-safe; a {@code main}. Memory is deterministic enough that one round suffices; the machine's
 * load does not move it.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.MemoryHarness
 * [--count 1000000] [--partitions 1,4,12]}</pre>
 */
public final class MemoryHarness {

    /** The payload of every message: distinct values of exactly this many bytes. */
    static final int PAYLOAD_BYTES = 100;
    private static final long HOUR_MS = 3_600_000L;
    private static final int FILL_BATCH = 1000;
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("count", "1000000");
        DEFAULTS.put("partitions", "1,4,12");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private MemoryHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int count = opts.getInt("count");
        Map<String, Double> bytes = new LinkedHashMap<>();
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            System.out.println("# memory per pending message: " + count + " x " + PAYLOAD_BYTES
                    + "-byte values due in 1 h (redis " + servers.version() + ")");
            for (String p : opts.get("partitions").split(",")) {
                int partitions = Integer.parseInt(p.trim());
                bytes.put("clockwork, " + partitions + (partitions == 1 ? " partition" : " partitions"),
                        measure(server, count, () -> QueueRival.clockwork(server.uri(), "memory", partitions)));
            }
            bytes.put("redisson", measure(server, count, () -> QueueRival.redisson(server.uri(), "memory")));
        }
        double theirs = bytes.get("redisson");
        System.out.println();
        System.out.println("| queue | bytes per pending message | beyond the payload | ours/theirs |");
        System.out.println("|---|---:|---:|---:|");
        bytes.forEach((rival, b) -> System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %s |", rival,
                b, b - PAYLOAD_BYTES, rival.equals("redisson") ? "" : String.format(Locale.ROOT, "%.2fx",
                        b / theirs))));
    }

    /** Opens a rival, fills it, and returns the growth of used_memory per message; the server is flushed first. */
    private static double measure(RedisServers.Server server, int count, java.util.function.Supplier<QueueRival> open)
            throws Exception {
        server.call("FLUSHALL");
        try (QueueRival q = open.get()) {
            long before = usedMemory(server);
            List<String> batch = new ArrayList<>(FILL_BATCH);
            for (int i = 0; i < count; i++) {
                batch.add(RedissonFaceHarness.value(i));
                if (batch.size() == FILL_BATCH || i == count - 1) {
                    q.offerBatch(batch, HOUR_MS);
                    batch.clear();
                }
            }
            long after = usedMemory(server);
            double perMessage = (after - before) / (double) count;
            System.out.println(String.format(Locale.ROOT, "  %s: used_memory %,d -> %,d: %.1f bytes per message",
                    q.name, before, after, perMessage));
            return perMessage;
        }
    }

    static long usedMemory(RedisServers.Server server) {
        for (String l : ((String) server.call("INFO", "memory")).split("\r?\n")) {
            if (l.startsWith("used_memory:")) {
                return Long.parseLong(l.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }
}
