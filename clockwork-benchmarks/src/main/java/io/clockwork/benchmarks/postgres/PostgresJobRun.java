package io.clockwork.benchmarks.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.benchmarks.Harness;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One rival's phases of {@link PostgresJobHarness}, in a JVM of its own on the harness's server, each phase on a fresh
 * database of its own (dropped after it): {@code e2e} (offer {@code --jobs} due jobs one transaction each from
 * {@code --threads} threads with the worker stopped, then start the worker and drain them; a drain ends when the
 * last job is completed: acked, deleted or marked done), {@code pending} (fill
 * one database with {@code --small-pending} and one with {@code --pending} far-future jobs through the batch API, size
 * their tables, then drain {@code --due} due jobs from each, the order alternating by round, timed from the first
 * job handled to the last completed, so that a worker's start and first poll do not count) and {@code lateness}
 * (jobs due 100-1000 ms ahead, offered one by one at {@code --lateness-rate} per second for
 * {@code --lateness-seconds}, the worker running). Every phase also reads the server's CPU before and after. Results
 * are {@link Harness#ROW} lines on standard output: the rival's name, a key, then values. Not thread-safe: a
 * {@code main}.
 */
final class PostgresJobRun {

    /** Far-future jobs carry ids from here up, outside every phase's expected range. */
    private static final int FAR_IDS = 100_000_000;
    private static final Duration FAR = Duration.ofDays(30);
    private static final int BATCH = 1000;
    private static final int STATEMENTS = 5;
    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(30);

    private final Harness opts;
    private final String rival;
    private final int threads;
    private final Databases dbs;
    private final Optional<PostgresCpu> cpu;
    private final boolean statements;
    private final HandledJobs sink = new HandledJobs();

    private PostgresJobRun(Harness opts) {
        this.opts = opts;
        this.rival = opts.get("rival");
        this.threads = opts.getInt("threads");
        this.dbs = new Databases(opts.getInt("port"));
        this.cpu = dbs.cpu();
        this.statements = dbs.hasStatements();
    }

    /**
     * Runs the phases of {@code --phases} for {@code --rival} on the server at {@code --port}.
     *
     * @param args the harness's options
     */
    public static void main(String[] args) throws Exception {
        new PostgresJobRun(new Harness(args, PostgresJobHarness.DEFAULTS)).run();
        System.exit(0); // the rivals' pools and schedulers may leave non-daemon threads behind
    }

    private void run() throws Exception {
        row("version", JobRival.version(rival));
        for (String phase : opts.list("phases")) {
            switch (phase) {
                case "e2e":
                    for (int r = 0; r < opts.getInt("rounds"); r++) {
                        endToEnd(r);
                    }
                    break;
                case "pending":
                    pending();
                    break;
                case "lateness":
                    lateness();
                    break;
                default:
                    throw new IllegalArgumentException("--phases: unknown phase '" + phase
                            + "'; known: e2e, pending, lateness");
            }
        }
    }

    private void endToEnd(int round) throws Exception {
        int jobs = opts.getInt("jobs");
        String db = database("e2e_" + round);
        dbs.create(db);
        try (HikariDataSource pool = dbs.pool(db, poolSize());
             JobRival r = JobRival.open(rival, pool, threads, sink)) {
            row("api", r.api());
            if (round == 0 && statements) {
                dbs.resetStatements(db);
            }
            sink.expect(jobs);
            Meter offers = new Meter();
            offerEach(r, jobs);
            Meter drain = new Meter();
            r.start();
            sink.awaitAll(DRAIN_LIMIT);
            r.awaitCompleted(jobs, DRAIN_LIMIT);
            Meter end = new Meter();
            r.stop();
            row("e2e", round, jobs, sink.count(), sink.repeats(), perSecond(jobs, offers, drain),
                    perSecond(jobs, offers, end), perSecond(jobs, drain, end), cost(offers, drain, jobs),
                    cost(drain, end, jobs));
            if (round == 0) {
                topStatements("statement", db, jobs);
            }
        } finally {
            dbs.drop(db);
        }
    }

    /** Rows of {@code key}: the database's top statements since its reset, per job, if the server tracks them. */
    private void topStatements(String key, String db, int jobs) {
        if (!statements) {
            return;
        }
        for (String[] s : dbs.topStatements(db, STATEMENTS)) {
            row(key, Long.parseLong(s[0]) / (double) jobs, Double.parseDouble(s[1]) * 1000 / jobs, oneLine(s[2]));
        }
    }

    private void pending() throws Exception {
        int[] sizes = {opts.getInt("small-pending"), opts.getInt("pending")};
        String[] names = {database("pending_small"), database("pending_large")};
        try {
            for (int k = 0; k < 2; k++) {
                dbs.create(names[k]);
                fill(names[k], sizes[k]);
            }
            for (int round = 0; round < opts.getInt("rounds"); round++) {
                for (int j = 0; j < 2; j++) {
                    int k = (round + j) % 2;
                    drainDue(names[k], sizes[k], round);
                }
            }
        } finally {
            for (String db : names) {
                dbs.drop(db);
            }
        }
    }

    private void fill(String db, int count) throws Exception {
        Instant due = Instant.now().plus(FAR);
        try (HikariDataSource pool = dbs.pool(db, poolSize());
             JobRival r = JobRival.open(rival, pool, threads, sink)) {
            Meter start = new Meter();
            forEachThread(t -> {
                for (int from = t * BATCH; from < count; from += threads * BATCH) {
                    r.offerAll(FAR_IDS + from, Math.min(BATCH, count - from), due);
                }
            });
            Meter end = new Meter();
            long bytes = dbs.tableBytes(db);
            row("fill", count, perSecond(count, start, end), bytes, bytes / (double) count);
        }
    }

    private void drainDue(String db, int pending, int round) throws Exception {
        int due = opts.getInt("due");
        try (HikariDataSource pool = dbs.pool(db, poolSize());
             JobRival r = JobRival.open(rival, pool, threads, sink)) {
            sink.expect(due);
            Instant now = Instant.now();
            for (int from = 0; from < due; from += BATCH) {
                r.offerAll(from, Math.min(BATCH, due - from), now);
            }
            Meter start = new Meter();
            r.start();
            sink.awaitAll(DRAIN_LIMIT);
            r.awaitCompleted(due, DRAIN_LIMIT);
            Meter end = new Meter();
            r.stop();
            long first = Long.MAX_VALUE;
            for (int i = 0; i < due; i++) {
                first = Math.min(first, sink.firstRun(i));
            }
            double steady = (due - 1) / ((end.wall - first) / 1e9);
            row("pending-drain", pending, round, due, sink.count(), steady, cost(start, end, due),
                    perSecond(due, start, end));
        }
    }

    private void lateness() throws Exception {
        int rate = opts.getInt("lateness-rate");
        int jobs = rate * opts.getInt("lateness-seconds");
        String db = database("lateness");
        dbs.create(db);
        try (HikariDataSource pool = dbs.pool(db, poolSize());
             JobRival r = JobRival.open(rival, pool, threads, sink)) {
            if (statements) {
                dbs.resetStatements(db);
            }
            sink.expect(jobs);
            r.start();
            Thread.sleep(1000); // the worker settles (a server announcing itself, a first poll) before the clock runs
            Random random = new Random(44);
            long[] due = new long[jobs];
            Meter start = new Meter();
            for (int i = 0; i < jobs; i++) {
                long at = start.wall + i * 1_000_000_000L / rate;
                while (System.nanoTime() - at < 0) {
                    LockSupport.parkNanos(at - System.nanoTime());
                }
                long delayMs = 100 + random.nextInt(901);
                long now = System.nanoTime();
                Instant dueAt = Instant.now().plusMillis(delayMs);
                due[i] = now + delayMs * 1_000_000;
                r.offer(i, dueAt);
            }
            sink.awaitAll(Duration.ofMinutes(2));
            r.awaitCompleted(jobs, Duration.ofMinutes(2));
            Meter end = new Meter();
            r.stop();
            long[] late = new long[jobs];
            int early = 0;
            for (int i = 0; i < jobs; i++) {
                late[i] = sink.firstRun(i) - due[i];
                early += late[i] < 0 ? 1 : 0;
            }
            Arrays.sort(late);
            row("lateness", jobs, sink.count(), ms(percentile(late, 0.50)), ms(percentile(late, 0.99)),
                    ms(late[jobs - 1]), early, cost(start, end, jobs));
            topStatements("statement-lateness", db, jobs);
        } finally {
            dbs.drop(db);
        }
    }

    /** Offers jobs 0 to {@code jobs - 1}, due now, one transaction each, from {@link #threads} threads. */
    private void offerEach(JobRival r, int jobs) throws Exception {
        forEachThread(t -> {
            for (int id = t; id < jobs; id += threads) {
                r.offer(id, Instant.now());
            }
        });
    }

    private interface ThreadBody {
        void run(int thread) throws Exception;
    }

    private void forEachThread(ThreadBody body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    body.run(thread);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private int poolSize() {
        return 2 * threads + 8;
    }

    private String database(String phase) {
        return "bench_" + rival.replaceAll("[^a-z0-9]", "") + "_" + phase;
    }

    private void row(Object... values) {
        StringBuilder sb = new StringBuilder(Harness.ROW).append(rival);
        for (Object v : values) {
            sb.append('\t').append(v instanceof Double ? String.format(Locale.ROOT, "%.3f", (Double) v) : v);
        }
        System.out.println(sb);
        System.out.flush();
    }

    private static double perSecond(int jobs, Meter from, Meter to) {
        return jobs / ((to.wall - from.wall) / 1e9);
    }

    /** @return "server µs/job;JVM µs/job" between two readings; the server's part is -1 without /proc */
    private static String cost(Meter from, Meter to, int jobs) {
        double server = from.server < 0 || to.server < 0 ? -1 : (to.server - from.server) * 1000.0 / jobs;
        double jvm = (to.jvm - from.jvm) / 1000.0 / jobs;
        return String.format(Locale.ROOT, "%.1f;%.1f", server, jvm);
    }

    private static long percentile(long[] sorted, double p) {
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static String oneLine(String sql) {
        String s = sql.replaceAll("\\s+", " ").replace("|", "\\|").trim();
        return s.length() > 160 ? s.substring(0, 157) + "..." : s;
    }

    /** A reading of the wall clock, the server's CPU (ms, -1 if unknown) and this JVM's CPU (ns). */
    private final class Meter {
        final long wall = System.nanoTime();
        final long server = cpu.map(PostgresCpu::millis).orElse(-1L);
        final long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
