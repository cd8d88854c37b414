package io.clockwork.benchmarks.timer;

import io.clockwork.benchmarks.Harness;
import org.openjdk.jol.info.ClassLayout;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Benchmark 4b: heap retained per pending timer. Schedules 1,000,000 timers due in 1 to 2 hours with a shared no-op
 * task (Kafka's API needs a task object per timer; its size is reported and subtracted), drops the handles, lets
 * the timer's thread take them in, and divides the growth of the used heap after full collections by the count.
 *
 * <p>Why: a server holding a million request timeouts pays this in heap and in GC marking work; the target is at
 * most 48 bytes per pending timer besides the user's task. The used heap is read from {@link MemoryMXBean} after
 * several {@link System#gc()} calls, before and after, in a fresh JVM per rival. Also printed: the shallow size of
 * each rival's per-timer objects, from JOL, to explain the figure.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.clockwork.benchmarks.timer.RetainedBytesHarness [--timers 1000000]
 * [--timer clockwork,kafka,netty,jdk,agrona]}
 */
public final class RetainedBytesHarness {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("timers", "1000000");
        DEFAULTS.put("timer", String.join(",", Rivals.ALL));
        DEFAULTS.put("child", "false");
    }

    /** Per rival: the classes allocated per pending timer, besides the user's task. */
    private static final Map<String, List<String>> NODES = Map.of(
            Rivals.CLOCKWORK, List.of("io.clockwork.timer.WheelTimeout"),
            Rivals.CLOCKWORK_KAFKA, List.of("io.clockwork.kafka.KafkaTimerEntry"),
            Rivals.KAFKA, List.of("org.apache.kafka.server.util.timer.TimerTaskEntry"),
            Rivals.NETTY, List.of("io.netty.util.HashedWheelTimer$HashedWheelTimeout"),
            Rivals.JDK, List.of("java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask",
                    "java.util.concurrent.Executors$RunnableAdapter"),
            Rivals.AGRONA, List.of());

    private RetainedBytesHarness() {
    }

    /**
     * Runs the harness; see the class comment for options.
     *
     * @param args options
     * @throws Exception if a child JVM fails
     */
    public static void main(String[] args) throws Exception {
        Harness h = new Harness(args, DEFAULTS);
        if (Boolean.parseBoolean(h.get("child"))) {
            String rival = h.list("timer").get(0);
            System.out.println(Harness.ROW + rival + "\t" + measure(rival, h.getInt("timers")) + "\t"
                    + taskBytes(rival) + "\t" + nodeLayout(rival));
            return;
        }
        List<String[]> results = new ArrayList<>();
        for (String rival : h.list("timer")) {
            System.out.println("# retained bytes: " + rival);
            List<String> childArgs = new ArrayList<>(Arrays.asList(args));
            childArgs.addAll(List.of("--timer", rival, "--child"));
            results.addAll(Harness.fork(RetainedBytesHarness.class, childArgs));
        }
        double ours = results.stream().filter(r -> r[0].equals(Rivals.CLOCKWORK))
                .mapToDouble(r -> Double.parseDouble(r[1]) - Double.parseDouble(r[2])).findFirst().orElse(0);
        List<List<String>> rows = new ArrayList<>();
        for (String[] r : results) {
            double total = Double.parseDouble(r[1]);
            double besidesTask = total - Double.parseDouble(r[2]);
            rows.add(List.of(r[0], String.format("%.1f", total), r[2], String.format("%.1f", besidesTask),
                    Harness.ratio(ours, besidesTask), r.length > 3 ? r[3] : ""));
        }
        Harness.printTable(List.of("timer", "B/timer retained", "task B", "B/timer besides task",
                "ours/theirs", "per-timer objects (shallow, JOL)"), rows);
    }

    /** @return heap bytes retained per pending timer, task included */
    static double measure(String name, int timers) throws InterruptedException {
        try (TimerRival rival = Rivals.open(name)) {
            Lane lane = rival.lane(1);
            for (int i = 0; i < 100_000; i++) { // let lazily built structures (queues, chunks) exist before "before"
                lane.schedule(0, Workloads.HOUR_NANOS);
                lane.cancel(0);
            }
            Thread.sleep(200);
            long before = usedHeapAfterGc();
            Workloads.fillBackground(lane, timers);
            Thread.sleep(500); // let the timer's thread move them from its inbox into its buckets
            long after = usedHeapAfterGc();
            long pending = rival.pending();
            if (pending >= 0 && pending < timers) {
                throw new IllegalStateException(name + " reports " + pending + " pending of " + timers);
            }
            Reference.reachabilityFence(lane);
            return (after - before) / (double) timers;
        }
    }

    /** @return bytes of the per-timer task object the rival's API requires, 0 if a shared task is allowed */
    static long taskBytes(String name) {
        switch (name) {
            case Rivals.KAFKA:
                return ClassLayout.parseClass(KafkaRival.NoopTask.class).instanceSize();
            case Rivals.CLOCKWORK_KAFKA:
                return ClassLayout.parseClass(ClockworkKafkaRival.NoopTask.class).instanceSize();
            default:
                return 0;
        }
    }

    static String nodeLayout(String name) {
        List<String> parts = new ArrayList<>();
        for (String className : NODES.getOrDefault(name, List.of())) {
            try {
                Class<?> type = Class.forName(className);
                parts.add(type.getSimpleName() + " " + ClassLayout.parseClass(type).instanceSize() + " B");
            } catch (ReflectiveOperationException | RuntimeException e) {
                parts.add(className + " ?");
            }
        }
        if (name.equals(Rivals.AGRONA)) {
            parts.add("one long slot in a spoke array, grown by doubling");
        }
        return String.join(" + ", parts);
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
