package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Where a {@link RedisDelayedQueue} cancel's server time goes as the backlog grows: script time per cancel of compact
 * messages at a small and a huge backlog, four ways in each round, on quarters of the messages it offers:
 * <ul>
 *   <li><b>queue, placed id</b>: the queue's own {@code cancelAsync} of messages offered with generated ids, which
 *       name their chunk and position (placed ids, see {@code include/cold.lua} in clockwork-redis): its script
 *       library and the one chunk entry;</li>
 *   <li><b>queue, chosen id</b>: the same of messages offered under ids of the caller's choosing: the library, the
 *       index shard and the chunk;</li>
 *   <li><b>index + chunk</b>: {@code cancel_cost.lua} making the chosen-id cancel's commands (the store's state, the
 *       index shard's entry, the chunk's entry, the tombstone, the index delete, the counts) without the library;</li>
 *   <li><b>chunk only</b>: the same script told each chosen-id message's chunk and position (read from the index
 *       beforehand, untimed, and its index entries deleted afterwards, untimed): a cancel that reads one random
 *       key.</li>
 * </ul>
 * The difference between the second and third at each size is what the queue's Lua library costs (its closures and
 * their garbage), between the last two what the index read costs; the first is the cancel a user of generated ids
 * gets. The order of the four rotates from round to round. Messages are offered as {@link RedisRates} offers them
 * ({@code offerAll} of 100 sharing a due time 1 to 2 hours out, 100-byte values), the background with generated ids;
 * each phase runs {@value #THREADS} threads with 100 calls in flight each; script time is {@code INFO commandstats}'
 * script usec ({@code fcall} and {@code evalsha}) over the phase. Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.CancelCostHarness
 * [--pending 10000000] [--small 1000] [--ops 600000] [--rounds 2]}</pre>
 */
public final class CancelCostHarness {

    private static final int THREADS = 4;
    private static final int IN_FLIGHT = 100;
    private static final int BATCH = 100;
    private static final int HELPER_BATCH = 1000;
    private static final long HOUR_MS = 3_600_000L;
    private static final String PLACED = "queue, placed id";
    private static final String QUEUE = "queue, chosen id";
    private static final String TWO = "index + chunk";
    private static final String ONE = "chunk only";
    /** The phases, in the order of the rows. */
    static final List<String> PHASES = List.of(PLACED, QUEUE, TWO, ONE);
    private static final int MIN_OPS = 4 * THREADS * IN_FLIGHT;
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("pending", "10000000");
        DEFAULTS.put("small", "1000");
        DEFAULTS.put("ops", "600000");
        DEFAULTS.put("rounds", "2");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private final RedisDelayedQueue<String> queue;
    private final RedisServers.Server server;
    private final List<StatefulRedisConnection<String, String>> connections;
    private final String sha;
    private final String prefix;
    private int nextValue;
    private long background;

    private CancelCostHarness(RedisDelayedQueue<String> queue, RedisServers.Server server,
            List<StatefulRedisConnection<String, String>> connections, String name) {
        this.queue = queue;
        this.server = server;
        this.connections = connections;
        this.sha = connections.get(0).sync().scriptLoad(HarnessScript.read("cancel_cost.lua"));
        this.prefix = "cw:{" + name + ":0}:";
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int small = opts.getInt("small");
        int pending = opts.getInt("pending");
        Map<Integer, Map<String, double[]>> bySize = measure(opts.get("redis-server"), small, pending,
                opts.getInt("ops"), opts.getInt("rounds"));
        print(bySize, small, pending);
    }

    /**
     * Runs the measurement on a {@code redis-server} it starts.
     *
     * @param redisServer the {@code redis-server} binary
     * @param small       the small backlog, at least 1
     * @param pending     the huge backlog, more than {@code small}
     * @param ops         messages offered per round, a quarter cancelled each way; at least {@value #MIN_OPS}
     * @param rounds      rounds at each size, at least 1
     * @return per backlog, per phase ({@link #PHASES}), the script µs per cancel of each round
     * @throws Exception if the server, a cancel or a check fails
     */
    static Map<Integer, Map<String, double[]>> measure(String redisServer, int small, int pending, int ops,
            int rounds) throws Exception {
        if (small < 1 || pending <= small || ops < MIN_OPS || rounds < 1) {
            throw new IllegalArgumentException("need 1 <= small < pending, ops >= " + MIN_OPS + ", rounds >= 1; got "
                    + small + ", " + pending + ", " + ops + ", " + rounds);
        }
        try (RedisServers servers = new RedisServers(redisServer)) {
            RedisServers.Server server = servers.standalone();
            RedisClient client = RedisClient.create(server.uri());
            List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
            try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(server.uri(), "cost", Codec.string())
                    .build()) {
                for (int i = 0; i < THREADS; i++) {
                    connections.add(client.connect());
                }
                CancelCostHarness h = new CancelCostHarness(q, server, connections, "cost");
                System.out.println("# cancel cost: " + small + " and " + pending + " pending, " + ops / 4
                        + " cancels per phase, " + rounds + " rounds (redis " + servers.version() + ")");
                Map<Integer, Map<String, double[]>> bySize = new LinkedHashMap<>();
                h.fill(small);
                h.round(MIN_OPS, 0); // warm-up
                bySize.put(small, h.rounds(ops, rounds));
                h.fill(pending - small);
                bySize.put(pending, h.rounds(ops, rounds));
                return bySize;
            } finally {
                client.shutdown();
            }
        }
    }

    private Map<String, double[]> rounds(int ops, int rounds) throws Exception {
        Map<String, double[]> usec = new LinkedHashMap<>();
        for (String phase : PHASES) {
            usec.put(phase, new double[rounds]);
        }
        for (int r = 0; r < rounds; r++) {
            Map<String, Double> got = round(ops, r);
            for (String phase : PHASES) {
                usec.get(phase)[r] = got.get(phase);
            }
        }
        return usec;
    }

    /** One round: offers ops messages, cancels a quarter each way; returns script µs per cancel by phase. */
    private Map<String, Double> round(int ops, int rotation) throws Exception {
        Map<String, List<String>> quarters = new LinkedHashMap<>();
        quarters.put(PLACED, offer(ops / 4, false));
        List<String> chosen = offer(ops - ops / 4, true);
        for (String phase : List.of(QUEUE, TWO, ONE)) {
            quarters.put(phase, new ArrayList<>());
        }
        for (int i = 0; i < chosen.size(); i++) {
            quarters.get(PHASES.get(1 + i % 3)).add(chosen.get(i));
        }
        List<String> places = helper("locate", quarters.get(ONE));
        Map<String, Double> usec = new LinkedHashMap<>();
        for (int p = 0; p < PHASES.size(); p++) {
            String phase = PHASES.get((p + rotation) % PHASES.size());
            List<String> mine = quarters.get(phase);
            Map<String, long[]> before = ServerTime.commandStats(server);
            int done = phase.equals(QUEUE) || phase.equals(PLACED) ? cancelByQueue(mine)
                    : cancelByScript(mine, phase.equals(ONE) ? places : null);
            Map<String, long[]> after = ServerTime.commandStats(server);
            if (done != mine.size()) {
                throw new IllegalStateException(phase + ": " + done + " of " + mine.size() + " cancels succeeded");
            }
            long micros = ServerTime.scripts(after)[1] - ServerTime.scripts(before)[1];
            usec.put(phase, micros / (double) done); // per cancel, however the client grouped them into calls
        }
        helper("unindex", quarters.get(ONE));
        long left = queue.stats().delayed();
        if (left != background) {
            throw new IllegalStateException(left + " messages pending after the round, not its backlog " + background);
        }
        return usec;
    }

    /** Offers count messages in batches of 100, with generated ids or ids of the harness's choosing. */
    private List<String> offer(int count, boolean chosen) {
        List<String> ids = new ArrayList<>(count);
        Map<String, String> batch = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int n = nextValue++;
            batch.put("cost-" + n, RedissonFaceHarness.value(n));
            if (batch.size() == BATCH || i == count - 1) {
                Duration delay = Duration.ofMillis(HOUR_MS + (nextValue * 7919L) % HOUR_MS);
                ids.addAll(chosen ? queue.offerAll(batch, delay) : queue.offerAll(new ArrayList<>(batch.values()),
                        delay));
                batch.clear();
            }
        }
        return ids;
    }

    /** Adds count background messages due 1 to 2 hours out, as {@link RedisRates} fills. */
    private void fill(int count) throws Exception {
        List<CompletionStage<List<String>>> inFlight = new ArrayList<>();
        List<String> batch = new ArrayList<>(HELPER_BATCH);
        for (int i = 0; i < count; i++) {
            batch.add(RedissonFaceHarness.value(nextValue++));
            if (batch.size() == HELPER_BATCH || i == count - 1) {
                long delayMs = HOUR_MS + HOUR_MS * i / count;
                inFlight.add(queue.offerAllAsync(new ArrayList<>(batch), Duration.ofMillis(delayMs)));
                batch.clear();
                if (inFlight.size() == 8) {
                    awaitAll(inFlight);
                }
            }
        }
        awaitAll(inFlight);
        background += count;
    }

    private static void awaitAll(List<CompletionStage<List<String>>> stages) throws Exception {
        for (CompletionStage<List<String>> s : stages) {
            s.toCompletableFuture().get();
        }
        stages.clear();
    }

    /** Runs the script's locate or unindex mode over ids, in batches; returns the replies (locate). */
    private List<String> helper(String mode, List<String> ids) {
        List<String> out = new ArrayList<>(ids.size());
        for (int from = 0; from < ids.size(); from += HELPER_BATCH) {
            List<String> argv = new ArrayList<>(List.of(prefix, mode));
            argv.addAll(ids.subList(from, Math.min(ids.size(), from + HELPER_BATCH)));
            List<String> reply = connections.get(0).sync().evalsha(sha, ScriptOutputType.MULTI, new String[0],
                    argv.toArray(new String[0]));
            out.addAll(reply);
        }
        if (mode.equals("locate") && out.contains("")) {
            throw new IllegalStateException("a message is not in the compact store's index");
        }
        return out;
    }

    private int cancelByQueue(List<String> ids) throws Exception {
        return inThreads(ids.size(), (from, to, t) -> {
            int done = 0;
            for (int i = from; i < to; i += IN_FLIGHT) {
                List<CompletableFuture<Boolean>> calls = new ArrayList<>(IN_FLIGHT);
                for (String id : ids.subList(i, Math.min(to, i + IN_FLIGHT))) {
                    calls.add(queue.cancelAsync(id).toCompletableFuture());
                }
                for (CompletableFuture<Boolean> c : calls) {
                    done += c.get() ? 1 : 0;
                }
            }
            return done;
        });
    }

    /** The script's two mode, or with places (chunk, position per id) its one mode. */
    private int cancelByScript(List<String> ids, List<String> places) throws Exception {
        return inThreads(ids.size(), (from, to, t) -> {
            RedisAsyncCommands<String, String> async = connections.get(t).async();
            int done = 0;
            for (int i = from; i < to; i += IN_FLIGHT) {
                List<RedisFuture<Long>> calls = new ArrayList<>(IN_FLIGHT);
                for (int k = i; k < Math.min(to, i + IN_FLIGHT); k++) {
                    String[] argv;
                    if (places == null) {
                        argv = new String[] {prefix, "two", ids.get(k)};
                    } else {
                        String at = places.get(k);
                        int comma = at.lastIndexOf(',');
                        argv = new String[] {prefix, "one", ids.get(k), at.substring(0, comma),
                            at.substring(comma + 1)};
                    }
                    calls.add(async.evalsha(sha, ScriptOutputType.INTEGER, new String[0], argv));
                }
                for (RedisFuture<Long> c : calls) {
                    done += c.get().intValue();
                }
            }
            return done;
        });
    }

    private interface Share {
        int run(int from, int to, int thread) throws Exception;
    }

    private static int inThreads(int size, Share share) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> parts = new ArrayList<>();
            int each = (size + THREADS - 1) / THREADS;
            for (int t = 0; t < THREADS; t++) {
                int from = Math.min(size, t * each);
                int to = Math.min(size, from + each);
                int thread = t;
                parts.add(pool.submit(() -> share.run(from, to, thread)));
            }
            int done = 0;
            for (Future<Integer> f : parts) {
                done += f.get();
            }
            return done;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void print(Map<Integer, Map<String, double[]>> bySize, int small, int pending) {
        System.out.println();
        System.out.println(String.format(Locale.ROOT, "| cancel | script µs at %,d | at %,d | extra | ratio |", small,
                pending));
        System.out.println("|---|---:|---:|---:|---:|");
        for (String phase : PHASES) {
            double a = median(bySize.get(small).get(phase));
            double b = median(bySize.get(pending).get(phase));
            System.out.println(String.format(Locale.ROOT, "| %s | %.2f (%s) | %.2f (%s) | %.2f | %.2fx |", phase, a,
                    all(bySize.get(small).get(phase)), b, all(bySize.get(pending).get(phase)), b - a, a / b));
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String all(double[] v) {
        StringBuilder b = new StringBuilder();
        for (double x : v) {
            b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", x));
        }
        return b.toString();
    }
}
