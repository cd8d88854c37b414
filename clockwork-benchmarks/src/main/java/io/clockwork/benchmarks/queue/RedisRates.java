package io.clockwork.benchmarks.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 3 of the scale harness ({@code io.clockwork.benchmarks.scale.ScaleHarness --parts redis}): Clockwork's
 * {@link RedisDelayedQueue} with a small and a huge backlog on one {@code redis-server} this part starts: offer,
 * cancel and delivery rates with the small count of messages pending 1 to 2 hours out and again with the huge one,
 * and {@code used_memory} per pending message while filling. Not thread-safe: one measurement per instance.
 *
 * <p>Each rate is driven the way that loads the server rather than the client's round trips (a one-call-per-message
 * loop measures the round trip, which no backlog changes): {@value #THREADS} threads each
 * <ul>
 *   <li><b>offer</b>: {@code offerAll} of 100 messages due 1 to 2 hours out, the harness's {@code --ops} in all;</li>
 *   <li><b>cancel</b>: {@code cancelAsync} of those messages, 100 in flight per thread;</li>
 *   <li><b>delivery</b>: {@code poll(100)} and {@code ackAll} of {@code --due} messages offered due at once (their
 *       promotion from delayed to ready is part of the poll).</li>
 * </ul>
 * Values are distinct 100-byte strings; the background is filled with {@code offerAllAsync} of 1,000, 8 calls in
 * flight, into one partition. A warm-up round runs before the first measured one.
 *
 * <p>Rows: {@code rate, redis-queue, pending, operation, per second} per round and operation, then
 * {@code redis-bytes, redis-queue, used_memory bytes per pending message, pending}.
 */
public final class RedisRates {

    /** The subject name in the rows. */
    public static final String SUBJECT = "redis-queue";
    private static final int THREADS = 4;
    private static final long HOUR_MS = 3_600_000L;
    private static final int BATCH = 100;
    private static final int FILL_BATCH = 1000;
    private static final int FILL_IN_FLIGHT = 8;

    private final RedisDelayedQueue<String> queue;
    private final ExecutorService pool;
    private final int threads;
    private final AtomicInteger nextValue = new AtomicInteger();

    private RedisRates(RedisDelayedQueue<String> queue, int threads) {
        this.queue = queue;
        this.threads = threads;
        this.pool = Executors.newFixedThreadPool(threads);
    }

    /**
     * Measures the rates at both counts and the memory per message in between.
     *
     * @param redisServer the {@code redis-server} binary
     * @param pending     the huge pending count
     * @param small       the small pending count
     * @param rounds      measured rounds per count
     * @param ops         offers (and cancels) per round
     * @param due         messages delivered per round
     * @return the rows
     * @throws Exception if the server or a measurement fails
     */
    public static List<String[]> measure(String redisServer, int pending, int small, int rounds, int ops, int due)
            throws Exception {
        try (RedisServers servers = new RedisServers(redisServer)) {
            RedisServers.Server server = servers.standalone();
            try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(server.uri(), "scale", Codec.string())
                    .build()) {
                RedisRates r = new RedisRates(q, THREADS);
                try {
                    return r.run(server, pending, small, rounds, ops, due);
                } finally {
                    r.pool.shutdownNow();
                }
            }
        }
    }

    private List<String[]> run(RedisServers.Server server, int pending, int small, int rounds, int ops, int due)
            throws Exception {
        List<String[]> rows = new ArrayList<>();
        fill(small, small);
        round(null, ops, due); // warm-up: compiled code and connections
        for (int i = 0; i < rounds; i++) {
            report(rows, small, round(server, ops, due));
        }
        long before = MemoryHarness.usedMemory(server);
        fill(pending - small, pending);
        long after = MemoryHarness.usedMemory(server);
        rows.add(new String[] {"redis-bytes", SUBJECT,
                String.format(Locale.ROOT, "%.1f", (after - before) / (double) (pending - small)),
                Long.toString(queue.stats().delayed())});
        for (int i = 0; i < rounds; i++) {
            report(rows, pending, round(server, ops, due));
        }
        return rows;
    }

    private static void report(List<String[]> rows, int pending, Map<String, Double> rates) {
        rates.forEach((op, rate) -> rows.add(new String[] {"rate", SUBJECT, Integer.toString(pending), op,
                String.format(Locale.ROOT, "%.1f", rate)}));
    }

    /**
     * One round: offers, cancels of the same messages, then a due batch's delivery; returns messages/s by name. With
     * a server, also prints the server's time per message in each phase (see {@link ServerTime}).
     */
    private Map<String, Double> round(RedisServers.Server server, int ops, int due) throws Exception {
        Map<String, Double> rates = new LinkedHashMap<>();
        List<List<String>> ids = new ArrayList<>();
        ServerTime offerTime = ServerTime.start(server);
        long t0 = System.nanoTime();
        List<Future<List<String>>> offered = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int share = ops / threads;
            offered.add(pool.submit(() -> offerFar(share)));
        }
        for (Future<List<String>> f : offered) {
            ids.add(f.get());
        }
        long t1 = System.nanoTime();
        offerTime.print("offer", ops);
        ServerTime cancelTime = ServerTime.start(server);
        List<Future<Integer>> cancelled = new ArrayList<>();
        for (List<String> mine : ids) {
            cancelled.add(pool.submit(() -> cancel(mine)));
        }
        int gone = 0;
        for (Future<Integer> f : cancelled) {
            gone += f.get();
        }
        long t2 = System.nanoTime();
        cancelTime.print("cancel", ops);
        int offeredCount = ids.stream().mapToInt(List::size).sum();
        if (gone != offeredCount) {
            throw new IllegalStateException(gone + " of " + offeredCount + " cancels succeeded");
        }
        rates.put("offer", offeredCount * 1e9 / (t1 - t0));
        rates.put("cancel", offeredCount * 1e9 / (t2 - t1));
        offerDue(due);
        ServerTime deliveryTime = ServerTime.start(server);
        long t3 = System.nanoTime();
        AtomicInteger delivered = new AtomicInteger();
        List<Future<?>> consumers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            consumers.add(pool.submit(() -> consume(due, delivered)));
        }
        for (Future<?> f : consumers) {
            f.get();
        }
        long t4 = System.nanoTime();
        deliveryTime.print("delivery", due);
        if (delivered.get() != due) {
            throw new IllegalStateException(delivered.get() + " of " + due + " due messages delivered");
        }
        rates.put("delivery", due * 1e9 / (t4 - t3));
        return rates;
    }

    private List<String> offerFar(int count) {
        List<String> ids = new ArrayList<>(count);
        List<String> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < count; i++) {
            batch.add(RedissonFaceHarness.value(nextValue.getAndIncrement()));
            if (batch.size() == BATCH || i == count - 1) {
                long delayMs = HOUR_MS + (nextValue.get() * 7919L) % HOUR_MS;
                ids.addAll(queue.offerAll(batch, Duration.ofMillis(delayMs)));
                batch.clear();
            }
        }
        return ids;
    }

    private int cancel(List<String> ids) throws Exception {
        int done = 0;
        for (int from = 0; from < ids.size(); from += BATCH) {
            List<CompletableFuture<Boolean>> inFlight = new ArrayList<>(BATCH);
            for (String id : ids.subList(from, Math.min(ids.size(), from + BATCH))) {
                inFlight.add(queue.cancelAsync(id).toCompletableFuture());
            }
            for (CompletableFuture<Boolean> f : inFlight) {
                if (f.get()) {
                    done++;
                }
            }
        }
        return done;
    }

    private void offerDue(int count) {
        List<String> batch = new ArrayList<>(FILL_BATCH);
        for (int i = 0; i < count; i++) {
            batch.add(RedissonFaceHarness.value(nextValue.getAndIncrement()));
            if (batch.size() == FILL_BATCH || i == count - 1) {
                queue.offerAll(batch, Duration.ZERO);
                batch.clear();
            }
        }
    }

    private Void consume(int due, AtomicInteger delivered) throws InterruptedException {
        while (delivered.get() < due) {
            List<Delivery<String>> got = queue.poll(BATCH, Duration.ofMillis(50));
            if (got.isEmpty()) {
                continue;
            }
            List<Boolean> acked = queue.ackAll(got);
            if (acked.contains(Boolean.FALSE)) {
                throw new IllegalStateException("an ack failed: " + Collections.frequency(acked, Boolean.FALSE));
            }
            delivered.addAndGet(got.size());
        }
        return null;
    }

    /** Adds {@code count} background messages, the i-th of {@code total} due at 1 h + i/total h. */
    private void fill(int count, int total) throws Exception {
        List<CompletionStage<List<String>>> inFlight = new ArrayList<>();
        List<String> batch = new ArrayList<>(FILL_BATCH);
        int first = total - count;
        for (int i = first; i < total; i++) {
            batch.add(RedissonFaceHarness.value(nextValue.getAndIncrement()));
            if (batch.size() == FILL_BATCH || i == total - 1) {
                long delayMs = HOUR_MS + HOUR_MS * (long) i / total;
                inFlight.add(queue.offerAllAsync(new ArrayList<>(batch), Duration.ofMillis(delayMs)));
                batch.clear();
                if (inFlight.size() == FILL_IN_FLIGHT) {
                    for (CompletionStage<List<String>> s : inFlight) {
                        s.toCompletableFuture().get();
                    }
                    inFlight.clear();
                }
            }
        }
        for (CompletionStage<List<String>> s : inFlight) {
            s.toCompletableFuture().get();
        }
    }
}
