package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.Harness;
import io.clockwork.inprocess.InMemoryDelayedQueue;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The pause a thread sees when the JVM's next collection comes while a million objects made seconds ago are still
 * live: the floor under the expiry storm's young rounds ({@link ExpiryStorm}), where the storm's messages were
 * offered seconds before they fall due and any collection in the storm's window copies those not yet delivered,
 * and their ids, which the caller holds. No storm runs here and nothing falls due: each round starts from a full
 * collection, makes the case's live objects, then allocates short-lived garbage (64-byte arrays, as a producer's
 * calls do) until the collectors have finished one more collection (a whole cycle, for a concurrent collector) and
 * {@value #AFTER_MILLIS} ms more, recording its longest gap between two allocations and that gap less its time off
 * core, as {@link PauseProbe} does.
 *
 * <p>Cases ({@code --cases}): {@code none} (nothing live but the harness), {@code ids} ({@code --count} strings
 * shaped as {@link InMemoryDelayedQueue}'s generated ids, held in an array, as a caller holds the ids it was handed
 * to cancel them later: any queue that hands out {@code String} ids makes these), and {@code queue} ({@code
 * --count} messages offered to an {@code InMemoryDelayedQueue} due an hour out, the returned ids held: what the
 * young storm holds). Options: {@code --count 1000000}, {@code --rounds 5}, {@code --cases none,ids,queue}. Prints
 * a Markdown table: per case, the bytes its live objects took (the thread's allocation while making them; all of it
 * is live), the medians over the rounds (worst in brackets) of the longest gap and of that gap less time off core,
 * the median time the collectors report as pauses in the round, and in how many rounds a collection came while
 * the live objects were being made (those objects then wait in a survivor space or the old generation).
 *
 * <p>Not thread-safe: one thread runs it. Time: {@link System#nanoTime()}; off-core time from {@link OffCoreTime}.
 */
public final class YoungCollectionFloor {

    private static final int SAMPLE_EVERY = 1024;
    private static final long MILLI = 1_000_000L;
    /** How long the thread keeps allocating after the collection count rose: a concurrent cycle's last pauses. */
    private static final long AFTER_MILLIS = 20;
    /** A round gives up waiting for a collection after this long. */
    private static final long GIVE_UP_NANOS = 60_000_000_000L;
    private static final int GARBAGE_SLOTS = 1024;
    private static final int GARBAGE_BYTES = 48;
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("count", "1000000");
        DEFAULTS.put("rounds", "5");
        DEFAULTS.put("cases", "none,ids,queue");
    }

    /** Kept reachable so that the garbage loop's arrays are really allocated. */
    private final byte[][] garbage = new byte[GARBAGE_SLOTS][];

    private YoungCollectionFloor() {
    }

    /**
     * Runs the measurement and prints its table.
     *
     * @param args options; see the class comment
     */
    public static void main(String[] args) {
        Harness h = new Harness(args, DEFAULTS);
        int count = h.getInt("count");
        int rounds = h.getInt("rounds");
        if (count < 1) {
            throw new IllegalArgumentException("--count must be at least 1, got " + count);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
        }
        List<String> cases = h.list("cases");
        for (String c : cases) {
            if (!List.of("none", "ids", "queue").contains(c)) {
                throw new IllegalArgumentException("--cases: unknown case '" + c + "' (none, ids, queue)");
            }
        }
        YoungCollectionFloor floor = new YoungCollectionFloor();
        List<List<String>> rows = new ArrayList<>();
        for (String c : cases) {
            rows.add(floor.measure(c, count, rounds));
        }
        System.out.printf(Locale.ROOT, "# %d cores, JDK %s, max heap %.1f GiB, collectors %s; %,d objects a case, %d "
                        + "rounds%n%n", Runtime.getRuntime().availableProcessors(), Runtime.version(),
                Runtime.getRuntime().maxMemory() / (double) (1L << 30), collectorNames(), count, rounds);
        Harness.printTable(List.of("live objects", "count", "live MB", "longest gap (ms)",
                "less time off core (ms)", "collection pauses (ms)", "rounds made across a collection"), rows);
    }

    private List<String> measure(String kind, int count, int rounds) {
        long[] gaps = new long[rounds];
        long[] lessOffCore = new long[rounds];
        long[] gcMillis = new long[rounds];
        long liveBytes = 0;
        int madeAcross = 0;
        for (int r = 0; r < rounds; r++) {
            System.gc(); // a clean slate: what earlier rounds made is gone, the harness's own objects are old
            long before = allocatedBytes();
            long collectionsBefore = collectionCount();
            Live live = Live.make(kind, count);
            liveBytes = Math.max(liveBytes, allocatedBytes() - before);
            madeAcross += collectionCount() != collectionsBefore ? 1 : 0;
            long gcBefore = collectionMillis();
            long[] result = untilNextCollection();
            gcMillis[r] = collectionMillis() - gcBefore;
            gaps[r] = result[0];
            lessOffCore[r] = result[1];
            live.close();
        }
        boolean reported = lessOffCore[0] >= 0;
        return List.of(kind, kind.equals("none") ? "0" : String.format(Locale.ROOT, "%,d", count),
                String.format(Locale.ROOT, "%.1f", liveBytes / 1e6), medianAndWorst(gaps),
                reported ? medianAndWorst(lessOffCore) : "not reported",
                Long.toString(median(gcMillis)), Integer.toString(madeAcross));
    }

    /**
     * Allocates garbage until one more collection has finished and {@value #AFTER_MILLIS} ms more have passed.
     *
     * @return the longest gap between two allocations, and that less time off core (-1 where not reported)
     */
    private long[] untilNextCollection() {
        OffCoreTime offCore = OffCoreTime.openForThisThread();
        long collections = collectionCount();
        long longest = 0;
        long lessOffCore = -1;
        long intervalGap = 0;
        long start = System.nanoTime();
        long previous = start;
        long end = Long.MAX_VALUE;
        for (long i = 1; ; i++) {
            garbage[(int) (i & (GARBAGE_SLOTS - 1))] = new byte[GARBAGE_BYTES];
            long now = System.nanoTime();
            long gap = now - previous;
            longest = Math.max(longest, gap);
            intervalGap = Math.max(intervalGap, gap);
            if (i % SAMPLE_EVERY == 0) {
                if (offCore != null) {
                    lessOffCore = Math.max(lessOffCore, Math.max(0, intervalGap - offCore.mark()));
                }
                intervalGap = 0;
                if (end == Long.MAX_VALUE && collectionCount() != collections) {
                    end = now + AFTER_MILLIS * MILLI;
                }
                if (now - end >= 0) {
                    break;
                }
                if (now - start > GIVE_UP_NANOS) {
                    throw new IllegalStateException("no collection came in " + GIVE_UP_NANOS / 1_000_000_000L + " s");
                }
                now = System.nanoTime(); // reading the counters is not a pause of the JVM
            }
            previous = now;
        }
        if (offCore != null) {
            offCore.close();
        }
        Arrays.fill(garbage, null);
        return new long[] {longest, lessOffCore};
    }

    /** The objects a round keeps live while it waits for the next collection. */
    private static final class Live implements AutoCloseable {
        private final String[] ids;
        private final InMemoryDelayedQueue<String> queue;

        private Live(String[] ids, InMemoryDelayedQueue<String> queue) {
            this.ids = ids;
            this.queue = queue;
        }

        static Live make(String kind, int count) {
            switch (kind) {
                case "ids":
                    return new Live(ids(count), null);
                case "queue":
                    InMemoryDelayedQueue<String> queue = InMemoryDelayedQueue.<String>builder().build();
                    String[] held = new String[count];
                    Duration hour = Duration.ofHours(1);
                    for (int i = 0; i < count; i++) {
                        held[i] = queue.offer("value", hour);
                    }
                    return new Live(held, queue);
                default:
                    return new Live(new String[0], null);
            }
        }

        /**
         * Strings shaped as the queue's generated ids (a random base-36 prefix, a dash, a base-36 counter), each
         * formatted in one buffer and copied once, so that making them allocates only the strings and their bytes.
         */
        private static String[] ids(int count) {
            byte[] prefix = (Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36) + "-")
                    .getBytes(StandardCharsets.ISO_8859_1);
            byte[] buffer = new byte[prefix.length + 13];
            System.arraycopy(prefix, 0, buffer, 0, prefix.length);
            String[] ids = new String[count];
            for (int i = 0; i < count; i++) {
                int end = prefix.length;
                long n = i + 1L;
                int digits = 1;
                for (long rest = n / 36; rest != 0; rest /= 36) {
                    digits++;
                }
                end += digits;
                for (int j = end - 1; j >= prefix.length; j--) {
                    buffer[j] = (byte) Character.forDigit((int) (n % 36), 36);
                    n /= 36;
                }
                ids[i] = new String(buffer, 0, end, StandardCharsets.ISO_8859_1);
            }
            return ids;
        }

        @Override
        public void close() {
            Reference.reachabilityFence(ids);
            if (queue != null) {
                queue.close();
            }
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /**
     * @return collections finished so far: the concurrent collectors' cycles where the JVM reports them apart from
     *         their pauses (ZGC's and Shenandoah's "Cycles" beans, which count a cycle when it ends), else every
     *         collection (G1's young and full ones, each a pause)
     */
    private static long collectionCount() {
        return GarbageCollectors.total("Cycles", GarbageCollectorMXBean::getCollectionCount);
    }

    /**
     * @return milliseconds of collection pauses so far: the "Pauses" beans' time where the JVM reports pauses apart
     *         from concurrent cycles (ZGC, Shenandoah), else every collection's time (G1's are all pauses)
     */
    private static long collectionMillis() {
        return GarbageCollectors.total("Pauses", GarbageCollectorMXBean::getCollectionTime);
    }

    private static String collectorNames() {
        List<String> names = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            names.add(gc.getName());
        }
        return String.join(", ", names);
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String medianAndWorst(long[] nanos) {
        long worst = Arrays.stream(nanos).max().orElse(0);
        return String.format(Locale.ROOT, "%.2f (%.2f)", median(nanos) / (double) MILLI, worst / (double) MILLI);
    }
}
