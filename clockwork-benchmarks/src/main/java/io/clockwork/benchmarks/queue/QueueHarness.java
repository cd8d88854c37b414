package io.clockwork.benchmarks.queue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static io.clockwork.benchmarks.queue.HarnessReport.fmt;
import static io.clockwork.benchmarks.queue.HarnessReport.loadAverage;
import static io.clockwork.benchmarks.queue.HarnessReport.mavenVersion;
import static io.clockwork.benchmarks.queue.HarnessReport.median;
import static io.clockwork.benchmarks.queue.HarnessReport.ms;
import static io.clockwork.benchmarks.queue.HarnessReport.pct;
import static io.clockwork.benchmarks.queue.HarnessReport.pctStr;
import static io.clockwork.benchmarks.queue.HarnessReport.range;
import static io.clockwork.benchmarks.queue.HarnessReport.ratio;

/**
 * The delayed-queue benchmarks: Clockwork's {@code RedisDelayedQueue} against Redisson's {@code RDelayedQueue} on the
 * same {@code redis-server}, in the same run. Scenarios (all on real servers this harness starts on free loopback ports
 * and kills at the end):
 * <ol>
 *   <li><b>offer</b>: offers per second from 4 producer threads, delay 1 h (nothing falls due meanwhile); BullMQ
 *   beside them when Node.js is installed ({@link BullMqRival}: 4 async loops in one Node process, each with one
 *   {@code queue.add} in flight), else a line in the report says why its column is missing;</li>
 *   <li><b>delivery</b>: end-to-end messages per second, producers offering messages due at once (delay 0) and
 *   consumers taking them (Clockwork: {@code poll} + {@code ack}; Redisson: {@code poll} of the destination
 *   queue), producers never more than {@code --max-backlog} ahead;</li>
 *   <li><b>lateness</b>: offers paced at {@code --lateness-rate} per second with delays uniform in
 *   [{@code --lateness-min-ms}, {@code --lateness-max-ms}]; lateness is the {@link System#nanoTime()} at which a
 *   consumer got the message minus the instant before the offer call plus the delay (one clock: both clients run
 *   in this JVM on this machine);</li>
 *   <li><b>backlog</b>: the delivery workload on a queue holding {@code --backlog} far-future (1 day) messages
 *   versus one holding {@code --small-backlog}; both queues live on the server at once and their rounds
 *   alternate, so machine noise hits both alike;</li>
 *   <li><b>cluster</b>: Clockwork's delivery workload on a {@code --masters}-master Redis Cluster with
 *   {@code --partitions} partitions versus one standalone master (1 partition, and {@code --partitions}).</li>
 *   <li><b>offer-batch</b>, <b>delivery-batch</b>, <b>cluster-batch</b>: scenarios 1, 2 and 5 through the batch
 *   APIs, {@code --batch} values per call: Clockwork's {@code offerAll}, {@code poll(n, wait)} and {@code ackAll};
 *   Redisson's best equivalents, as many {@code offerAsync} calls in flight per producer thread as a batch holds
 *   (it has no batch offer for a delayed queue) and {@code pollFirstFromAny(wait, n)} ({@code BLMPOP ... COUNT n}).
 *   Every table names the calls each side made.</li>
 *   <li><b>cluster-capped</b> (not in the default list): cluster-batch with every master, and the single master it is
 *   compared with, under a CPU quota of each of {@code --caps} cores ({@link CpuQuota}, cgroup v1, root): Redis on
 *   separate small machines, simulated on a shared 2-core host so that Redis, not the client, is the limit.</li>
 * </ol>
 * Throughputs are measured over {@code --seconds}-long windows after {@code --warmup} seconds, in {@code --rounds}
 * rounds whose rival order alternates; tables report the median and the range. Each window also records a profile:
 * CPU time of the JVM and of every redis-server process (from /proc), and {@code INFO commandstats} and
 * {@code SLOWLOG} since a {@code CONFIG RESETSTAT} at the window's start.
 *
 * <p>Not JMH: the work is end to end across processes (producers, consumers, the server) and lateness is a
 * distribution, not a throughput. Like JMH it warms both clients up first and repeats measurements.
 *
 * <p>Usage: {@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.QueueHarness
 * [--scenarios offer,delivery,lateness,backlog,cluster] [--rounds 5] [--warmup 2] [--seconds 5]
 * [--backlog 1000000] [--out results.md] [--compact-after off|ms]}; see {@link HarnessOptions#DEFAULTS} for every
 * option.
 * {@code --compact-after} sets Clockwork's {@code RedisQueueBuilder.compactAfter} ({@code off}: the per-message
 * layout for every message; unset: the builder's default, so messages due in an hour go to the compact store).
 */
public final class QueueHarness {

    private static final long HOUR_MS = 3_600_000;
    private static final long DAY_MS = 86_400_000;

    private final Map<String, String> opts;
    private final RedisServers servers;
    private RedisServers.Server main;
    private final AtomicLong queueSeq = new AtomicLong();
    private final HarnessReport report;

    private QueueHarness(Map<String, String> opts) {
        this.opts = opts;
        this.servers = new RedisServers(opts.get("redis-server"));
        this.report = new HarnessReport(Double.parseDouble(opts.get("seconds")));
    }

    /**
     * Runs the harness; see the class comment.
     *
     * @param args {@code --name value} options
     * @throws Exception if a scenario fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> opts = HarnessOptions.parse(args);
        QueueHarness h = new QueueHarness(opts);
        try {
            h.run();
        } finally {
            h.servers.close();
        }
        System.exit(0); // Redisson and Lettuce leave non-daemon threads behind for a while
    }

    private int i(String key) {
        return Integer.parseInt(opts.get(key));
    }

    private double d(String key) {
        return Double.parseDouble(opts.get(key));
    }

    private void run() throws Exception {
        main = servers.standalone();
        List<String> scenarios = Arrays.asList(opts.get("scenarios").split(","));
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        report.line("Run " + started + "; JDK " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version") + "; nproc " + Runtime.getRuntime().availableProcessors()
                + "; Redis " + servers.version() + "; Redisson " + mavenVersion("org.redisson", "redisson")
                + "; Lettuce " + mavenVersion("io.lettuce", "lettuce-core") + "; Netty "
                + mavenVersion("io.netty", "netty-transport") + "; load average at start " + loadAverage());
        report.line("Options: " + opts);
        report.line("");
        jitWarmup();
        if (scenarios.contains("offer")) {
            offer(false);
        }
        if (scenarios.contains("delivery")) {
            delivery(false);
        }
        if (scenarios.contains("offer-batch")) {
            offer(true);
        }
        if (scenarios.contains("offer-async")) {
            offerAsync();
        }
        if (scenarios.contains("delivery-batch")) {
            delivery(true);
        }
        if (scenarios.contains("lateness")) {
            lateness();
        }
        if (scenarios.contains("backlog")) {
            backlog();
        }
        if (scenarios.contains("cluster")) {
            cluster(false);
        }
        if (scenarios.contains("cluster-batch")) {
            cluster(true);
        }
        if (scenarios.contains("cluster-capped")) {
            String why = CpuQuota.unavailable();
            if (why != null) {
                report.line("### 5c. Redis Cluster with a CPU quota per master: not run: " + why);
                report.line("");
            } else {
                for (String cap : opts.get("caps").split(",")) {
                    cluster(true, Double.parseDouble(cap.trim()));
                }
            }
        }
        report.line("Load average at end: " + loadAverage());
        report.line("");
        report.line("Profile (per measured window: CPU as % of one core; server time and calls per message from INFO "
                + "commandstats, which counts the commands scripts call as well as the scripts; slow = SLOWLOG "
                + "entries over 10 ms; machine = all cores' busy time from /proc/stat, this harness and everyone "
                + "else's load included, as % of one core (nproc x 100% is saturation); connections opened = "
                + "total_connections_received, the harness's own admin connections included):");
        report.line("");
        report.profile.forEach(report::line);
        String json = opts.get("json");
        if (!json.isEmpty()) {
            Files.writeString(Path.of(json), "[\n" + String.join(",\n", report.headlines) + "\n]\n",
                    StandardCharsets.UTF_8);
        }
        String out = opts.get("out");
        if (!out.isEmpty()) {
            Files.writeString(Path.of(out), report.md.toString(), StandardCharsets.UTF_8);
        }
    }

    // ---------------------------------------------------------------- scenarios

    private QueueRival create(String rival, String tag) {
        String name = tag + "-" + queueSeq.incrementAndGet();
        return rival.equals(QueueRival.CLOCKWORK)
                ? QueueRival.clockwork(main.uri(), name, 1, QueueRival.compactAfter(opts.get("compact-after")))
                : QueueRival.redisson(main.uri(), name);
    }

    private static List<String> order(int round) {
        return round % 2 == 0 ? List.of(QueueRival.CLOCKWORK, QueueRival.REDISSON)
                : List.of(QueueRival.REDISSON, QueueRival.CLOCKWORK);
    }

    private void jitWarmup() throws Exception {
        double s = d("jit-warmup");
        if (s <= 0) {
            return;
        }
        System.out.println("# JIT warm-up, " + s + " s per rival");
        for (String rival : order(0)) {
            flush(main);
            try (QueueRival q = create(rival, "warmup")) {
                Workload w = new Workload(q, 2, 2, 0, 5, 500, 0, 1000);
                w.start();
                Thread.sleep((long) (s * 1000));
                w.stop();
            }
        }
        flush(main);
    }

    private int batchSize(boolean batch) {
        return batch ? i("batch") : 1;
    }

    private void offer(boolean batch) throws Exception {
        String scenario = batch ? "offer-batch" : "offer";
        System.out.println("# " + scenario);
        String noBullMq = batch ? "" : BullMqRival.unavailableIn(opts.get("bullmq"));
        Map<String, List<Window>> results = new LinkedHashMap<>();
        for (int r = 0; r < i("rounds"); r++) {
            List<String> rivals = new ArrayList<>(order(0));
            if (noBullMq == null) {
                rivals.add(BullMqRival.NAME);
            }
            if (!batch) {
                rivals.add(PingFloor.NAME);
            }
            if (r % 2 == 1) {
                Collections.reverse(rivals);
            }
            for (String rival : rivals) {
                flush(main);
                if (rival.equals(BullMqRival.NAME)) {
                    BullMqRival.Run run = BullMqRival.add(main, "offer-" + queueSeq.incrementAndGet(),
                            i("offer-producers"), HOUR_MS, d("warmup"), d("seconds"));
                    report.apis.put(scenario + "/" + rival, "`queue.add(name, 100-byte string, {delay})`, one in "
                            + "flight per async loop (" + run.versions() + ")");
                    results.computeIfAbsent(rival, k -> new ArrayList<>()).add(run.window());
                    System.out.println("  round " + r + " " + rival + ": " + fmt(run.perSecond()) + " offers/s");
                    continue;
                }
                boolean ping = rival.equals(PingFloor.NAME);
                try (QueueRival q = ping ? new PingFloor(main.uri()) : create(rival, "offer")) {
                    report.apis.put(scenario + "/" + rival, q.api(batch, i("batch"), false));
                    Workload w = new Workload(q, i("offer-producers"), 0, HOUR_MS, HOUR_MS, 0, 0, 1000)
                            .batch(batchSize(batch));
                    w.start();
                    Window win = measure(w, List.of(main), true);
                    w.stop();
                    results.computeIfAbsent(rival, k -> new ArrayList<>()).add(win);
                    System.out.println("  round " + r + " " + rival + ": " + fmt(win.offeredPerSec) + " offers/s");
                }
            }
        }
        flush(main);
        report.line(batch ? "### 1b. Offer throughput, batch API (" + i("offer-producers") + " producer threads, "
                + i("batch") + " values per call or in flight per thread, delay 1 h)"
                : "### 1. Offer throughput (" + i("offer-producers") + " producer threads, delay 1 h, one message per "
                + "call" + (noBullMq == null ? "; BullMQ: as many async loops in one Node process" : "") + ")");
        report.line("");
        if (!batch && noBullMq != null) {
            report.line("BullMQ column skipped: " + noBullMq);
            report.line("");
        }
        report.throughputTable(scenario, "offers/s", results, true);
        report.serverCostTable(results, true, "offer");
        results.forEach((rival, l) -> report.headline(batch ? "offerBatch" : "offer", rival, "thrpt", median(l, true),
                "ops/s"));
        report.addProfile(scenario, results, true);
    }

    /** Scenario 1c: each producer thread keeps a batch's worth of asynchronous one-message offers in flight. */
    private void offerAsync() throws Exception {
        String scenario = "offer-async";
        System.out.println("# " + scenario);
        Map<String, List<Window>> results = new LinkedHashMap<>();
        for (int r = 0; r < i("rounds"); r++) {
            for (String rival : order(r)) {
                flush(main);
                try (QueueRival q = create(rival, "offer")) {
                    report.apis.put(scenario + "/" + rival, i("batch") + " x `offerAsync(value, delay)` in flight per "
                            + "thread, then wait for all");
                    Workload w = new Workload(q, i("offer-producers"), 0, HOUR_MS, HOUR_MS, 0, 0, 1000)
                            .batch(i("batch")).async();
                    w.start();
                    Window win = measure(w, List.of(main), true);
                    w.stop();
                    results.computeIfAbsent(rival, k -> new ArrayList<>()).add(win);
                    System.out.println("  round " + r + " " + rival + ": " + fmt(win.offeredPerSec) + " offers/s");
                }
            }
        }
        flush(main);
        report.line("### 1c. Offer throughput, async API (" + i("offer-producers") + " producer threads, " + i("batch")
                + " one-message async offers in flight per thread, delay 1 h)");
        report.line("");
        report.throughputTable(scenario, "offers/s", results, true);
        results.forEach((rival, l) -> report.headline("offerAsync", rival, "thrpt", median(l, true), "ops/s"));
        report.addProfile(scenario, results, true);
    }

    private Workload deliveryWorkload(QueueRival q, int producers, int consumers) {
        return new Workload(q, producers, consumers, 0, 0, i("max-backlog"), 0, 1000);
    }

    private Workload deliveryWorkload(QueueRival q, int producers, int consumers, boolean batch) {
        if (!batch) {
            return deliveryWorkload(q, producers, consumers);
        }
        return new Workload(q, producers, consumers, 0, 0, i("batch-max-backlog"), 0, 1000).batch(i("batch"));
    }

    private void delivery(boolean batch) throws Exception {
        String scenario = batch ? "delivery-batch" : "delivery";
        System.out.println("# " + scenario);
        Map<String, List<Window>> results = new LinkedHashMap<>();
        for (int r = 0; r < i("rounds"); r++) {
            for (String rival : order(r)) {
                flush(main);
                try (QueueRival q = create(rival, "delivery")) {
                    report.apis.put(scenario + "/" + rival, q.api(batch, i("batch"), true));
                    Workload w = deliveryWorkload(q, i("producers"), i("consumers"), batch);
                    w.start();
                    Window win = measure(w, List.of(main), false);
                    w.stop();
                    results.computeIfAbsent(rival, k -> new ArrayList<>()).add(win);
                    System.out.println("  round " + r + " " + rival + ": " + fmt(win.takenPerSec) + " delivered/s");
                }
            }
        }
        flush(main);
        report.line((batch ? "### 2b. End-to-end delivery throughput, batch API ("
                : "### 2. End-to-end delivery throughput (") + i("producers") + " producers, " + i("consumers")
                + " consumers, delay 0, "
                + (batch ? i("batch") + " values per call, at most " + i("batch-max-backlog")
                : "one message per call, at most " + i("max-backlog")) + " offered ahead of the consumers)");
        report.line("");
        report.throughputTable(scenario, "delivered/s", results, false);
        results.forEach((rival, l) -> report.headline(batch ? "deliveryBatch" : "delivery", rival, "thrpt",
                median(l, false), "ops/s"));
        report.addProfile(scenario, results, false);
    }

    private void lateness() throws Exception {
        System.out.println("# lateness");
        Map<String, long[]> results = new LinkedHashMap<>();
        Map<String, List<Window>> windows = new LinkedHashMap<>();
        for (String rival : order(0)) {
            flush(main);
            try (QueueRival q = create(rival, "lateness")) {
                Workload w = new Workload(q, 1, i("consumers"), i("lateness-min-ms"), i("lateness-max-ms"), 0,
                        d("lateness-rate"), 1000);
                w.start();
                Thread.sleep((long) (d("warmup") * 1000));
                w.recordFromNow();
                Window win = Window.over(w, List.of(main), d("lateness-seconds"));
                w.stopProducers();
                boolean drained = w.drain(TimeUnit.SECONDS.toMillis(i("drain-seconds")));
                w.stop();
                long[] l = w.lateness();
                results.put(rival, l);
                windows.put(rival, List.of(win));
                System.out.println("  " + rival + ": " + l.length + " samples, p50 " + ms(pct(l, 0.50)) + " ms, p99 "
                        + ms(pct(l, 0.99)) + " ms" + (drained ? "" : " (NOT DRAINED)"));
            }
        }
        flush(main);
        report.line("### 3. Delivery lateness (" + opts.get("lateness-rate") + " offers/s for "
                + opts.get("lateness-seconds")
                + " s, delays uniform in [" + opts.get("lateness-min-ms") + ", " + opts.get("lateness-max-ms")
                + "] ms, " + i("consumers") + " consumers)");
        report.line("");
        report.line("| queue | samples | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | early (< 0) |");
        report.line("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, long[]> e : results.entrySet()) {
            long[] l = e.getValue();
            long early = Arrays.stream(l).filter(x -> x < 0).count();
            report.line("| " + e.getKey() + " | " + l.length + " | " + ms(pct(l, 0.5)) + " | " + ms(pct(l, 0.9)) + " | "
                    + ms(pct(l, 0.99)) + " | " + ms(pct(l, 0.999)) + " | " + ms(l.length == 0 ? 0 : l[l.length - 1])
                    + " | " + early + " |");
        }
        results.forEach((rival, l) -> report.headline("latenessP99", rival, "avgt",
                l.length == 0 ? Double.NaN : pct(l, 0.99) / 1e6, "ms"));
        long[] ours = results.get(QueueRival.CLOCKWORK);
        long[] theirs = results.get(QueueRival.REDISSON);
        if (ours != null && theirs != null && ours.length > 0 && theirs.length > 0) {
            report.line("");
            boolean met = pct(ours, 0.99) <= TimeUnit.MILLISECONDS.toNanos(10);
            report.line("p99 ours/theirs: " + ratio(pct(ours, 0.99), pct(theirs, 0.99)) + " (lower is better); target: "
                    + "ours p99 <= 10 ms: " + (met ? "met" : "MISSED"));
        }
        report.line("");
        report.addProfile("lateness", windows, false);
    }

    private void backlog() throws Exception {
        System.out.println("# backlog");
        int big = i("backlog");
        int small = i("small-backlog");
        Map<String, List<Window>> results = new LinkedHashMap<>();
        Map<String, String> preload = new LinkedHashMap<>();
        for (String rival : order(0)) {
            flush(main);
            try (QueueRival qs = create(rival, "small"); QueueRival qb = create(rival, "large")) {
                preload(qs, small);
                long t0 = System.nanoTime();
                preload(qb, big);
                double secs = (System.nanoTime() - t0) / 1e9;
                preload.put(rival, fmt(big / secs) + " offers/s (" + String.format(Locale.ROOT, "%.0f", secs)
                        + " s, " + i("preload-threads") + " threads)");
                System.out.println("  " + rival + ": preloaded " + big + " in " + secs + " s; used_memory "
                        + Window.infoField(main, "memory", "used_memory_human"));
                for (int r = 0; r < i("rounds"); r++) {
                    List<QueueRival> qs2 = r % 2 == 0 ? List.of(qs, qb) : List.of(qb, qs);
                    for (QueueRival q : qs2) {
                        String key = rival + (q == qb ? " @ " + big : " @ " + small);
                        Workload w = deliveryWorkload(q, i("producers"), i("consumers"));
                        w.start();
                        Window win = measure(w, List.of(main), false);
                        w.stopProducers();
                        boolean drained = w.drain(TimeUnit.SECONDS.toMillis(i("drain-seconds")));
                        w.stop();
                        results.computeIfAbsent(key, k -> new ArrayList<>()).add(win);
                        System.out.println("  round " + r + " " + key + ": " + fmt(win.takenPerSec)
                                + " delivered/s" + (drained ? "" : " (leftovers not drained)"));
                    }
                }
            }
        }
        flush(main);
        report.line("### 4. Delivery with a large backlog (" + big + " vs " + small + " messages due in 1 day; "
                + "delivery workload of section 2 on top)");
        report.line("");
        report.line("| queue | delivered/s @ " + small + " pending | delivered/s @ " + big + " pending | " + big + " / "
                + small + " | preload of " + big + " |");
        report.line("|---|---:|---:|---:|---|");
        for (String rival : order(0)) {
            List<Window> s = results.get(rival + " @ " + small);
            List<Window> b = results.get(rival + " @ " + big);
            if (s == null || b == null) {
                continue;
            }
            double ms = median(s, false);
            double mb = median(b, false);
            report.headline("deliveryAtLargeBacklog", rival, "thrpt", mb, "ops/s");
            report.line("| " + rival + " | " + fmt(ms) + " (" + range(s, false) + ") | " + fmt(mb) + " ("
                    + range(b, false) + ") | " + pctStr(mb / ms) + " | " + preload.get(rival) + " |");
        }
        List<Window> ob = results.get(QueueRival.CLOCKWORK + " @ " + big);
        List<Window> tb = results.get(QueueRival.REDISSON + " @ " + big);
        if (ob != null && tb != null) {
            report.line("");
            report.line("At " + big + " pending, ours/theirs: " + ratio(median(ob, false), median(tb, false)) + ".");
        }
        report.line("");
        report.addProfile("backlog", results, false);
    }

    private void preload(QueueRival q, int count) throws InterruptedException {
        AtomicLong left = new AtomicLong(count);
        List<Thread> threads = new ArrayList<>();
        Throwable[] error = new Throwable[1];
        for (int t = 0; t < i("preload-threads"); t++) {
            Thread th = new Thread(() -> {
                try {
                    while (left.getAndDecrement() > 0) {
                        q.offer("0", DAY_MS);
                    }
                } catch (Throwable e) {
                    error[0] = e;
                    left.set(0);
                }
            }, "preload-" + t);
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join();
        }
        if (error[0] != null) {
            throw new IllegalStateException("preload failed", error[0]);
        }
    }

    private void cluster(boolean batch) throws Exception {
        cluster(batch, 0);
    }

    /**
     * One master against a cluster of {@code --masters}; with {@code cap > 0} every master (the single one included)
     * runs under a CPU quota of {@code cap} cores, as if each were a machine of its own that small (see
     * {@link CpuQuota}): a simulation of separate machines on a shared 2-core host.
     */
    private void cluster(boolean batch, double cap) throws Exception {
        String scenario = cap > 0 ? "cluster-capped-" + cap : batch ? "cluster-batch" : "cluster";
        System.out.println("# " + scenario);
        int masters = i("masters");
        int partitions = batch ? i("batch-partitions") : i("partitions");
        List<RedisServers.Server> nodes = servers.cluster(masters);
        RedisServers.Server single = cap > 0 ? servers.standalone() : main;
        List<CpuQuota> quotas = new ArrayList<>();
        if (cap > 0) {
            quotas.add(new CpuQuota(single.process.pid(), cap));
            nodes.forEach(n -> quotas.add(new CpuQuota(n.process.pid(), cap)));
        }
        String single1 = "1 master, 1 partition";
        Map<String, List<Window>> results = new LinkedHashMap<>();
        List<String> names;
        try {
            List<String> seeds = new ArrayList<>();
            nodes.forEach(n -> seeds.add(n.uri()));
            String singleP = "1 master, " + partitions + " partitions";
            String clusterP = masters + "-master cluster, " + partitions + " partitions";
            Map<String, Supplier<QueueRival>> configs = new LinkedHashMap<>();
            configs.put(single1, () -> QueueRival.clockwork(single.uri(), "c-" + queueSeq.incrementAndGet(), 1));
            configs.put(singleP, () -> QueueRival.clockwork(single.uri(), "c-" + queueSeq.incrementAndGet(),
                    partitions));
            configs.put(clusterP, () -> QueueRival.clockworkCluster(seeds, RedisServers.balancedName(() -> "c-" + queueSeq.incrementAndGet(), masters, partitions),
                    partitions));
            names = new ArrayList<>(configs.keySet());
            for (int r = 0; r < i("rounds"); r++) {
                List<String> order = new ArrayList<>(names);
                if (r % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String config : order) {
                    List<RedisServers.Server> where = config.equals(clusterP) ? nodes : List.of(single);
                    where.forEach(QueueHarness::flush);
                    try (QueueRival q = configs.get(config).get()) {
                        report.apis.put(scenario + "/clockwork", q.api(batch, i("batch"), true));
                        Workload w = deliveryWorkload(q, i("cluster-producers"), i("cluster-consumers"), batch);
                        w.start();
                        Window win = measure(w, where, false);
                        w.stop();
                        results.computeIfAbsent(config, k -> new ArrayList<>()).add(win);
                        System.out.println("  round " + r + " " + config + ": " + fmt(win.takenPerSec)
                                + " delivered/s");
                    }
                }
            }
        } finally {
            quotas.forEach(CpuQuota::close);
        }
        nodes.forEach(servers::stop);
        if (cap > 0) {
            servers.stop(single);
        }
        flush(main);
        report.line("### " + (cap > 0 ? "5c" : batch ? "5b" : "5") + ". Redis Cluster vs one master (Clockwork only; "
                + (cap > 0 ? "every master under a CPU quota of " + cap + " core, a simulation of separate machines; "
                : "") + i("cluster-producers")
                + " producers, " + i("cluster-consumers") + " consumers, delay 0" + (batch ? ", batch API, "
                + i("batch") + " values per call" : ", one message per call") + ")");
        report.line("");
        report.line("API: " + report.apis.get(scenario + "/clockwork"));
        report.line("");
        report.line("| setup | delivered/s (median) | range | vs 1 master, 1 partition |");
        report.line("|---|---:|---|---:|");
        double base = median(results.get(single1), false);
        for (String config : names) {
            List<Window> l = results.get(config);
            report.line("| " + config + " | " + fmt(median(l, false)) + " | " + range(l, false) + " | "
                    + ratio(median(l, false), base) + " |");
        }
        report.line("");
        report.addProfile(scenario, results, false);
    }

    // ---------------------------------------------------------------- measurement

    private Window measure(Workload w, List<RedisServers.Server> where, boolean offers) throws Exception {
        Thread.sleep((long) (d("warmup") * 1000));
        w.checkError();
        Window win = Window.over(w, where, d("seconds"));
        win.messages = offers ? Math.round(win.offeredPerSec * d("seconds")) : Math.round(win.takenPerSec
                * d("seconds"));
        return win;
    }

    private static void flush(RedisServers.Server s) {
        s.call("FLUSHALL");
    }
}
