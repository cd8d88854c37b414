package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Redis memory per pending message of candidate layouts, written straight into one {@code redis-server} by
 * {@code layouts.lua} (see its header for each layout), so that a layout's bytes are known before a queue is built on
 * it: Clockwork's layout today, Redisson's {@code RDelayedQueue} writes, and due-time buckets with a sharded index.
 * Each layout fills {@code --count} messages (100-byte payloads, 27-character ids, due in one hour) in script calls of
 * 20,000 on a flushed server; the growth of {@code used_memory} per message is reported with the ratio to the
 * {@code redisson} layout's. Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.LayoutHarness
 * [--count 1000000] [--layouts current,redisson,buckets,one-index,zset-ids] [--shards 32768] [--cap 128]
 * [--window 1000]}</pre>
 */
public final class LayoutHarness {

    private static final int CHUNK = 20_000;
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("count", "1000000");
        DEFAULTS.put("layouts", "current,redisson,buckets,one-index,zset-ids");
        DEFAULTS.put("shards", "32768");
        DEFAULTS.put("cap", "128");
        DEFAULTS.put("window", "1000");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private LayoutHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int count = opts.getInt("count");
        String script = HarnessScript.read("layouts.lua");
        Map<String, Double> bytes = new LinkedHashMap<>();
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            String sha = (String) server.call("SCRIPT", "LOAD", script);
            System.out.println("# layouts: " + count + " pending messages (redis " + servers.version() + "; shards "
                    + opts.get("shards") + ", bucket cap " + opts.get("cap") + ", window " + opts.get("window")
                    + " ms)");
            for (String layout : opts.get("layouts").split(",")) {
                server.call("FLUSHALL");
                long before = MemoryHarness.usedMemory(server);
                for (int from = 0; from < count; from += CHUNK) {
                    server.call("EVALSHA", sha, "0", layout, Integer.toString(from),
                            Integer.toString(Math.min(CHUNK, count - from)), opts.get("shards"), opts.get("cap"),
                            opts.get("window"));
                }
                double perMessage = (MemoryHarness.usedMemory(server) - before) / (double) count;
                System.out.println(String.format(Locale.ROOT, "  %s: %.1f bytes per message, %s keys", layout,
                        perMessage, server.call("DBSIZE")));
                bytes.put(layout, perMessage);
            }
        }
        Double theirs = bytes.get("redisson");
        System.out.println();
        System.out.println("| layout | bytes per pending message | beyond the payload | vs redisson |");
        System.out.println("|---|---:|---:|---:|");
        bytes.forEach((layout, b) -> System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %s |",
                layout, b, b - MemoryHarness.PAYLOAD_BYTES, theirs == null ? "" : String.format(Locale.ROOT,
                        "%.2fx", b / theirs))));
    }
}
