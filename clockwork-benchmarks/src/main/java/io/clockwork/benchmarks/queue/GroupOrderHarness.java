package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.worker.Worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * One message at a time per group, across processes and through a crash: {@code maxInFlightPerGroup(1)} on Redis.
 * The harness starts a {@code redis-server}, offers {@code --groups} groups of {@code --each} messages (all due), and
 * starts {@code --processes} worker JVMs (each a {@link WorkerProcess}: one queue client and a default
 * {@code Worker}, whose handler takes {@code --handle-ms}). When {@code --kill-at} of the messages are handled it
 * SIGKILLs the first worker JVM, and waits until every message is handled.
 *
 * <p>Each handler prints when it starts and ends, in microseconds of the wall clock all processes share. The harness
 * then checks, per group, that no handler started before the one before it ended (a handler the kill cut off ends,
 * for this check, at the kill; its message stays in flight until its lease runs out, so the next start must come
 * later still). It reports every message handled, those handled twice (at least once: the killed worker's), the
 * overlaps (the target is 0), and how long after the kill each group the killed worker held started its next message
 * (at least the visibility timeout less what the heartbeat had extended). Not thread-safe; a {@code main}.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.GroupOrderHarness
 * [--processes 3] [--groups 1000] [--each 10] [--handle-ms 1] [--visibility-ms 5000] [--kill-at 0.5]
 * [--partitions 1]}</pre>
 */
public final class GroupOrderHarness {

    private static final String NAME = "group-order";
    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    static {
        DEFAULTS.put("processes", "3");
        DEFAULTS.put("groups", "1000");
        DEFAULTS.put("each", "10");
        DEFAULTS.put("handle-ms", "1");
        DEFAULTS.put("visibility-ms", "5000");
        DEFAULTS.put("kill-at", "0.5");
        DEFAULTS.put("partitions", "1");
        DEFAULTS.put("timeout-s", "600");
        DEFAULTS.put("redis-server", "redis-server");
    }

    /** A handler's start or end: which process, which message (group and index), when (µs of the wall clock). */
    private record Event(int process, boolean start, int group, int index, long micros) {
    }

    private GroupOrderHarness() {
    }

    public static void main(String[] args) throws Exception {
        Harness opts = new Harness(args, DEFAULTS);
        int processes = opts.getInt("processes");
        int groups = opts.getInt("groups");
        int each = opts.getInt("each");
        int partitions = opts.getInt("partitions");
        double killAt = Double.parseDouble(opts.get("kill-at"));
        if (processes < 2 || groups < 1 || each < 1 || partitions < 1 || !(killAt > 0 && killAt < 1)) {
            throw new IllegalArgumentException("processes >= 2, groups, each and partitions >= 1, kill-at in (0, 1)");
        }
        int total = groups * each;
        List<String> childArgs = List.of("", Integer.toString(partitions), opts.get("visibility-ms"),
                opts.get("handle-ms"));
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            String uri = servers.standalone().uri();
            try (DelayedQueue<String> q = queue(uri, partitions, Long.parseLong(opts.get("visibility-ms")))) {
                List<Message<String>> batch = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    for (int g = 0; g < groups; g++) {
                        batch.add(Message.of(g + ":" + i).group("g" + g));
                        if (batch.size() == DelayedQueue.MAX_BATCH) {
                            q.offerAll(batch);
                            batch.clear();
                        }
                    }
                }
                if (!batch.isEmpty()) {
                    q.offerAll(batch);
                }
            }
            System.out.println(String.format(Locale.ROOT, "# %,d messages in %,d groups, maxInFlightPerGroup(1); %d "
                    + "worker JVMs (default Worker), handler %s ms, visibility timeout %s ms; the first JVM is "
                    + "SIGKILLed at %.0f%% handled (JDK %d, %d cores, Redis %s)", total, groups, processes,
                    opts.get("handle-ms"), opts.get("visibility-ms"), killAt * 100, Runtime.version().feature(),
                    Runtime.getRuntime().availableProcessors(), servers.version()));
            run(opts, uri, childArgs, processes, total, killAt);
        }
    }

    private static void run(Harness opts, String uri, List<String> childArgs, int processes, int total,
                            double killAt) throws Exception {
        ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
        Set<String> handled = ConcurrentHashMap.newKeySet();
        List<Process> children = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int p = 0; p < processes; p++) {
            List<String> a = new ArrayList<>(childArgs);
            a.set(0, uri);
            Process child = Harness.spawn(WorkerProcess.class, a);
            children.add(child);
            int index = p;
            Thread reader = new Thread(() -> read(child, index, events, handled), "group-order-reader-" + p);
            reader.start();
            readers.add(reader);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(opts.getInt("timeout-s"));
        long killMicros = -1;
        while (handled.size() < total) {
            if (killMicros < 0 && handled.size() >= killAt * total) {
                children.get(0).destroyForcibly(); // SIGKILL: no shutdown hook, no hand-back, leases left to run out
                killMicros = micros(Instant.now());
                children.get(0).waitFor();
                System.out.println(String.format(Locale.ROOT, "killed worker JVM 0 at %,d handled", handled.size()));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("only " + handled.size() + " of " + total + " handled in time");
            }
            Thread.sleep(5); // why real time: the harness watches real processes
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        for (int p = 1; p < processes; p++) {
            children.get(p).getOutputStream().close(); // end of input: the worker shuts down and the JVM exits
        }
        for (int p = 1; p < processes; p++) {
            if (!children.get(p).waitFor(60, TimeUnit.SECONDS)) {
                children.get(p).destroyForcibly();
                throw new IllegalStateException("worker JVM " + p + " did not exit");
            }
        }
        for (Thread r : readers) {
            r.join();
        }
        report(new ArrayList<>(events), total, handled.size(), killMicros, seconds);
    }

    private static void read(Process child, int process, ConcurrentLinkedQueue<Event> events, Set<String> handled) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (!line.startsWith(Harness.ROW)) {
                    System.out.println("  | " + line);
                    continue;
                }
                String[] f = line.substring(Harness.ROW.length()).split("\t");
                String[] message = f[1].split(":");
                boolean start = f[0].equals("S");
                events.add(new Event(process, start, Integer.parseInt(message[0]), Integer.parseInt(message[1]),
                        Long.parseLong(f[2])));
                if (!start) {
                    handled.add(f[1]);
                }
            }
        } catch (IOException e) {
            System.out.println("  | worker JVM " + process + ": " + e); // a killed child's pipe may end abruptly
        }
    }

    private static void report(List<Event> events, int total, int handled, long killMicros, double seconds) {
        Map<Integer, List<long[]>> byGroup = new HashMap<>(); // per group: {start, end, index, killed}
        Map<String, Long> open = new HashMap<>();
        events.sort(Comparator.comparingLong(Event::micros));
        int starts = 0;
        for (Event e : events) {
            String key = e.process() + "/" + e.group() + ":" + e.index();
            if (e.start()) {
                starts++;
                open.put(key, e.micros());
            } else {
                Long s = open.remove(key);
                byGroup.computeIfAbsent(e.group(), g -> new ArrayList<>()).add(new long[] {s, e.micros(), e.index(),
                        0});
            }
        }
        for (Map.Entry<String, Long> cut : open.entrySet()) { // started, never ended: the killed worker's
            String message = cut.getKey().substring(cut.getKey().indexOf('/') + 1);
            String[] f = message.split(":");
            byGroup.computeIfAbsent(Integer.parseInt(f[0]), g -> new ArrayList<>()).add(new long[] {cut.getValue(),
                    killMicros, Integer.parseInt(f[1]), 1});
        }
        int overlaps = 0;
        int laterFirst = 0;
        long minAfterKill = Long.MAX_VALUE;
        for (List<long[]> runs : byGroup.values()) {
            runs.sort(Comparator.comparingLong(r -> r[0]));
            int highest = -1;
            for (int i = 0; i < runs.size(); i++) {
                long[] r = runs.get(i);
                if (i > 0) {
                    long[] before = runs.get(i - 1);
                    if (r[0] < before[1]) {
                        overlaps++;
                    }
                    if (before[3] == 1) {
                        minAfterKill = Math.min(minAfterKill, r[0] - killMicros);
                    }
                }
                if (r[2] < highest) {
                    laterFirst++;
                }
                highest = (int) Math.max(highest, r[2]);
            }
        }
        System.out.println();
        System.out.println("| measure | value |");
        System.out.println("|---|---:|");
        System.out.println(String.format(Locale.ROOT, "| messages handled (at least once) | %,d of %,d |", handled,
                total));
        System.out.println(String.format(Locale.ROOT, "| handler runs in all (a run the kill cut off counts) | %,d "
                + "|", starts));
        System.out.println(String.format(Locale.ROOT, "| runs cut off by the kill | %,d |", open.size()));
        System.out.println(String.format(Locale.ROOT, "| two runs of one group overlapping (target 0) | %,d |",
                overlaps));
        System.out.println(String.format(Locale.ROOT, "| a cut-off group's next start after the kill, least | %s |",
                minAfterKill == Long.MAX_VALUE ? "-" : String.format(Locale.ROOT, "%.0f ms", minAfterKill / 1000.0)));
        System.out.println(String.format(Locale.ROOT, "| runs of a message after a later one of its group (a "
                + "redelivery goes behind what is due) | %,d |", laterFirst));
        long first = events.isEmpty() ? killMicros : events.get(0).micros();
        long endedBeforeKill = events.stream().filter(e -> !e.start() && e.micros() < killMicros).count();
        System.out.println(String.format(Locale.ROOT, "| handler runs ended before the kill, per second since the "
                + "first start | %,.0f |", endedBeforeKill / Math.max(1e-6, (killMicros - first) / 1e6)));
        System.out.println(String.format(Locale.ROOT, "| wall time (JVM starts and the lease wait included) | %.1f s |",
                seconds));
    }

    private static DelayedQueue<String> queue(String uri, int partitions, long visibilityMillis) {
        return RedisDelayedQueue.builder(uri, NAME, Codec.string()).partitions(partitions)
                .visibilityTimeout(Duration.ofMillis(visibilityMillis)).maxInFlightPerGroup(1).build();
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }

    /**
     * A worker process: one queue client and a default {@code Worker} whose handler prints its start and end as
     * {@link Harness#ROW}s, until its input ends. Not thread-safe; a {@code main}.
     */
    public static final class WorkerProcess {

        private WorkerProcess() {
        }

        /**
         * @param args Redis URI, partitions, visibility timeout in ms, handler time in ms
         * @throws Exception on any failure
         */
        public static void main(String[] args) throws Exception {
            long handleMillis = Long.parseLong(args[3]);
            try (DelayedQueue<String> q = queue(args[0], Integer.parseInt(args[1]), Long.parseLong(args[2]))) {
                Worker<String> w = Worker.builder(q, job -> {
                    print("S", job.value());
                    Thread.sleep(handleMillis); // the job's work
                    print("E", job.value());
                }).build();
                while (System.in.read() != -1) {
                    // the harness ends the run by closing this input
                }
                w.shutdown(Duration.ofSeconds(10));
            }
        }

        private static void print(String kind, String value) {
            String line = Harness.ROW + kind + "\t" + value + "\t" + micros(Instant.now());
            synchronized (System.out) {
                System.out.println(line);
                System.out.flush();
            }
        }
    }
}
