package io.clockwork.benchmarks.expiry;

import io.clockwork.benchmarks.Harness;
import org.openjdk.jol.info.ClassLayout;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Expiry benchmark 4: heap retained per tracked element, for each expiry structure against its rivals, with
 * 1,000,000 elements.
 *
 * <p>Why: a ZooKeeper server tracks every connected session, a Storm topology every pending tuple; what the
 * structure costs per element is paid in heap and in GC marking work. The elements, session ids and keys themselves
 * are built before the first reading and are not counted, nor are the (shared) values: only the structure.
 *
 * <p>Method: in a fresh JVM per structure and rival, the used heap after several {@link System#gc()} calls, before
 * and after tracking the elements, divided by the count. For the ZooKeeper-style queues and trackers (interval
 * 2 s, timeout 10 s) a second figure is taken after the next interval boundary and a second touch of every element,
 * which moves each to a later bucket: ZooKeeper keeps the emptied bucket's set (and its grown table) until that
 * bucket is polled, ours keeps nothing per bucket. The maps expire after an hour, so nothing expires meanwhile.
 * Also printed: the shallow size of the per-element objects, from JOL, to explain the figure.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.clockwork.benchmarks.expiry.ExpiryRetainedBytesHarness
 * [--elements 1000000] [--only ExpiryQueue/zookeeper,TimeCacheMap/chm,...]}
 */
public final class ExpiryRetainedBytesHarness {

    private static final int INTERVAL_MS = 2000;
    private static final int TIMEOUT_MS = 10_000;
    private static final int MAP_EXPIRATION_SECS = 3600;
    private static final int NUM_BUCKETS = 3;

    /** Structure name to its rivals, ours first; the first rival is what the others are compared with. */
    private static final Map<String, List<String>> STRUCTURES = new LinkedHashMap<>();
    /** "structure/rival" to the per-element classes it allocates. */
    private static final Map<String, List<String>> NODES = new LinkedHashMap<>();
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        STRUCTURES.put("ExpiryQueue", List.of(ExpiryRivals.CLOCKWORK, ExpiryRivals.ZOOKEEPER));
        STRUCTURES.put("SessionTracker",
                List.of(ExpiryRivals.CLOCKWORK, ExpiryRivals.ZOOKEEPER, ExpiryRivals.ZOOKEEPER_SERVER));
        STRUCTURES.put("TimeCacheMap", ExpiryRivals.TIME_CACHE_MAPS);
        STRUCTURES.put("RotatingMap", ExpiryRivals.ROTATING_MAPS);
        String chmNode = "java.util.concurrent.ConcurrentHashMap$Node";
        NODES.put("ExpiryQueue/clockwork", List.of()); // states inline in the table: no object per element
        NODES.put("ExpiryQueue/zookeeper", List.of(chmNode, "java.lang.Long", chmNode));
        // A session is its own table entry, keyed by a primitive long: one object per element.
        NODES.put("SessionTracker/clockwork", List.of("io.clockwork.zookeeper.SessionTrackerImpl$SessionImpl"));
        NODES.put("SessionTracker/zookeeper", List.of("org.apache.zookeeper.server.SessionTrackerImpl$SessionImpl",
                chmNode, "java.lang.Long", chmNode, "java.lang.Long", chmNode));
        NODES.put("SessionTracker/zookeeper-server",
                List.of("org.apache.zookeeper.server.SessionTrackerImpl$SessionImpl", chmNode, "java.lang.Long",
                        chmNode, "java.lang.Long", chmNode, chmNode, "java.lang.Integer"));
        // An entry is its own table entry (NodeTable): no map node beside it.
        NODES.put("TimeCacheMap/clockwork", List.of("io.clockwork.storm.RotatingMap$Entry"));
        NODES.put("TimeCacheMap/storm", List.of("java.util.HashMap$Node"));
        NODES.put("TimeCacheMap/caffeine", List.of("com.github.benmanes.caffeine.cache.PSW", chmNode));
        NODES.put("TimeCacheMap/chm", List.of(chmNode));
        NODES.put("RotatingMap/clockwork", List.of("io.clockwork.storm.RotatingMap$Entry"));
        NODES.put("RotatingMap/storm", List.of("java.util.HashMap$Node"));
        DEFAULTS.put("elements", "1000000");
        DEFAULTS.put("only", "");
        DEFAULTS.put("child", "");
    }

    private ExpiryRetainedBytesHarness() {
    }

    /**
     * Runs the harness; see the class comment for options.
     *
     * @param args options
     * @throws Exception if a child JVM fails
     */
    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args, DEFAULTS);
        int elements = h.getInt("elements");
        if (!h.get("child").isEmpty()) {
            String[] sr = h.get("child").split("/");
            double[] bytes = measure(sr[0], sr[1], elements);
            System.out.println(Harness.ROW + h.get("child") + "\t" + bytes[0] + "\t" + bytes[1] + "\t"
                    + nodeLayout(h.get("child")));
            return;
        }
        List<String> only = h.get("only").isEmpty() ? List.of() : List.of(h.get("only").split(","));
        Map<String, String[]> results = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> structure : STRUCTURES.entrySet()) {
            for (String rival : structure.getValue()) {
                String key = structure.getKey() + "/" + rival;
                if (!only.isEmpty() && !only.contains(key)) {
                    continue;
                }
                System.out.println("# retained bytes: " + key);
                for (String[] row : Harness.fork(ExpiryRetainedBytesHarness.class,
                        List.of("--elements", Integer.toString(elements), "--child", key))) {
                    results.put(row[0], row);
                }
            }
        }
        List<List<String>> rows = new ArrayList<>();
        for (String[] r : results.values()) {
            String structure = r[0].split("/")[0];
            String[] ours = results.get(structure + "/" + STRUCTURES.get(structure).get(0));
            double afterFill = Double.parseDouble(r[1]);
            double afterMove = Double.parseDouble(r[2]);
            rows.add(List.of(r[0], String.format("%.1f", afterFill),
                    Double.isNaN(afterMove) ? "-" : String.format("%.1f", afterMove),
                    ours == null ? "-" : Harness.ratio(Double.parseDouble(ours[1]), afterFill),
                    ours == null || Double.isNaN(afterMove) ? "-"
                            : Harness.ratio(Double.parseDouble(ours[2]), afterMove),
                    r.length > 3 ? r[3] : ""));
        }
        Harness.printTable(List.of("structure/rival", "B/element after fill", "B/element after a move",
                "ours/theirs (fill)", "ours/theirs (move)", "per-element objects (shallow, JOL)"), rows);
    }

    /** @return bytes retained per element after filling, and after one more touch round (NaN for maps) */
    static double[] measure(String structure, String rival, int n) throws InterruptedException {
        switch (structure) {
            case "ExpiryQueue": {
                Object[] elements = Keys.elements(n);
                long before = usedHeapAfterGc();
                QueueRival queue = QueueRival.open(rival, INTERVAL_MS, elements);
                queue.fill(TIMEOUT_MS);
                queue.poll(); // nothing is due yet: a no-op for both, as a poller thread would do
                double afterFill = perElement(before, n);
                sleepPastNextBoundary();
                queue.fill(TIMEOUT_MS);
                queue.poll();
                double afterMove = perElement(before, n);
                Reference.reachabilityFence(queue);
                Reference.reachabilityFence(elements);
                return new double[] {afterFill, afterMove};
            }
            case "SessionTracker": {
                TrackerRival tracker = TrackerRival.open(rival, INTERVAL_MS, n); // allocates the id array
                long before = usedHeapAfterGc();
                tracker.fill(TIMEOUT_MS);
                double afterFill = perElement(before, n);
                sleepPastNextBoundary();
                for (int i = 0; i < n; i++) {
                    tracker.touch(i, TIMEOUT_MS);
                }
                double afterMove = perElement(before, n);
                Reference.reachabilityFence(tracker);
                return new double[] {afterFill, afterMove};
            }
            case "TimeCacheMap":
            case "RotatingMap": {
                Long[] keys = Keys.longs(n);
                MapRival.VALUE.hashCode(); // the shared value exists before
                long before = usedHeapAfterGc();
                MapRival map = structure.equals("TimeCacheMap")
                        ? MapRival.timeCacheMap(rival, keys, MAP_EXPIRATION_SECS, NUM_BUCKETS)
                        : MapRival.rotating(rival, keys, NUM_BUCKETS);
                map.fill();
                if (map.size() != n) {
                    throw new IllegalStateException(structure + "/" + rival + " holds " + map.size() + " of " + n);
                }
                double afterFill = perElement(before, n);
                Reference.reachabilityFence(map);
                Reference.reachabilityFence(keys);
                map.close();
                return new double[] {afterFill, Double.NaN};
            }
            default:
                throw new IllegalArgumentException("unknown structure '" + structure + "', expected one of "
                        + STRUCTURES.keySet());
        }
    }

    private static double perElement(long before, int n) throws InterruptedException {
        return (usedHeapAfterGc() - before) / (double) n;
    }

    /** Waits until the 2 s interval has changed, so that the next touch of every element moves it. */
    private static void sleepPastNextBoundary() throws InterruptedException {
        long nowMs = System.nanoTime() / 1_000_000L;
        Thread.sleep(INTERVAL_MS - nowMs % INTERVAL_MS + 5);
    }

    static String nodeLayout(String key) {
        List<String> parts = new ArrayList<>();
        for (String className : NODES.getOrDefault(key, List.of())) {
            try {
                Class<?> type = Class.forName(className);
                parts.add(type.getSimpleName() + " " + ClassLayout.parseClass(type).instanceSize());
            } catch (ReflectiveOperationException | RuntimeException e) {
                parts.add(className + " ?");
            }
        }
        if (parts.isEmpty()) {
            return "no object per element: table slots and bucket arrays only";
        }
        return String.join(" + ", parts) + " B, plus table slots";
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
