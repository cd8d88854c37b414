package io.clockwork.redis;

import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.schedule.FirePlan;
import io.clockwork.schedule.Misfire;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.schedule.Schedules;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.clockwork.redis.ScriptArgs.arg;

/**
 * {@link Schedules} kept in Redis beside a {@link RedisDelayedQueue}, shared by every client of the queue: any number
 * of processes may run schedulers on the same schedules, and each fire time is stored once. Thread-safe.
 *
 * <h2>Design</h2>
 * A schedule lives in the partition its name hashes to, in four keys of that partition's hash tag
 * ({@link KeyLayout.Key#SCHED_DEF} and the three after it): its definition (rule, misfire policy, spread), its message
 * (the tail every occurrence carries), its state ({@code <version> <paused> <next> <last> <outstanding>}) and its place
 * in a sorted set of when a scheduler should next look at it. Its occurrences' ids, {@code <name>@<fire ms>}, get a
 * suffix {@code ~<n>} (the smallest n that works) when needed to hash to the same partition, so that one script stores
 * them and moves the schedule atomically.
 * <ul>
 *   <li><b>A pass</b> ({@link #fireDue()}): per partition, {@code sched_due.lua} returns the schedules due by the
 *   server's clock with their definitions, states and that clock; the client plans each one's fire times
 *   ({@link FirePlan}, on the server's timeline) and {@code sched_fire.lua} stores them and advances the schedule
 *   only if its version is still the one read. Rules are parsed in Java (cron has no Lua implementation), which is
 *   why planning and storing are two calls and the second compares versions.</li>
 *   <li><b>Exactly once</b>: versions only grow and fire times only move forward, and {@code sched_fire.lua} also
 *   never stores a fire time at or before the schedule's last one, so a scheduler that read an old state, or one that
 *   runs after an occurrence was acked, stores nothing. A scheduler that loses the race reads the new state in its
 *   next pass, so nothing is skipped either.</li>
 *   <li><b>Administration</b> reads with {@code sched_get.lua} and writes with {@code sched_write.lua}, also by
 *   compare-and-set on the version, retrying on a conflict.</li>
 *   <li><b>Background passes</b> ({@link #start()}): a daemon thread runs a pass, then sleeps until the earliest
 *   schedule is due by the server's clock, at most the poll interval (default 100 ms, so schedules another client
 *   adds are seen within it), and is woken at once by this client's own {@link #put} and {@link #resume}.</li>
 * </ul>
 *
 * @param <V> the queue's value type
 */
public final class RedisSchedules<V> implements Schedules<V> {

    /** The default {@code pollInterval}. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);
    /** The most schedules one {@code sched_due.lua} call returns, and so one {@code sched_fire.lua} call handles. */
    static final int DUE_BATCH = 200;
    private static final int SCAN_PAGE = 500;
    private static final System.Logger LOG = System.getLogger(RedisSchedules.class.getName());
    private static final String NONE = "-";

    private final RedisDelayedQueue<V> queue;
    private final QueueSupport<V> support;
    private final Partitions partitions;
    private final ScriptRunner runner;
    private final long thresholdMs;
    private final long pollMs;
    private final ConcurrentHashMap<String, Definition> definitions = new ConcurrentHashMap<>();
    private final Object lifecycle = new Object();
    private Thread thread; // guarded by lifecycle
    private volatile boolean closed;

    private RedisSchedules(Builder<V> b) {
        this.queue = b.queue;
        this.support = queue.support();
        this.partitions = queue.routing();
        this.runner = queue.runner();
        this.thresholdMs = b.misfireThreshold.toMillis();
        this.pollMs = b.pollInterval.toMillis();
    }

    /** Runs a schedule script on partition p with the keys it takes. */
    private <T> T run(String operation, Script script, int p, byte[]... args) {
        return runner.run(operation, script, partitions.keys(script, p), args);
    }

    /**
     * Starts a builder.
     *
     * @param queue the queue the occurrences go to; its schedules live beside its keys
     * @param <V>   its value type
     * @return a builder with {@link #DEFAULT_MISFIRE_THRESHOLD} and {@link #DEFAULT_POLL_INTERVAL}
     */
    public static <V> Builder<V> builder(RedisDelayedQueue<V> queue) {
        return new Builder<>(queue);
    }

    @Override
    public ScheduleInfo put(Schedule<? extends V> schedule) {
        Objects.requireNonNull(schedule, "schedule");
        checkOpen();
        @SuppressWarnings("unchecked")
        Schedule<V> s = (Schedule<V>) schedule;
        String name = s.name();
        String def = s.rule().spec() + "\n" + s.misfire().spec() + "\n" + s.spread().toMillis();
        if (Priorities.prioritized(s.headers())) {
            queue.priorities().all(); // an occurrence may land in any partition
        }
        queue.groups().beforeSchedule(name, partitionOf(name), s.headers());
        byte[] tail = Tail.of(s.headers(), support.encode(s.value()));
        int p = partitionOf(name);
        while (true) {
            Read r = read(p, name, true);
            String written;
            if (r.state == null) {
                long next = FirePlan.after(s.rule(), r.now);
                written = write(p, name, "", def, tail, "0", ms(next), NONE, "", ms(next));
            } else if (r.def.equals(def) && Arrays.equals(r.tail, tail)) {
                return r.info(name);
            } else if (r.definition().rule().equals(s.rule())) {
                written = write(p, name, r.state.version, def, tail, r.state.pausedFlag, r.state.next, r.state.last,
                        r.state.outstanding, "=");
            } else {
                if (!r.state.paused() && !fireOne(p, name, r)) {
                    continue; // someone moved it meanwhile: read again
                }
                Read now = read(p, name, false);
                if (now.state == null) {
                    continue;
                }
                long from = now.state.last.equals(NONE) ? now.now : Math.max(Long.parseLong(now.state.last), now.now);
                long next = FirePlan.after(s.rule(), from);
                written = write(p, name, now.state.version, def, tail, now.state.pausedFlag, ms(next), now.state.last, "",
                        now.state.paused() ? "" : ms(next));
            }
            if (written != null) {
                wake();
                return get(name).orElseThrow();
            }
        }
    }

    @Override
    public boolean pause(String name) {
        Schedule.checkName(name);
        checkOpen();
        int p = partitionOf(name);
        while (true) {
            Read r = read(p, name, true);
            if (r.state == null || r.state.paused()) {
                return false;
            }
            if (write(p, name, r.state.version, r.def, r.tail, "1", r.state.next, r.state.last, r.state.outstanding,
                    "") != null) {
                return true;
            }
        }
    }

    @Override
    public boolean resume(String name) {
        Schedule.checkName(name);
        checkOpen();
        int p = partitionOf(name);
        while (true) {
            Read r = read(p, name, true);
            if (r.state == null || !r.state.paused()) {
                return false;
            }
            long from = r.state.last.equals(NONE) ? r.now : Math.max(Long.parseLong(r.state.last), r.now);
            long next = FirePlan.after(r.definition().rule(), from);
            if (write(p, name, r.state.version, r.def, r.tail, "0", ms(next), r.state.last, "", ms(next)) != null) {
                wake();
                return true;
            }
        }
    }

    @Override
    public boolean delete(String name) {
        Schedule.checkName(name);
        checkOpen();
        int p = partitionOf(name);
        while (true) {
            Read r = read(p, name, false);
            if (r.state == null) {
                return false;
            }
            Long done = run("deleteSchedule", Script.SCHED_WRITE, p, arg(name), arg(r.state.version),
                    arg("delete"));
            if (done != 0) {
                return true;
            }
        }
    }

    @Override
    public Optional<ScheduleInfo> get(String name) {
        Schedule.checkName(name);
        Read r = read(partitionOf(name), name, false);
        return r.state == null ? Optional.empty() : Optional.of(r.info(name));
    }

    @Override
    public List<ScheduleInfo> list() {
        Map<String, ScheduleInfo> all = new TreeMap<>(); // HSCAN may return a field twice while the hash rehashes
        for (int p = 0; p < partitions.count(); p++) {
            String cursor = "0";
            do {
                List<Object> page = run("listSchedules", Script.SCHED_SCAN, p, arg(cursor),
                        arg(SCAN_PAGE));
                cursor = string(page.get(0));
                for (int i = 1; i < page.size(); i += 3) {
                    if (page.get(i + 2) == null) {
                        continue; // deleted between the scan and the read
                    }
                    String name = string(page.get(i));
                    Read r = new Read(0, string(page.get(i + 1)), State.of(string(page.get(i + 2))), null);
                    all.put(name, r.info(name));
                }
            } while (!cursor.equals("0"));
        }
        return new ArrayList<>(all.values());
    }

    @Override
    public int fireDue() {
        checkOpen();
        int fired = 0;
        for (int p = 0; p < partitions.count(); p++) {
            fired += firePartition(p, new long[1]);
        }
        return fired;
    }

    @Override
    public RedisSchedules<V> start() {
        synchronized (lifecycle) {
            checkOpen();
            if (thread == null) {
                thread = new Thread(this::run, "clockwork-schedules-" + support.name());
                thread.setDaemon(true);
                thread.start();
            }
        }
        return this;
    }

    @Override
    public void close() {
        Thread t;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
        }
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(TimeUnit.NANOSECONDS.toMillis(runner.timeoutNanos()) + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "RedisSchedules[" + support.name() + "]";
    }

    private void run() {
        while (!closed) {
            long sleepMs = pollMs;
            try {
                for (int p = 0; p < partitions.count() && !closed; p++) {
                    long[] untilNext = {-1};
                    firePartition(p, untilNext);
                    if (untilNext[0] >= 0) {
                        sleepMs = Math.min(sleepMs, untilNext[0]);
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, () -> this + ": a pass failed (" + e + "); retrying in "
                        + pollMs + " ms", e);
                sleepMs = pollMs;
            }
            if (sleepMs > 0 && !closed) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(sleepMs));
            }
        }
    }

    /** One partition's pass; {@code untilNext[0]} gets the ms until its next schedule is due (-1: none). */
    private int firePartition(int p, long[] untilNext) {
        int fired = 0;
        while (true) {
            List<Object> due = run("fireDue", Script.SCHED_DUE, p, arg(DUE_BATCH));
            long now = (Long) due.get(0);
            untilNext[0] = (Long) due.get(1);
            if (due.size() == 2) {
                return fired;
            }
            List<byte[]> args = new ArrayList<>();
            args.add(queue.settingsArg());
            args.add(arg(pollMs));
            for (int i = 2; i < due.size(); i += 3) {
                if (due.get(i + 1) == null || due.get(i + 2) == null) {
                    continue;
                }
                String name = string(due.get(i));
                Definition d = definition(string(due.get(i + 1)));
                if (d == null) {
                    continue;
                }
                plan(p, name, d, State.of(string(due.get(i + 2))), now, args);
            }
            if (args.size() == 2) {
                return fired;
            }
            List<Object> r = run("fireDue", Script.SCHED_FIRE, p, args.toArray(new byte[0][]));
            boolean progress = false;
            for (int i = 0; i < r.size() - 1; i++) {
                long n = (Long) r.get(i);
                if (n >= 0) {
                    fired += (int) n;
                    progress = true;
                }
            }
            if ((Long) r.get(r.size() - 1) == 1L) {
                queue.signals().push();
            }
            if (untilNext[0] != 0 || !progress) {
                return fired; // all due ones handled, or other schedulers are moving them: their pass goes on
            }
        }
    }

    /** Adds one schedule's group of sched_fire.lua arguments. */
    private void plan(int p, String name, Definition d, State s, long now, List<byte[]> args) {
        long spread = Schedule.offsetMillis(name, d.spreadMs);
        if (d.rule.delayAfterCompletion().isPresent()) {
            args.add(arg("d"));
            args.add(arg(name));
            args.add(arg(s.version));
            args.add(arg(d.rule.delayAfterCompletion().get().toMillis()));
            if (s.next.equals(NONE)) {
                args.add(arg(""));
                args.add(arg(0));
            } else {
                long fire = Long.parseLong(s.next);
                args.add(arg(occurrenceId(name, fire, p)));
                args.add(arg(fire + spread));
            }
            return;
        }
        FirePlan plan = FirePlan.of(d.rule, d.misfire, Long.parseLong(s.next), now, thresholdMs);
        args.add(arg("r"));
        args.add(arg(name));
        args.add(arg(s.version));
        args.add(arg(ms(plan.next())));
        args.add(arg(plan.fireTimes().length));
        for (long t : plan.fireTimes()) {
            args.add(arg(t));
            args.add(arg(occurrenceId(name, t, p)));
            args.add(arg(t + spread));
        }
    }

    /** Fires what one schedule has due under the state read; returns false if its version moved meanwhile. */
    private boolean fireOne(int p, String name, Read r) {
        if (r.state.next.equals(NONE) && r.state.outstanding.isEmpty()) {
            return true;
        }
        if (!r.state.next.equals(NONE) && Long.parseLong(r.state.next) > r.now
                && r.definition().rule().delayAfterCompletion().isEmpty()) {
            return true; // nothing due
        }
        List<byte[]> args = new ArrayList<>();
        args.add(queue.settingsArg());
        args.add(arg(pollMs));
        plan(p, name, r.definition(), r.state, r.now, args);
        List<Object> reply = run("putSchedule", Script.SCHED_FIRE, p, args.toArray(new byte[0][]));
        if ((Long) reply.get(reply.size() - 1) == 1L) {
            queue.signals().push();
        }
        return (Long) reply.get(0) >= 0;
    }

    /**
     * The id of a schedule's occurrence at a fire time: {@code <name>@<fire ms>}, with {@code ~<n>} added for the
     * smallest n that makes it hash to the schedule's partition when the plain id does not.
     */
    String occurrenceId(String name, long fireMs, int p) {
        String id = Occurrence.id(name, fireMs);
        if (partitions.of(id) == p) {
            return id;
        }
        for (int n = 1; ; n++) {
            String candidate = id + "~" + n;
            if (partitions.of(candidate) == p) {
                return candidate;
            }
        }
    }

    private int partitionOf(String name) {
        return partitions.of(name);
    }

    private Read read(int p, String name, boolean withTail) {
        List<Object> r = run("getSchedule", Script.SCHED_GET, p, arg(withTail ? "1" : "0"), arg(name));
        if (r.get(2) == null) {
            return new Read((Long) r.get(0), null, null, null);
        }
        return new Read((Long) r.get(0), string(r.get(1)), State.of(string(r.get(2))), (byte[]) r.get(3));
    }

    /** Runs sched_write.lua's put; returns the new version, or null if the version read had moved on. */
    private String write(int p, String name, String version, String def, byte[] tail, String paused, String next,
                         String last, String outstanding, String look) {
        Long v = run("putSchedule", Script.SCHED_WRITE, p, arg(name), arg(version), arg("put"), arg(def),
                tail, arg(paused), arg(next), arg(last), arg(outstanding), arg(look));
        return v == 0 ? null : Long.toString(v);
    }

    private void wake() {
        Thread t;
        synchronized (lifecycle) {
            t = thread;
        }
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private Definition definition(String def) {
        Definition d = definitions.get(def);
        if (d != null) {
            return d;
        }
        try {
            d = Definition.of(def);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, () -> this + ": cannot read a stored schedule (" + e.getMessage()
                    + "); it is skipped");
            return null;
        }
        if (definitions.size() > 100_000) {
            definitions.clear();
        }
        definitions.put(def, d);
        return d;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private static String ms(long t) {
        return t == FirePlan.NEVER ? NONE : Long.toString(t);
    }

    private static String string(Object bulk) {
        return bulk instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(bulk);
    }

    /** A stored definition, parsed. */
    private record Definition(ScheduleRule rule, Misfire misfire, long spreadMs) {
        static Definition of(String def) {
            String[] parts = def.split("\n", -1);
            return new Definition(ScheduleRule.parse(parts[0]), Misfire.parse(parts[1]), Long.parseLong(parts[2]));
        }
    }

    /** A stored state (see {@code include/sched_state.lua}). */
    private record State(String version, String pausedFlag, String next, String last, String outstanding) {
        static State of(String v) {
            String[] f = v.split(" ", 5);
            return new State(f[0], f[1], f[2], f[3], f.length > 4 ? f[4] : "");
        }

        boolean paused() {
            return pausedFlag.equals("1");
        }
    }

    /** What sched_get.lua returned for one schedule, with the server's clock. */
    private record Read(long now, String def, State state, byte[] tail) {
        Definition definition() {
            return Definition.of(def);
        }

        ScheduleInfo info(String name) {
            String[] parts = def.split("\n", -1);
            Optional<Instant> last = state.last.equals(NONE) ? Optional.empty()
                    : Optional.of(Instant.ofEpochMilli(Long.parseLong(state.last)));
            Optional<Instant> next = state.paused() || state.next.equals(NONE) ? Optional.empty()
                    : Optional.of(Instant.ofEpochMilli(Long.parseLong(state.next)));
            return new ScheduleInfo(name, parts[0], parts[1], state.paused(), last, next);
        }
    }

    /**
     * Builds {@link RedisSchedules}. Not thread-safe: configure on one thread, then {@link #build()}.
     *
     * @param <V> the queue's value type
     */
    public static final class Builder<V> {
        private final RedisDelayedQueue<V> queue;
        private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;

        private Builder(RedisDelayedQueue<V> queue) {
            this.queue = Objects.requireNonNull(queue, "queue");
        }

        /**
         * @param threshold how late a fire time may be found before it counts as missed ({@link Misfire}); at least
         *                  1 ms
         * @return this
         */
        public Builder<V> misfireThreshold(Duration threshold) {
            this.misfireThreshold = checkPositive("misfireThreshold", threshold);
            return this;
        }

        /**
         * @param interval the longest a started scheduler sleeps between passes (how soon it sees schedules other
         *                 clients add), and how often a fixed-delay schedule with a live occurrence is looked at; at
         *                 least 1 ms
         * @return this
         */
        public Builder<V> pollInterval(Duration interval) {
            this.pollInterval = checkPositive("pollInterval", interval);
            return this;
        }

        /** @return the schedules, not yet started */
        public RedisSchedules<V> build() {
            return new RedisSchedules<>(this);
        }

        private static Duration checkPositive(String argument, Duration d) {
            Objects.requireNonNull(d, argument);
            if (d.toMillis() < 1) {
                throw new IllegalArgumentException(argument + " must be at least 1 ms, was " + d);
            }
            return d;
        }
    }
}
