package io.clockwork.schedule;

import io.clockwork.engine.SharedDriver;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.time.Ticker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link Schedules} in process, over an {@link InMemoryDelayedQueue}. Thread-safe: one lock guards every schedule,
 * and a pass stores its occurrences and advances each schedule under it, so concurrent passes (a background pass and
 * a caller's {@link #fireDue()}) produce each fire time once.
 *
 * <p>Time is the ticker's, read as wall-clock milliseconds from the {@code epoch} the builder pins to the ticker's
 * reading at {@code build()} (default: the system clock then), so a {@code ManualTicker} drives fire times, rules
 * and misfires deterministically. {@link #start()} runs passes on the engine's shared driver for the ticker
 * ({@code engine.SharedDriver}): one task at the earliest time any schedule needs a look, moved earlier by a
 * {@link #put} or {@link #resume}, so no thread of its own and no polling while nothing is due; a fixed-delay
 * schedule whose occurrence is unfinished is looked at every {@code pollInterval}.
 *
 * @param <V> the queue's value type
 */
public final class InMemorySchedules<V> implements Schedules<V> {

    private static final System.Logger LOG = System.getLogger(InMemorySchedules.class.getName());
    private static final long NONE = FirePlan.NEVER;
    /** The farthest past the ticker's origin a driver task is set: 100 years, so readings stay within 2^62 ns. */
    private static final long LONGEST_WAIT_MS = TimeUnit.DAYS.toMillis(36_500);

    private final InMemoryDelayedQueue<V> queue;
    private final Ticker ticker;
    private final long epochMs;
    private final long originNanos;
    private final long thresholdMs;
    private final long pollMs;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private final Map<String, Entry> byName = new HashMap<>();
    private final TreeSet<Entry> byWake = new TreeSet<>(Comparator.<Entry>comparingLong(e -> e.wake)
            .thenComparing(e -> e.schedule.name()));
    private SharedDriver driver;
    private SharedDriver.Task task;
    private long taskAt = NONE;
    private boolean closed;

    private InMemorySchedules(Builder<V> b) {
        this.queue = b.queue;
        this.ticker = b.ticker;
        this.originNanos = ticker.read();
        this.epochMs = (b.epoch != null ? b.epoch : Instant.now()).toEpochMilli();
        this.thresholdMs = b.misfireThreshold.toMillis();
        this.pollMs = b.pollInterval.toMillis();
    }

    /**
     * Starts a builder.
     *
     * @param queue the queue the occurrences go to
     * @param <V>   its value type
     * @return a builder with the system ticker, the system clock, {@link #DEFAULT_MISFIRE_THRESHOLD} and a 100 ms
     *         poll interval
     */
    public static <V> Builder<V> builder(InMemoryDelayedQueue<V> queue) {
        return new Builder<>(queue);
    }

    /** @return the wall-clock time of the ticker's reading now, epoch ms */
    private long now() {
        return epochMs + Math.floorDiv(ticker.read() - originNanos, 1_000_000L);
    }

    @Override
    public ScheduleInfo put(Schedule<? extends V> schedule) {
        Objects.requireNonNull(schedule, "schedule");
        lock.lock();
        try {
            checkOpen();
            long now = now();
            @SuppressWarnings("unchecked")
            Schedule<V> s = (Schedule<V>) schedule;
            Entry e = byName.get(s.name());
            if (e == null) {
                e = new Entry(s);
                e.next = first(s.rule(), now);
                byName.put(s.name(), e);
                file(e, e.next);
            } else if (!e.schedule.equals(s)) {
                boolean ruleChanged = !e.schedule.rule().equals(s.rule());
                if (ruleChanged && !e.paused) {
                    fire(e, now); // what the old rule has due goes out under the old rule
                }
                e.schedule = s;
                if (ruleChanged) {
                    e.outstanding = null;
                    long from = e.last == NONE ? now : Math.max(e.last, now);
                    e.next = first(s.rule(), from);
                    if (!e.paused) {
                        file(e, e.next);
                    }
                }
            }
            wakeDriver();
            return info(e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean pause(String name) {
        Schedule.checkName(name);
        lock.lock();
        try {
            checkOpen();
            Entry e = byName.get(name);
            if (e == null || e.paused) {
                return false;
            }
            e.paused = true;
            file(e, NONE);
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean resume(String name) {
        Schedule.checkName(name);
        lock.lock();
        try {
            checkOpen();
            Entry e = byName.get(name);
            if (e == null || !e.paused) {
                return false;
            }
            long now = now();
            e.paused = false;
            e.outstanding = null;
            e.next = first(e.schedule.rule(), e.last == NONE ? now : Math.max(e.last, now));
            file(e, e.next);
            wakeDriver();
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean delete(String name) {
        Schedule.checkName(name);
        lock.lock();
        try {
            checkOpen();
            Entry e = byName.remove(name);
            if (e == null) {
                return false;
            }
            byWake.remove(e);
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<ScheduleInfo> get(String name) {
        Schedule.checkName(name);
        lock.lock();
        try {
            Entry e = byName.get(name);
            return e == null ? Optional.empty() : Optional.of(info(e));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<ScheduleInfo> list() {
        lock.lock();
        try {
            List<ScheduleInfo> all = new ArrayList<>(byName.size());
            for (Entry e : byName.values()) {
                all.add(info(e));
            }
            all.sort(Comparator.comparing(ScheduleInfo::name));
            return all;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int fireDue() {
        lock.lock();
        try {
            checkOpen();
            long now = now();
            int fired = 0;
            while (!byWake.isEmpty() && byWake.first().wake <= now) {
                fired += fire(byWake.first(), now);
            }
            return fired;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public InMemorySchedules<V> start() {
        lock.lock();
        try {
            checkOpen();
            if (driver == null) {
                driver = SharedDriver.acquire(ticker);
                wakeDriver();
            }
            return this;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (task != null) {
                task.cancel();
            }
            if (driver != null) {
                driver.release();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "InMemorySchedules[" + queue.name() + "]";
    }

    /** Fires what one schedule has due at {@code now} and files it at its next look; returns occurrences stored. */
    private int fire(Entry e, long now) {
        Schedule<V> s = e.schedule;
        Optional<Duration> delay = s.rule().delayAfterCompletion();
        int fired = 0;
        if (delay.isPresent()) {
            if (e.outstanding != null) {
                if (queue.holds(e.outstanding)) {
                    file(e, now + pollMs);
                    return 0;
                }
                e.outstanding = null;
                e.next = now + delay.get().toMillis();
            }
            if (e.next <= now) {
                String id = Occurrence.id(s.name(), e.next);
                offer(s, id, e.next, now);
                e.last = e.next;
                e.outstanding = id;
                e.next = NONE;
                fired = 1;
                file(e, now + pollMs);
            } else {
                file(e, e.next);
            }
            return fired;
        }
        FirePlan plan = FirePlan.of(s.rule(), s.misfire(), e.next, now, thresholdMs);
        for (long t : plan.fireTimes()) {
            e.next = t; // should this offer throw (a codec error), the next pass starts here, not before
            offer(s, Occurrence.id(s.name(), t), t, now);
            e.last = t;
            fired++;
        }
        e.next = plan.next();
        file(e, e.next);
        return fired;
    }

    private void offer(Schedule<V> s, String id, long fireMs, long now) {
        long due = fireMs + s.spreadOffsetMillis();
        queue.offer(Message.of(s.value()).id(id).headers(s.headers()).delay(Duration.ofMillis(due - now)));
    }

    private static long first(ScheduleRule rule, long from) {
        return FirePlan.after(rule, from);
    }

    /** Files an entry to be looked at {@code wake} ({@link #NONE}: never). */
    private void file(Entry e, long wake) {
        byWake.remove(e);
        e.wake = wake;
        if (wake != NONE && !e.paused && byName.get(e.schedule.name()) == e) {
            byWake.add(e);
        }
    }

    /** Keeps the driver's one task at the earliest look any schedule needs. */
    private void wakeDriver() {
        if (driver == null || closed || byWake.isEmpty()) {
            return;
        }
        long at = byWake.first().wake;
        if (task != null && taskAt != NONE && taskAt <= at) {
            return;
        }
        if (task != null) {
            task.cancel();
        }
        taskAt = at;
        task = driver.scheduleAt(this::runPass, readingAt(at));
    }

    /**
     * @return the ticker reading at which {@link #now()} reaches {@code atMs}: the origin if that has passed, at
     *         most {@link #LONGEST_WAIT_MS} ahead of the origin (so that readings stay comparable)
     */
    private long readingAt(long atMs) {
        long sinceOrigin = atMs - epochMs;
        if (sinceOrigin <= 0) {
            return originNanos;
        }
        return originNanos + Math.min(sinceOrigin, LONGEST_WAIT_MS) * 1_000_000L;
    }

    private void runPass() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            task = null;
            taskAt = NONE;
            try {
                fireDue();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "schedules of queue '" + queue.name() + "': a pass failed", e);
            }
            wakeDriver();
        } finally {
            lock.unlock();
        }
    }

    private ScheduleInfo info(Entry e) {
        return new ScheduleInfo(e.schedule.name(), e.schedule.rule().spec(), e.schedule.misfire().spec(), e.paused,
                e.last == NONE ? Optional.empty() : Optional.of(Instant.ofEpochMilli(e.last)),
                e.paused || e.next == NONE ? Optional.empty() : Optional.of(Instant.ofEpochMilli(e.next)));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("schedules of queue '" + queue.name() + "' are closed");
        }
    }

    /** One schedule's state. Guarded by the lock. */
    private final class Entry {
        Schedule<V> schedule;
        boolean paused;
        long last = NONE;
        long next = NONE;
        long wake = NONE;
        String outstanding;

        Entry(Schedule<V> schedule) {
            this.schedule = schedule;
        }
    }

    /**
     * Builds {@link InMemorySchedules}. Not thread-safe: configure on one thread, then {@link #build()}.
     *
     * @param <V> the queue's value type
     */
    public static final class Builder<V> {
        private final InMemoryDelayedQueue<V> queue;
        private Ticker ticker = Ticker.system();
        private Instant epoch;
        private Duration misfireThreshold = DEFAULT_MISFIRE_THRESHOLD;
        private Duration pollInterval = Duration.ofMillis(100);

        private Builder(InMemoryDelayedQueue<V> queue) {
            this.queue = Objects.requireNonNull(queue, "queue");
        }

        /**
         * @param ticker the time source: the queue's own ticker, so that occurrences fall due on its timeline
         * @return this
         */
        public Builder<V> ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * @param epoch the wall-clock instant the ticker's reading at {@link #build()} stands for (default: now)
         * @return this
         */
        public Builder<V> epoch(Instant epoch) {
            this.epoch = Objects.requireNonNull(epoch, "epoch");
            return this;
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
         * @param interval how often a fixed-delay schedule with an unfinished occurrence is looked at; at least 1 ms
         * @return this
         */
        public Builder<V> pollInterval(Duration interval) {
            this.pollInterval = checkPositive("pollInterval", interval);
            return this;
        }

        /** @return the schedules, not yet started */
        public InMemorySchedules<V> build() {
            return new InMemorySchedules<>(this);
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
