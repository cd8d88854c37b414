package io.clockwork.benchmarks.queue;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.redis.RedisDelayedQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each hot queue operation costs the {@code redis-server}, one operation at a time: the phases run one after
 * another on one standalone server, {@value #THREADS} client threads each, and each phase reads {@code INFO
 * commandstats} (script time: {@code fcall} and {@code evalsha} usec, which includes the commands a script calls) and the server
 * process's CPU around itself. Several threads' concurrent calls of one partition may share one script call (the
 * client's group commit), so the table gives the time per script call and per message. Not JMH: a phase is one pass
 * over {@code --messages} messages, after a warm-up pass of the same; each of {@code --rounds} rounds runs every phase
 * with the queue's code as functions and then as scripts, and the table gives the medians, so that the two forms meet
 * the same hours of a shared machine. Each round also measures the floor of any call ({@link #calibrate}). Not
 * thread-safe; a command-line program.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.ScriptCostHarness \
 *     [--messages 100000] [--rounds 3] [--redis-server redis-server] [--code functions|scripts|both] [--commands]
 *     [--groups]}</pre>
 * Scripts: the queue runs as a user refused {@code FCALL} and {@code FUNCTION}, so its code runs as scripts
 * ({@code EVALSHA}), as on Redis 6.2. {@code --commands} also prints, per phase, each command's calls and
 * microseconds per message (the commands a script calls are counted too), to show where a script's time goes.
 * {@code --groups} adds the priority phases with message groups too (100 groups, a partition grouped: {@code
 * include/groups.lua}), each run right beside its plain counterpart (first in one round, second in the next, so
 * that both meet the same load), and a table of their ratios, round by round.
 */
public final class ScriptCostHarness {

    private static final int THREADS = 4;
    private static final String PAYLOAD = "x".repeat(100);
    private static final Duration HOUR = Duration.ofHours(1);
    /** Calls a function makes in the calibration row that measures what one {@code redis.call} costs. */
    private static final int CALLS = 8;
    /** Two functions that measure the floor of every call in the same run: one empty, one that only calls TIME. */
    private static final String CALIBRATION = "#!lua name=cw_calibration\n"
            + "redis.register_function('cw_calibration_empty', function() return 0 end)\n"
            + "redis.register_function('cw_calibration_time', function()\n"
            + "    for _ = 1, " + CALLS + " do redis.call('TIME') end\n"
            + "    return 0\n"
            + "end)\n";

    /** The grouped phases (--groups), each beside its plain counterpart of the same index in {@link #PLAIN}. */
    private static final String[] GROUPED = {"offer, due now, with priorities and groups",
        "poll, one message, with priorities and groups", "ack, with priorities and groups",
        "ackAndPoll, with priorities and groups"};
    private static final String[] PLAIN = {"offer, due now", "poll, one message", "ack",
        "ackAndPoll (a handler's turnover)"};

    private final RedisServers.Server server;
    private final String uri;
    /** Per phase name, in run order: {script µs per call, per message, server CPU µs per message} per round. */
    private final Map<String, List<double[]>> results = new LinkedHashMap<>();
    /** Per round: what one redis.call costs besides its command ({@link #calibrate}). */
    private final List<double[]> perCall = new ArrayList<>();
    private boolean commands;
    private boolean groups;
    /** How many times {@link #run} ran: a grouped phase goes first in odd runs. */
    private int runs;

    private ScriptCostHarness(RedisServers.Server server, String uri) {
        this.server = server;
        this.uri = uri;
    }

    /** One operation on one message; {@code i} numbers the messages of a phase, {@code state} is the thread's. */
    private interface Op {
        void run(int i, Object[] state) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int messages = 100_000;
        int rounds = 3;
        String binary = "redis-server";
        String code = "both";
        boolean commands = false;
        boolean groups = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--messages" -> messages = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--redis-server" -> binary = args[++i];
                case "--code" -> code = args[++i];
                case "--commands" -> commands = true;
                case "--groups" -> groups = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; options: --messages N,"
                        + " --rounds N, --redis-server PATH, --code functions|scripts|both, --commands, --groups");
            }
        }
        List<String> forms = switch (code) {
            case "functions" -> List.of("functions");
            case "scripts" -> List.of("scripts");
            case "both" -> List.of("functions", "scripts");
            default -> throw new IllegalArgumentException("--code must be functions, scripts or both, was " + code);
        };
        if (rounds < 1 || messages < 1) {
            throw new IllegalArgumentException("--rounds and --messages must be at least 1");
        }
        try (RedisServers servers = new RedisServers(binary)) {
            RedisServers.Server server = servers.standalone();
            // A user refused FCALL and FUNCTION runs the same code as scripts, as on Redis 6.2.
            server.call("ACL", "SETUSER", "scripts", "on", ">pw", "~*", "&*", "+@all", "-fcall", "-function");
            System.out.println("redis-server " + servers.version() + ", " + THREADS + " client threads, "
                    + messages + " messages per phase, 100-byte payloads, 1 partition, " + rounds
                    + " rounds of " + forms + " in turn, medians");
            Map<String, ScriptCostHarness> harnesses = new LinkedHashMap<>();
            for (String form : forms) {
                String uri = form.equals("scripts") ? "redis://scripts:pw@127.0.0.1:" + server.port : server.uri();
                ScriptCostHarness h = new ScriptCostHarness(server, uri);
                h.commands = commands;
                h.groups = groups;
                h.run(messages, form + "-w", false);
                harnesses.put(form, h);
            }
            for (int r = 0; r < rounds; r++) {
                for (Map.Entry<String, ScriptCostHarness> e : harnesses.entrySet()) {
                    System.out.println("round " + r + ", " + e.getKey() + ":");
                    e.getValue().run(messages, e.getKey() + "-" + r, true);
                    e.getValue().calibrate(messages);
                }
            }
            printTable(harnesses);
        }
    }

    /** One table: per operation, the median over the rounds of script µs per message and per call, per code form. */
    private static void printTable(Map<String, ScriptCostHarness> harnesses) {
        StringBuilder head = new StringBuilder("| operation |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String form : harnesses.keySet()) {
            head.append(" script µs per message, ").append(form).append(" | per call | server CPU µs per message |");
            rule.append("---:|---:|---:|");
        }
        System.out.println();
        System.out.println(head);
        System.out.println(rule);
        ScriptCostHarness first = harnesses.values().iterator().next();
        for (String name : first.results.keySet()) {
            StringBuilder row = new StringBuilder("| " + name + " |");
            for (ScriptCostHarness h : harnesses.values()) {
                List<double[]> rs = h.results.get(name);
                row.append(String.format(Locale.ROOT, " %.1f | %.1f | %.1f |", median(rs, 1), median(rs, 0),
                        median(rs, 2)));
            }
            System.out.println(row);
        }
        for (Map.Entry<String, ScriptCostHarness> e : harnesses.entrySet()) {
            System.out.println(String.format(Locale.ROOT, "%s: one redis.call costs a function or script %.2f µs"
                    + " besides its command's own time (median)", e.getKey(), median(e.getValue().perCall, 0)));
        }
        if (first.groups) {
            printRatios(harnesses);
        }
    }

    /** Per grouped phase and code form: script µs per message against its plain counterpart's, round by round. */
    private static void printRatios(Map<String, ScriptCostHarness> harnesses) {
        System.out.println();
        System.out.println("| grouped against plain, script µs per message | form | median of the rounds' ratios"
                + " | each round |");
        System.out.println("|---|---|---:|---|");
        for (int i = 0; i < GROUPED.length; i++) {
            for (Map.Entry<String, ScriptCostHarness> e : harnesses.entrySet()) {
                List<double[]> plain = e.getValue().results.get(PLAIN[i]);
                List<double[]> grouped = e.getValue().results.get(GROUPED[i]);
                List<double[]> ratios = new ArrayList<>();
                StringBuilder each = new StringBuilder();
                for (int r = 0; r < Math.min(plain.size(), grouped.size()); r++) {
                    double ratio = grouped.get(r)[1] / plain.get(r)[1];
                    ratios.add(new double[] {ratio});
                    each.append(String.format(Locale.ROOT, "%s%.2f", r == 0 ? "" : ", ", ratio));
                }
                System.out.println(String.format(Locale.ROOT, "| %s | %s | %.2fx | %s |", GROUPED[i], e.getKey(),
                        median(ratios, 0), each));
            }
        }
    }

    private static double median(List<double[]> rows, int column) {
        double[] v = rows.stream().mapToDouble(r -> r[column]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private void run(int n, String suffix, boolean measured) throws Exception {
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "cost-" + suffix, Codec.string())
                .build();
             RedisDelayedQueue<String> flat = RedisDelayedQueue.builder(uri, "cost-flat-" + suffix,
                     Codec.string()).compactAfter(QueueRival.PER_MESSAGE).build();
             RedisDelayedQueue<String> prio = RedisDelayedQueue.builder(uri, "cost-prio-" + suffix, Codec.string())
                     .build();
             RedisDelayedQueue<String> g = RedisDelayedQueue.builder(uri, "cost-groups-" + suffix, Codec.string())
                     .build()) {
            // With --groups each grouped phase runs beside its plain counterpart, first in one round and second in
            // the next, so that both meet the same load of a shared machine.
            boolean groupedFirst = groups && runs++ % 2 == 1;
            phase("offer, due in 1 h (compact store)", n, measured, (i, s) -> q.offer(PAYLOAD, HOUR));
            phase("offer, due in 1 h (per-message layout)", n, measured, (i, s) -> flat.offer(PAYLOAD, HOUR));
            paired(groupedFirst,
                    () -> phase("offer, due now", n, measured, (i, s) -> q.offer(PAYLOAD, Duration.ZERO)),
                    () -> phase(GROUPED[0], n, measured, (i, s) -> g.offer(inGroup(i))));
            ConcurrentLinkedQueue<Delivery<String>> held = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Delivery<String>> groupHeld = new ConcurrentLinkedQueue<>();
            paired(groupedFirst,
                    () -> phase("poll, one message", n, measured, (i, s) -> held.add(q.poll(Duration.ZERO))),
                    () -> phase(GROUPED[1], n, measured, (i, s) -> groupHeld.add(g.poll(Duration.ZERO))));
            List<Delivery<String>> all = new ArrayList<>(held);
            List<Delivery<String>> groupAll = new ArrayList<>(groupHeld);
            phase("extend", n, measured, (i, s) -> all.get(i).extend(Duration.ofMinutes(5)));
            paired(groupedFirst,
                    () -> phase("ack", n, measured, (i, s) -> all.get(i).ack()),
                    () -> phase(GROUPED[2], n, measured, (i, s) -> groupAll.get(i).ack()));
            for (int i = 0; i < n; i++) {
                q.offer(PAYLOAD, Duration.ZERO);
                if (groups) {
                    g.offer(inGroup(i));
                }
            }
            paired(groupedFirst,
                    () -> phase("ackAndPoll (a handler's turnover)", n, measured, turnover(q)),
                    () -> phase(GROUPED[3], n, measured, turnover(g)));
            String[] ids = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = "job-" + suffix + "-" + i;
                flat.offer(ids[i], PAYLOAD, HOUR);
            }
            phase("cancel by id", n, measured, (i, s) -> flat.cancel(ids[i]));
            // The same with priorities 0 to 3 (a partition ordered by priority: include/ready.lua).
            phase("offer, due now, with priorities", n, measured, (i, s) -> prio.offer(prioritized(i)));
            ConcurrentLinkedQueue<Delivery<String>> prioHeld = new ConcurrentLinkedQueue<>();
            phase("poll, one message, with priorities", n, measured,
                    (i, s) -> prioHeld.add(prio.poll(Duration.ZERO)));
            for (int i = 0; i < n; i++) {
                prio.offer(prioritized(i));
            }
            phase("ackAndPoll, with priorities", n, measured, turnover(prio));
        }
    }

    /** A phase that may throw. */
    private interface Phase {
        void run() throws Exception;
    }

    /** Runs a plain phase and, with --groups, its grouped counterpart, in the order given. */
    private void paired(boolean groupedFirst, Phase plain, Phase grouped) throws Exception {
        if (!groups) {
            plain.run();
        } else if (groupedFirst) {
            grouped.run();
            plain.run();
        } else {
            plain.run();
            grouped.run();
        }
    }

    /** Message i of the group phases. */
    private static Message<String> inGroup(int i) {
        return Message.of(PAYLOAD).priority(i % 4).group("tenant-" + (i % 100));
    }

    /** Message i of the priority phases: priority i mod 4. */
    private static Message<String> prioritized(int i) {
        return Message.of(PAYLOAD).priority(i % 4);
    }

    /** A handler's turnover: ack the job, take the next, one call; each thread starts from one poll. */
    private static Op turnover(RedisDelayedQueue<String> q) {
        return (i, s) -> {
            @SuppressWarnings("unchecked")
            Delivery<String> d = (Delivery<String>) s[0];
            if (d == null) {
                d = q.poll(Duration.ZERO);
                if (d == null) {
                    return; // the other threads' turnovers took the last messages
                }
            }
            AckAndPoll<String> r = q.ackAndPoll(d);
            s[0] = r.next();
        };
    }

    /**
     * The floor any call pays on this server in this run, for reading the rows above on a shared machine whose speed
     * varies from hour to hour: an empty function, and what a {@code redis.call} costs a function besides its command's
     * own time (a function making {@value #CALLS} TIME calls, less the empty one and TIME's own usec, per call).
     */
    private void calibrate(int n) throws Exception {
        server.call("FUNCTION", "LOAD", "REPLACE", CALIBRATION);
        Queue<Resp> connections = new ConcurrentLinkedQueue<>();
        try {
            double empty = phase("an empty function (the floor of any call)", n, true,
                    (i, s) -> connection(s, connections).call("FCALL", "cw_calibration_empty", "0"))[0];
            double[] time = phase(CALLS + " TIME calls in a function", n, true,
                    (i, s) -> connection(s, connections).call("FCALL", "cw_calibration_time", "0"));
            double call = (time[0] - empty - time[1]) / CALLS;
            perCall.add(new double[] {call});
            System.out.println(String.format(Locale.ROOT, "one redis.call costs a function %.2f µs besides its"
                    + " command's own time", call));
        } finally {
            connections.forEach(Resp::close);
            server.call("FUNCTION", "DELETE", "cw_calibration");
        }
    }

    /** The thread's own admin connection (state[0]), opened at its first call. */
    private Resp connection(Object[] state, Queue<Resp> all) {
        if (state[0] == null) {
            Resp r = new Resp(server.port, 120_000);
            all.add(r);
            state[0] = r;
        }
        return (Resp) state[0];
    }

    /** Runs n operations from THREADS threads, each taking the next message number, and records the server's cost. */
    /** @return script µs per message, and the usec of the TIME commands scripts called per message */
    private double[] phase(String name, int n, boolean measured, Op op) throws Exception {
        server.call("CONFIG", "RESETSTAT");
        long cpu0 = server.cpuMillis();
        long t0 = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            Thread th = new Thread(() -> {
                Object[] state = new Object[1];
                try {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        op.run(i, state);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            }, "cost-" + t);
            th.start();
        }
        done.await();
        if (!failures.isEmpty()) {
            throw new IllegalStateException("phase '" + name + "' failed", failures.get(0));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long cpuMillis = server.cpuMillis() - cpu0;
        Map<String, long[]> stats = ServerTime.commandStats(server);
        long[] scripts = ServerTime.scripts(stats);
        String row = String.format(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f |", name, scripts[0],
                scripts[1] / (double) Math.max(1, scripts[0]), scripts[1] / (double) n, cpuMillis * 1000.0 / n);
        if (measured) {
            results.computeIfAbsent(name, k -> new ArrayList<>()).add(new double[] {
                scripts[1] / (double) Math.max(1, scripts[0]), scripts[1] / (double) n, cpuMillis * 1000.0 / n});
            System.out.println(String.format(Locale.ROOT, "%s: %,.0f messages/s", row, n / seconds));
            if (commands) {
                stats.entrySet().stream()
                        .sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
                        .forEach(e -> System.out.println(String.format(Locale.ROOT,
                                "    %-24s %6.2f calls %6.2f µs per message", e.getKey(),
                                e.getValue()[0] / (double) n, e.getValue()[1] / (double) n)));
            }
        }
        return new double[] {scripts[1] / (double) n, stats.getOrDefault("time", new long[2])[1] / (double) n};
    }
}
