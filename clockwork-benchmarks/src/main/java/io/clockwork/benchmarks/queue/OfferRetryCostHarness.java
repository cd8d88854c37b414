package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.redis.RedisDelayedQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * What {@code retryOnConnectionLoss} costs the server on offers into the compact store: with it, each offer call
 * that places messages also records their places for its retries (the {@code placed} stream, see
 * {@code include/cold.lua} in clockwork-redis). Script time per message of {@code offerAllAsync} batches of 100
 * generated ids due in an hour, 8 batches in flight, into a queue built without and one built with
 * {@code retryOnConnectionLoss(30 s)}, alternating, on one {@code redis-server} it starts; script time is
 * {@code INFO commandstats}' script usec ({@code fcall} and {@code evalsha}) over each phase. Each round also prints the stream's size per message
 * ({@code MEMORY USAGE}; the phase is shorter than the stream's window, so it holds every call's entry). Not
 * thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.OfferRetryCostHarness
 * [--batches 3000] [--rounds 5]}</pre>
 */
public final class OfferRetryCostHarness {

    private static final int BATCH = 100;
    private static final int IN_FLIGHT = 8;
    /** The two queues, in the order of the rows. */
    static final List<String> PHASES = List.of("retries off", "retries on");
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("batches", "3000");
        DEFAULTS.put("rounds", "5");
        DEFAULTS.put("redis-server", "redis-server");
    }

    private OfferRetryCostHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        Map<String, double[]> usec = measure(opts.get("redis-server"), opts.getInt("batches"), opts.getInt("rounds"));
        System.out.println();
        System.out.println("| queue | script µs per message, median | rounds |");
        System.out.println("|---|---:|---|");
        for (Map.Entry<String, double[]> e : usec.entrySet()) {
            double[] v = e.getValue().clone();
            Arrays.sort(v);
            double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            StringBuilder all = new StringBuilder();
            for (double x : e.getValue()) {
                all.append(all.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", x));
            }
            System.out.println(String.format(Locale.ROOT, "| %s | %.2f | %s |", e.getKey(), median, all));
        }
    }

    /**
     * Runs the measurement.
     *
     * @param redisServer the {@code redis-server} binary
     * @param batches     batches of 100 offered per queue and round, at least 1
     * @param rounds      measured rounds, at least 1 (a warm-up round runs first)
     * @return per queue ({@link #PHASES}), the script µs per message of each round
     * @throws Exception if the server or an offer fails
     */
    static Map<String, double[]> measure(String redisServer, int batches, int rounds) throws Exception {
        if (batches < 1 || rounds < 1) {
            throw new IllegalArgumentException("need batches >= 1 and rounds >= 1; got " + batches + ", " + rounds);
        }
        List<String> values = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            values.add(RedissonFaceHarness.value(i));
        }
        Map<String, double[]> usec = new LinkedHashMap<>();
        try (RedisServers servers = new RedisServers(redisServer)) {
            RedisServers.Server server = servers.standalone();
            for (String phase : PHASES) {
                usec.put(phase, new double[rounds]);
            }
            for (int r = -1; r < rounds; r++) {
                for (int p = 0; p < PHASES.size(); p++) {
                    String phase = PHASES.get((p + Math.max(r, 0)) % PHASES.size());
                    var builder = RedisDelayedQueue.builder(server.uri(), "retry-cost", Codec.string());
                    if (phase.equals(PHASES.get(1))) {
                        builder.retryOnConnectionLoss(Duration.ofSeconds(30));
                    }
                    try (RedisDelayedQueue<String> q = builder.build()) {
                        server.call("CONFIG", "RESETSTAT");
                        offer(q, values, batches);
                        long scriptUsec = ServerTime.scripts(ServerTime.commandStats(server))[1];
                        if (r >= 0) {
                            usec.get(phase)[r] = scriptUsec / (double) (batches * BATCH);
                        }
                        Object stream = server.call("MEMORY", "USAGE", "cw:{retry-cost:0}:placed");
                        if (stream != null && r >= 0) {
                            System.out.println(String.format(Locale.ROOT, "  round %d: placed stream %.2f bytes per "
                                    + "message", r, Long.parseLong(stream.toString()) / (double) (batches * BATCH)));
                        }
                        if (q.stats().delayed() != (long) batches * BATCH) {
                            throw new IllegalStateException(q.stats().delayed() + " delayed, not "
                                    + batches * BATCH);
                        }
                        q.delete();
                    }
                }
            }
        }
        return usec;
    }

    private static void offer(RedisDelayedQueue<String> q, List<String> values, int batches) throws Exception {
        List<CompletionStage<List<String>>> inFlight = new ArrayList<>(IN_FLIGHT);
        for (int i = 0; i < batches; i++) {
            inFlight.add(q.offerAllAsync(values, Duration.ofHours(1)));
            if (inFlight.size() == IN_FLIGHT || i == batches - 1) {
                for (CompletionStage<List<String>> s : inFlight) {
                    s.toCompletableFuture().get();
                }
                inFlight.clear();
            }
        }
    }
}
