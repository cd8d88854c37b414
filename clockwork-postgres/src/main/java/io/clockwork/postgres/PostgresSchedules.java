package io.clockwork.postgres;

import io.clockwork.postgres.ScheduleStore.Definition;
import io.clockwork.postgres.ScheduleStore.Row;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.schedule.FirePlan;
import io.clockwork.schedule.Misfire;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.schedule.Schedules;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@link Schedules} kept in PostgreSQL beside a {@link PostgresDelayedQueue}, in its schema and on its
 * {@link javax.sql.DataSource}, shared by every client of the queue: any number of processes may run schedulers on
 * the same schedules, and each fire time is stored once. Thread-safe.
 *
 * <h2>Design</h2>
 * One row per schedule in {@code clockwork_schedules} ({@code V2__schedules.sql}, applied with the queue's schema):
 * definition (rule, misfire policy, spread), message (the codec's bytes and the headers) and state (paused, next and
 * last fire time, a fixed-delay schedule's outstanding occurrence, and {@code look_at}: when a scheduler should next
 * look at it). The SQL units are in {@code ScheduleSql}, run by {@code ScheduleStore}.
 * <ul>
 *   <li><b>A pass</b> ({@link #fireDue()}) is one transaction per batch: it locks the schedules whose {@code look_at}
 *   has come by the database's clock with {@code FOR UPDATE SKIP LOCKED}, plans each one's fire times in Java
 *   ({@link FirePlan}, the misfire policy, on the database's timeline: rules are parsed in Java, cron included),
 *   offers each occurrence through the queue's transactional
 *   {@link PostgresDelayedQueue#offer(java.sql.Connection, Message)} with the id {@code <name>@<fire ms>} under the
 *   keep policy, and moves the schedule on; all of it commits together or not at all.</li>
 *   <li><b>Exactly once</b>: a schedule is fired only under its row lock, on the row's latest committed state, and
 *   fire times only move forward; an occurrence at or before the row's last fire time is never offered again, even
 *   after its message was acked. Concurrent passes skip the rows another holds and never wait on each other; a
 *   pass that rolls back (a database failure) leaves the schedule as it was, for the next pass.</li>
 *   <li><b>Administration</b> ({@link #put}, {@link #pause}, {@link #resume}) locks the row (waiting for a pass that
 *   holds it) and writes in one transaction; a put that changes the rule first fires what the old rule has due.</li>
 *   <li><b>Background passes</b> ({@link #start()}): a daemon thread runs a pass, then sleeps until the earliest
 *   {@code look_at} by the database's clock (at most {@link #MAX_SLEEP}), or until a {@code NOTIFY} on the
 *   schedules' channel, which every put and resume sends at commit, from any client. It holds one connection of the
 *   pool for its {@code LISTEN}. While the database is unreachable it retries with a growing pause, and logs once
 *   when the outage starts and once when passes run again.</li>
 * </ul>
 *
 * <p>docs/postgres-queue.md ("Schedules") describes the table and the passes.
 *
 * @param <V> the queue's value type
 */
public final class PostgresSchedules<V> implements Schedules<V> {

    /** The default {@code pollInterval}. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);
    /** The longest a started scheduler sleeps without a notification before it looks again. */
    public static final Duration MAX_SLEEP = Duration.ofSeconds(1);
    /** The most schedules one pass's transaction fires. */
    static final int DUE_BATCH = 200;
    /** The pause before a schedule this client cannot read (unknown rule kind, undecodable value) is seen again. */
    private static final long UNREADABLE_RETRY_MS = 1000;
    /** The pause of a poller whose due schedules are all held by other passes. */
    private static final long LOCKED_MS = 10;
    private static final long MAX_BACKOFF_MS = 1000;
    /**
     * A pass that fails this soon after passes ran again continues the outage before it, and is logged only if the
     * failures last this long: a pooled connection that died with the server fails on its next use, after a fresh
     * one has already succeeded.
     */
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final System.Logger LOG = System.getLogger(PostgresSchedules.class.getName());

    private final PostgresDelayedQueue<V> queue;
    private final QueueSupport<V> support;
    private final ScheduleStore store;
    private final Failures failures;
    private final String channel;
    private final long thresholdMs;
    private final long pollMs;
    private final ConcurrentHashMap<String, ScheduleRule> rules = new ConcurrentHashMap<>();
    /** The unreadable schedules already warned about (name and rule), so that each is logged once. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private final Object lifecycle = new Object();
    private Thread thread; // guarded by lifecycle
    private Listener listener; // guarded by lifecycle
    private volatile boolean closed;

    private PostgresSchedules(Builder<V> b) {
        this.queue = b.queue;
        this.support = queue.support();
        this.failures = new Failures(queue.name(), queue.schema());
        this.channel = channel(queue.schema(), queue.name());
        this.store = new ScheduleStore(new ScheduleSql(queue.schema()), queue.name(), channel);
        this.thresholdMs = b.misfireThreshold.toMillis();
        this.pollMs = b.pollInterval.toMillis();
    }

    /**
     * Starts a builder.
     *
     * @param queue the queue the occurrences go to; the schedules live in its schema, on its {@code DataSource}
     * @param <V>   its value type
     * @return a builder with {@link #DEFAULT_MISFIRE_THRESHOLD} and {@link #DEFAULT_POLL_INTERVAL}
     */
    public static <V> Builder<V> builder(PostgresDelayedQueue<V> queue) {
        return new Builder<>(queue);
    }

    /**
     * The channel a queue's schedulers listen on: apart from every queue's own channel, since a schema name cannot
     * hold U+0000.
     */
    static String channel(String schema, String queue) {
        return Listener.channel(schema + "\u0000schedules", queue);
    }

    // ---- administration ----

    @Override
    public ScheduleInfo put(Schedule<? extends V> schedule) {
        Objects.requireNonNull(schedule, "schedule");
        checkOpen();
        @SuppressWarnings("unchecked")
        Schedule<V> s = (Schedule<V>) schedule;
        Map<String, String> headerMap = s.headers();
        if (headerMap.containsKey(Message.GROUP_HEADER)) { // refused as the queue refuses it, but before storing
            throw new UnsupportedOperationException("schedule '" + s.name() + "': message groups (header "
                    + Message.GROUP_HEADER + ") are not supported by the PostgreSQL backend; put the schedule without"
                    + " a group");
        }
        Definition def = new Definition(s.rule().spec(), s.misfire().spec(), s.spread().toMillis(),
                support.encode(s.value()), Headers.encode(headerMap));
        return transaction("putSchedule", c -> {
            while (true) {
                Row r = store.lock(c, s.name());
                if (r == null) {
                    long now = store.now(c);
                    Long next = ms(FirePlan.after(s.rule(), now));
                    if (store.insert(c, s.name(), def, next)) {
                        store.notifySchedulers(c);
                        return store.get(c, s.name()).info();
                    }
                    continue; // another client created it meanwhile: lock theirs
                }
                if (r.definition().equals(def)) {
                    return r.info();
                }
                if (r.rule().equals(def.rule())) {
                    store.write(c, s.name(), def, r.paused(), r.next(), r.last(), r.outstanding(), r.lookAt());
                    return store.get(c, s.name()).info();
                }
                if (!r.paused()) {
                    fire(c, r); // what the old rule has due goes out under the old rule
                    r = store.get(c, s.name());
                }
                Long next = ms(FirePlan.after(s.rule(), r.from()));
                store.write(c, s.name(), def, r.paused(), next, r.last(), null, r.paused() ? null : next);
                store.notifySchedulers(c);
                return store.get(c, s.name()).info();
            }
        });
    }

    @Override
    public boolean pause(String name) {
        Schedule.checkName(name);
        checkOpen();
        return transaction("pauseSchedule", c -> {
            Row r = store.lock(c, name);
            if (r == null || r.paused()) {
                return false;
            }
            store.write(c, name, r.definition(), true, r.next(), r.last(), r.outstanding(), null);
            return true;
        });
    }

    @Override
    public boolean resume(String name) {
        Schedule.checkName(name);
        checkOpen();
        return transaction("resumeSchedule", c -> {
            Row r = store.lock(c, name);
            if (r == null || !r.paused()) {
                return false;
            }
            ScheduleRule rule = rule(r.rule());
            Long next = ms(FirePlan.after(rule, r.from()));
            store.write(c, name, r.definition(), false, next, r.last(), null, next);
            store.notifySchedulers(c);
            return true;
        });
    }

    @Override
    public boolean delete(String name) {
        Schedule.checkName(name);
        checkOpen();
        return run("deleteSchedule", c -> store.delete(c, name));
    }

    @Override
    public Optional<ScheduleInfo> get(String name) {
        Schedule.checkName(name);
        checkOpen();
        return run("getSchedule", c -> Optional.ofNullable(store.get(c, name)).map(Row::info));
    }

    @Override
    public List<ScheduleInfo> list() {
        checkOpen();
        List<ScheduleInfo> all = new ArrayList<>();
        for (Row r : run("listSchedules", store::list)) {
            all.add(r.info());
        }
        all.sort(Comparator.comparing(ScheduleInfo::name));
        return all;
    }

    // ---- passes ----

    @Override
    public int fireDue() {
        checkOpen();
        int fired = 0;
        while (true) {
            int[] batch = transaction("fireDue", c -> {
                List<Row> due = store.due(c, DUE_BATCH);
                int stored = 0;
                for (Row r : due) {
                    stored += fire(c, r);
                }
                return new int[] {due.size(), stored};
            });
            fired += batch[1];
            if (batch[0] < DUE_BATCH) {
                return fired;
            }
        }
    }

    /**
     * Fires what one locked schedule has due at the row's clock reading and moves it on; returns the occurrences
     * stored. A schedule this client cannot read is looked at again after {@link #UNREADABLE_RETRY_MS}.
     */
    private int fire(Connection c, Row r) throws SQLException {
        ScheduleRule rule;
        Misfire misfire;
        V value;
        try {
            rule = rule(r.rule());
            misfire = Misfire.parse(r.misfire());
            value = support.decode(r.payload());
        } catch (IllegalArgumentException | CodecException e) {
            if (warned.size() > 10_000) {
                warned.clear();
            }
            if (warned.add(r.name() + "\n" + r.rule())) {
                LOG.log(System.Logger.Level.WARNING, () -> this + ": cannot read schedule '" + r.name() + "' ("
                        + e.getMessage() + "); this client leaves it to others, looking again every "
                        + UNREADABLE_RETRY_MS + " ms");
            }
            store.move(c, r.name(), r.next(), r.last(), r.outstanding(), r.now() + UNREADABLE_RETRY_MS);
            return 0;
        }
        Message<V> message = Message.of(value).headers(Headers.decode(r.headers()));
        long spread = Schedule.offsetMillis(r.name(), r.spreadMs());
        Optional<Duration> delay = rule.delayAfterCompletion();
        if (delay.isPresent()) {
            return fireFixedDelay(c, r, message, spread, delay.get().toMillis());
        }
        if (r.next() == null) {
            store.move(c, r.name(), null, r.last(), r.outstanding(), null);
            return 0;
        }
        FirePlan plan = FirePlan.of(rule, misfire, r.next(), r.now(), thresholdMs);
        Long last = r.last();
        int stored = 0;
        for (long t : plan.fireTimes()) {
            if (last == null || t > last) {
                stored += offer(c, message, r.name(), t, spread, r.now());
                last = t;
            }
        }
        Long next = ms(plan.next());
        store.move(c, r.name(), next, last, r.outstanding(), next);
        return stored;
    }

    /**
     * A fixed-delay schedule: while its outstanding occurrence is unfinished it is looked at again after the poll
     * interval; once that occurrence is gone (acked, cancelled, purged) or dead, its next fire time is now plus the
     * delay; when that time has come its occurrence is stored and becomes the outstanding one.
     */
    private int fireFixedDelay(Connection c, Row r, Message<V> message, long spread, long delayMs)
            throws SQLException {
        Long next = r.next();
        Long last = r.last();
        String outstanding = r.outstanding();
        Long look = next;
        if (outstanding != null) {
            if (store.live(c, outstanding)) {
                look = r.now() + pollMs;
            } else {
                outstanding = null;
                next = r.now() + delayMs;
                look = next;
            }
        }
        int stored = 0;
        if (outstanding == null && next != null && next <= r.now()) {
            if (last == null || next > last) {
                stored = offer(c, message, r.name(), next, spread, r.now());
            }
            outstanding = Occurrence.id(r.name(), next);
            last = next;
            next = null;
            look = r.now() + pollMs;
        }
        store.move(c, r.name(), next, last, outstanding, look);
        return stored;
    }

    /** Offers one occurrence in the pass's transaction; returns 1 if it was added, 0 if its id was there already. */
    private int offer(Connection c, Message<V> message, String name, long fireMs, long spread, long now) {
        Message<V> m = message.id(Occurrence.id(name, fireMs)).onConflict(Message.Conflict.KEEP)
                .delay(Duration.ofMillis(fireMs + spread - now));
        return queue.offer(c, m).outcome() == Offered.Outcome.ADDED ? 1 : 0;
    }

    @Override
    public PostgresSchedules<V> start() {
        synchronized (lifecycle) {
            checkOpen();
            if (thread == null) {
                listener = new Listener(queue.dataSource(), channel, queue.name() + "-schedules").start();
                thread = new Thread(this::runPasses, "clockwork-postgres-schedules-" + queue.name());
                thread.setDaemon(true);
                thread.start();
            }
        }
        return this;
    }

    /** Stops the background passes and returns the listener's connection to the pool; the schedules stay. */
    @Override
    public void close() {
        Thread t;
        Listener l;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
            l = listener;
        }
        if (l != null) {
            l.close(); // wakes the thread
        }
        if (t != null) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return whether the started scheduler's listener connection is up and listening */
    boolean isListening() {
        synchronized (lifecycle) {
            return listener != null && listener.isListening();
        }
    }

    /** @return how many notifications the started scheduler's listener received */
    long notificationsReceived() {
        synchronized (lifecycle) {
            return listener == null ? 0 : listener.notifications();
        }
    }

    @Override
    public String toString() {
        return "PostgresSchedules[" + queue.schema() + "." + queue.name() + "]";
    }

    /** The background thread: passes, then sleeps to the next look time or a notification. */
    private void runPasses() {
        Listener l;
        synchronized (lifecycle) {
            l = listener;
        }
        boolean failing = false;
        boolean warned = false;
        long recovered = System.nanoTime() - SETTLE_NANOS;
        long failingSince = 0;
        long backoff = 50;
        while (!closed) {
            long seen = l.generation();
            long sleepMs;
            try {
                queue.checkOpen();
            } catch (IllegalStateException e) {
                LOG.log(System.Logger.Level.INFO, () -> this + ": the queue is closed; background passes stop");
                return;
            }
            try {
                fireDue();
                Long until = run("fireDue", store::untilNext);
                sleepMs = until == null ? MAX_SLEEP.toMillis() : Math.max(LOCKED_MS, Math.min(until,
                        MAX_SLEEP.toMillis()));
                if (failing) {
                    failing = false;
                    backoff = 50;
                    recovered = System.nanoTime();
                    if (warned) {
                        warned = false;
                        LOG.log(System.Logger.Level.INFO, () -> this + ": passes run again");
                    }
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                long now = System.nanoTime();
                if (!failing) {
                    failing = true;
                    failingSince = now;
                }
                if (!warned && (now - recovered >= SETTLE_NANOS || now - failingSince >= SETTLE_NANOS)) {
                    warned = true;
                    LOG.log(System.Logger.Level.WARNING, () -> this + ": a pass failed (" + e.getMessage()
                            + "); retrying until it succeeds, logged again when it does", e);
                }
                sleepMs = backoff;
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
            }
            try {
                l.await(seen, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(sleepMs));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---- reading and writing rows ----

    /** Work on a connection. */
    private <T> T run(String operation, Jdbc.SqlWork<T> work) {
        return Jdbc.withConnection(queue.dataSource(), failures, operation, work);
    }

    private <T> T transaction(String operation, Jdbc.SqlWork<T> work) {
        return run(operation, c -> Jdbc.inTransaction(c, work));
    }

    private ScheduleRule rule(String spec) {
        ScheduleRule r = rules.get(spec);
        if (r == null) {
            r = ScheduleRule.parse(spec);
            if (rules.size() > 10_000) {
                rules.clear();
            }
            rules.put(spec, r);
        }
        return r;
    }

    private static Long ms(long fire) {
        return fire == FirePlan.NEVER ? null : fire;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        queue.checkOpen();
    }

    /**
     * Builds {@link PostgresSchedules}. Not thread-safe: configure on one thread, then {@link #build()}.
     *
     * @param <V> the queue's value type
     */
    public static final class Builder<V> {
        private final PostgresDelayedQueue<V> queue;
        private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;

        private Builder(PostgresDelayedQueue<V> queue) {
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
         * @param interval how often a started scheduler looks at a fixed-delay schedule whose occurrence is
         *                 unfinished (it sleeps until the next fire time or a notification otherwise); at least 1 ms
         * @return this
         */
        public Builder<V> pollInterval(Duration interval) {
            this.pollInterval = checkPositive("pollInterval", interval);
            return this;
        }

        /** @return the schedules, not yet started */
        public PostgresSchedules<V> build() {
            return new PostgresSchedules<>(this);
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
