package io.clockwork.benchmarks.queue;

import io.clockwork.benchmarks.Harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BullMQ, the Node.js queue on Redis, as a rival of Clockwork's Redis queue on the same {@code redis-server} in the
 * same run: its Node program ({@link BullMqInstall}; BullMQ and ioredis pinned exactly in its lock file) run in one of
 * two modes against a server on 127.0.0.1, and what the timed part cost the server. Stateless and thread-safe, but
 * the figures of runs on one server at once are meaningless.
 * <ul>
 *   <li><b>add</b>: producers (async loops in one Node process, one {@code queue.add} in flight each, as threads
 *   calling a blocking {@code offer}) adding 100-byte string jobs, for a time after a warm-up, or a fixed count;</li>
 *   <li><b>drain</b>: a backlog of due jobs added through {@code queue.addBulk} (not timed), then a BullMQ
 *   {@code Worker} with a no-op processor at a given concurrency, timed until its last {@code completed} event.</li>
 * </ul>
 * Jobs carry {@code removeOnComplete} and {@code removeOnFail} true (BullMQ's documented way to keep finished jobs out
 * of Redis); everything else is BullMQ's default. The timed part is fenced: the program prints that it is ready and
 * waits; the server's command statistics and slow log are reset and its process's CPU time (utime + stime from
 * {@code /proc/<pid>/stat}) read; the program is told to go and prints its result; the server is read again before the
 * program closes its connections.
 *
 * <p>Also a {@code main}: the drain at each of several concurrencies on a server of its own.
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.BullMqRival
 * [--backlog 100000] [--concurrency 4,50] [--rounds 1] [--redis-server redis-server]}</pre>
 */
public final class BullMqRival {

    /** The rival's name in the harness's tables. */
    static final String NAME = "bullmq";
    private static final AtomicLong QUEUES = new AtomicLong();
    private static final Pattern FIELD = Pattern.compile("\"([A-Za-z]+)\":(\"[^\"]*\"|[^,}]*)");
    private static final String EOF = "\u0000eof";

    /**
     * What the timed part of one run did and cost.
     *
     * @param mode           {@code add} or {@code drain}
     * @param jobs           jobs added or completed in the timed part
     * @param seconds        the timed part's length, as the program measured it
     * @param redisCpuMillis the server process's CPU time over the timed part (10 ms steps)
     * @param nodeCpuMillis  the Node process's CPU time over the timed part
     * @param machineCpuPct  all cores' busy time over the timed part, as % of one core; -1 if unknown
     * @param commands       {@code INFO commandstats} over the timed part: per command, {calls, usec}
     * @param slow           {@code SLOWLOG} entries over the timed part
     * @param connections    connections the server accepted over the timed part
     * @param versions       BullMQ's, ioredis' and Node's versions
     */
    record Run(String mode, long jobs, double seconds, long redisCpuMillis, long nodeCpuMillis, double machineCpuPct,
               Map<String, long[]> commands, long slow, long connections, String versions) {

        /** @return jobs per second */
        double perSecond() {
            return jobs / seconds;
        }

        /** @return the server's CPU time per job, in µs */
        double redisCpuMicrosPerJob() {
            return redisCpuMillis * 1000.0 / jobs;
        }

        /** @return script calls ({@code evalsha} and {@code eval}, as ioredis sends them) in the timed part */
        long scriptCalls() {
            return script()[0];
        }

        /** @return the server's time per script call, in µs ({@code usec} of INFO commandstats) */
        double scriptMicrosPerCall() {
            long[] s = script();
            return s[0] == 0 ? Double.NaN : s[1] / (double) s[0];
        }

        /** @return the server's script time per job, in µs */
        double scriptMicrosPerJob() {
            return script()[1] / (double) jobs;
        }

        private long[] script() {
            long[] sum = new long[2];
            for (String c : List.of("evalsha", "eval")) {
                long[] s = commands.getOrDefault(c, new long[2]);
                sum[0] += s[0];
                sum[1] += s[1];
            }
            return sum;
        }

        /** @return the run as a measurement window of the {@link QueueHarness} (the client's CPU is Node's) */
        Window window() {
            Window w = new Window();
            double perSec = perSecond();
            if (mode.equals("add")) {
                w.offeredPerSec = perSec;
            } else {
                w.takenPerSec = perSec;
            }
            w.messages = jobs;
            w.jvmCpuPct = nodeCpuMillis / (seconds * 10);
            w.redisCpuPct = redisCpuMillis / (seconds * 10);
            w.serverCpuPct = new double[] {w.redisCpuPct};
            w.machineCpuPct = machineCpuPct;
            w.slow = slow;
            w.connections = connections;
            w.commands = commands;
            return w;
        }

        /** @return one line: rate, server CPU and script time per job, and per script call */
        String summary() {
            return String.format(Locale.ROOT, "%,.0f jobs/s; redis-server CPU %.1f µs/job; scripts %.2f calls/job, "
                    + "%.1f µs/call, %.1f µs/job", perSecond(), redisCpuMicrosPerJob(), scriptCalls() / (double) jobs,
                    scriptMicrosPerCall(), scriptMicrosPerJob());
        }
    }

    private BullMqRival() {
    }

    /** @return null if the rival can run here, else why not */
    static String unavailable() {
        return BullMqInstall.unavailable();
    }

    /**
     * @param option a harness's {@code --bullmq} option, {@code on} or {@code off}
     * @return null if the rival runs in this run (installed now if it was not), else why not: a report says so, never
     *         a made-up figure
     */
    static String unavailableIn(String option) {
        if (!option.equals("on")) {
            return "--bullmq " + option;
        }
        String why = unavailable();
        if (why != null) {
            return why;
        }
        try {
            BullMqInstall.get();
            return null;
        } catch (RuntimeException e) {
            return "its Node program could not be installed: " + e.getMessage();
        }
    }

    /**
     * Measures adds for a time after a warm-up.
     *
     * @param server        the server
     * @param queue         the BullMQ queue's name (its keys are {@code bull:<queue>:*})
     * @param producers     producer loops, each with one add in flight
     * @param delayMs       every job's delay (0: due at once)
     * @param warmupSeconds adds before the timed part (not counted)
     * @param seconds       the timed part's length
     * @return the timed part
     */
    static Run add(RedisServers.Server server, String queue, int producers, long delayMs, double warmupSeconds,
                   double seconds) {
        Objects.requireNonNull(queue, "queue");
        positive("producers", producers);
        if (!(seconds > 0) || !(warmupSeconds >= 0) || delayMs < 0) {
            throw new IllegalArgumentException("seconds must be > 0, warmupSeconds and delayMs >= 0: " + seconds
                    + ", " + warmupSeconds + ", " + delayMs);
        }
        return run(server, List.of("add", "--queue", queue, "--producers", Integer.toString(producers), "--delay-ms",
                Long.toString(delayMs), "--warmup-seconds", Double.toString(warmupSeconds), "--seconds",
                Double.toString(seconds)), (long) (warmupSeconds * 1000) + 60_000, (long) (seconds * 1000) + 60_000);
    }

    /**
     * Measures a fixed count of adds (no warm-up).
     *
     * @param server    the server
     * @param queue     the BullMQ queue's name
     * @param producers producer loops, each with one add in flight
     * @param delayMs   every job's delay (0: due at once)
     * @param count     adds in all
     * @return the timed part
     */
    static Run addCount(RedisServers.Server server, String queue, int producers, long delayMs, int count) {
        Objects.requireNonNull(queue, "queue");
        positive("producers", producers);
        positive("count", count);
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must be >= 0: " + delayMs);
        }
        return run(server, List.of("add", "--queue", queue, "--producers", Integer.toString(producers), "--delay-ms",
                Long.toString(delayMs), "--count", Integer.toString(count)), 60_000, 60_000 + count * 2L);
    }

    /**
     * Measures a BullMQ Worker draining a due backlog, on a fresh queue whose finished jobs Redis does not keep: the
     * entry point for harnesses comparing consumers.
     *
     * @param server      the server
     * @param backlog     due jobs, added before the timed part
     * @param concurrency the Worker's concurrency
     * @return the timed part (jobs/s, server CPU µs per job, script µs per call)
     */
    public static Run drain(RedisServers.Server server, int backlog, int concurrency) {
        return drain(server, "drain-" + ProcessHandle.current().pid() + "-" + QUEUES.incrementAndGet(), backlog,
                concurrency, false);
    }

    /**
     * Measures a BullMQ Worker draining a due backlog.
     *
     * @param server        the server
     * @param queue         the BullMQ queue's name
     * @param backlog       due jobs, added before the timed part
     * @param concurrency   the Worker's concurrency
     * @param keepCompleted keep completed jobs in the queue's completed set (BullMQ's default) instead of removing them
     * @return the timed part
     */
    static Run drain(RedisServers.Server server, String queue, int backlog, int concurrency, boolean keepCompleted) {
        Objects.requireNonNull(queue, "queue");
        positive("backlog", backlog);
        positive("concurrency", concurrency);
        List<String> args = new ArrayList<>(List.of("drain", "--queue", queue, "--backlog", Integer.toString(backlog),
                "--concurrency", Integer.toString(concurrency)));
        if (keepCompleted) {
            args.add("--keep-completed");
        }
        return run(server, args, 60_000 + backlog * 2L, 60_000 + backlog * 5L);
    }

    private static void positive(String name, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1: " + value);
        }
    }

    private static Run run(RedisServers.Server server, List<String> modeArgs, long readyTimeoutMs,
                           long resultTimeoutMs) {
        Objects.requireNonNull(server, "server");
        BullMqInstall install = BullMqInstall.get();
        List<String> args = new ArrayList<>(modeArgs);
        args.addAll(List.of("--port", Integer.toString(server.port), "--handshake"));
        Path stderr = null;
        Process p = null;
        try {
            stderr = Files.createTempFile("bullmq-rival-", ".stderr");
            p = new ProcessBuilder(install.command(args)).directory(install.dir.toFile())
                    .redirectError(stderr.toFile()).start();
            BlockingQueue<String> lines = lines(p);
            Process proc = p;
            Path err = stderr;
            expect(lines, readyTimeoutMs, proc, err, "{\"phase\":\"ready\"}");
            server.call("CONFIG", "RESETSTAT");
            server.call("SLOWLOG", "RESET");
            long redis0 = server.cpuMillis();
            long node0 = RedisServers.cpuMillis(p.pid());
            long[] machine0 = Window.machineTicks();
            OutputStream in = p.getOutputStream();
            in.write("go\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
            String result = next(lines, resultTimeoutMs, proc, err);
            long redis1 = server.cpuMillis();
            long node1 = RedisServers.cpuMillis(p.pid());
            long[] machine1 = Window.machineTicks();
            Map<String, long[]> commands = ServerTime.commandStats(server);
            long slow = (Long) server.call("SLOWLOG", "LEN");
            long connections = Long.parseLong(Window.infoField(server, "stats", "total_connections_received").trim());
            in.close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the BullMQ rival did not exit 30 s after its result: " + tail(err));
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("the BullMQ rival exited with " + p.exitValue() + ": " + tail(err));
            }
            Map<String, String> r = fields(result);
            String mode = r.get("mode");
            long jobs = Long.parseLong(r.get(mode.equals("add") ? "adds" : "jobs"));
            double secs = Double.parseDouble(r.get("seconds"));
            double machine = machine0[0] < 0 || machine1[0] < 0 ? -1 : (machine1[0] - machine0[0]) / secs;
            return new Run(mode, jobs, secs, redis1 - redis0, node1 - node0, machine, commands, slow, connections,
                    "BullMQ " + r.get("bullmq") + ", ioredis " + r.get("ioredis") + ", Node " + r.get("node"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run the BullMQ rival", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the BullMQ rival ran", e);
        } finally {
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
            }
            if (stderr != null) {
                try {
                    Files.deleteIfExists(stderr);
                } catch (IOException ignored) {
                    // a temporary file left behind is harmless
                }
            }
        }
    }

    /** The program's stdout, line by line, ending with {@link #EOF}. */
    private static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException ignored) {
                // the process ended; EOF below says so
            } finally {
                lines.add(EOF);
            }
        }, "bullmq-rival-stdout");
        t.setDaemon(true);
        t.start();
        return lines;
    }

    private static void expect(BlockingQueue<String> lines, long timeoutMs, Process p, Path err, String expected)
            throws InterruptedException {
        String line = next(lines, timeoutMs, p, err);
        if (!line.equals(expected)) {
            throw new IllegalStateException("the BullMQ rival printed " + line + " where " + expected + " was due");
        }
    }

    private static String next(BlockingQueue<String> lines, long timeoutMs, Process p, Path err)
            throws InterruptedException {
        String line = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (line == null) {
            throw new IllegalStateException("the BullMQ rival printed nothing for " + timeoutMs + " ms: " + tail(err));
        }
        if (line.equals(EOF)) {
            p.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("the BullMQ rival ended early" + (p.isAlive() ? "" : " with status "
                    + p.exitValue()) + ": " + tail(err));
        }
        return line;
    }

    private static String tail(Path err) {
        try {
            String s = Files.readString(err, StandardCharsets.UTF_8).strip();
            if (s.isEmpty()) {
                return "(nothing on stderr)";
            }
            return s.length() <= 2000 ? s : "..." + s.substring(s.length() - 2000);
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    /** The fields of the program's flat JSON result line, as strings (quotes removed). */
    static Map<String, String> fields(String json) {
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher m = FIELD.matcher(json);
        while (m.find()) {
            String v = m.group(2);
            fields.put(m.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
        }
        if (!fields.containsKey("mode") || !fields.containsKey("seconds")) {
            throw new IllegalStateException("not a result of the BullMQ rival: " + json);
        }
        return fields;
    }

    /**
     * Drains a due backlog with a BullMQ Worker at each concurrency, on a {@code redis-server} of its own; prints each
     * run and a table of medians.
     *
     * @param args {@code --backlog n --concurrency c1,c2 --rounds n --redis-server path}
     */
    public static void main(String[] args) {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("backlog", "100000");
        defaults.put("concurrency", "4,50");
        defaults.put("rounds", "1");
        defaults.put("redis-server", "redis-server");
        Harness opts = new Harness(args, defaults);
        String why = unavailable();
        if (why != null) {
            System.out.println("BullMQ drain not run: " + why);
            System.exit(2);
        }
        int backlog = opts.getInt("backlog");
        Map<Integer, List<Run>> runs = new LinkedHashMap<>();
        try (RedisServers servers = new RedisServers(opts.get("redis-server"))) {
            RedisServers.Server server = servers.standalone();
            System.out.println("# BullMQ Worker draining " + backlog + " due jobs (redis " + servers.version() + ", "
                    + Runtime.getRuntime().availableProcessors() + " cores)");
            for (int r = 0; r < opts.getInt("rounds"); r++) {
                List<String> order = new ArrayList<>(opts.list("concurrency"));
                if (r % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String c : order) {
                    int concurrency = Integer.parseInt(c.trim());
                    server.call("FLUSHALL");
                    Run run = drain(server, backlog, concurrency);
                    runs.computeIfAbsent(concurrency, k -> new ArrayList<>()).add(run);
                    System.out.println("  round " + r + " c" + concurrency + ": " + run.summary() + " ("
                            + run.versions() + ")");
                }
            }
        }
        System.out.println();
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((c, l) -> {
            Run m = l.stream().sorted((a, b) -> Double.compare(a.perSecond(), b.perSecond())).toList()
                    .get(l.size() / 2);
            rows.add(List.of("BullMQ Worker c" + c, String.format(Locale.ROOT, "%,.0f", m.perSecond()),
                    String.format(Locale.ROOT, "%.1f", m.redisCpuMicrosPerJob()),
                    String.format(Locale.ROOT, "%.2f", m.scriptCalls() / (double) m.jobs()),
                    String.format(Locale.ROOT, "%.1f", m.scriptMicrosPerCall()),
                    String.format(Locale.ROOT, "%.1f", m.scriptMicrosPerJob())));
        });
        Harness.printTable(List.of("consumer", "jobs/s (median round)", "redis-server CPU µs/job",
                "script calls/job", "µs/script call", "script µs/job"), rows);
        System.exit(0);
    }
}
