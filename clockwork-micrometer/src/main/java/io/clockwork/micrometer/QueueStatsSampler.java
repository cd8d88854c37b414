package io.clockwork.micrometer;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads the {@link DelayedQueue#stats()}, {@link DelayedQueue#isPaused()} and {@link DelayedQueue#counters()} of
 * monitored queues on one background thread, every {@code interval}, so that a scrape reads the last sample and never
 * waits for a backend (a Redis queue's stats are a round trip).
 * Thread-safe. Close it to stop its thread; queues monitored through it then keep their last sample.
 *
 * <p>Queues are sampled one after another on the one thread: a backend that answers slowly delays the next
 * samples, never a scrape. A failed read is logged and turns the queue's gauges to {@code NaN} (unknown) until a
 * read succeeds again, so a dashboard shows a gap rather than stale counts; a counter read from the samples keeps its
 * last value, since a counter never goes down.
 */
public final class QueueStatsSampler implements AutoCloseable {

    /** The shortest sampling interval: 10 ms. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(10);

    private static final System.Logger LOG = System.getLogger(QueueStatsSampler.class.getName());
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final Duration interval;
    private final ScheduledExecutorService thread;

    private QueueStatsSampler(Duration interval) {
        this.interval = interval;
        String name = "clockwork-stats-sampler-" + SEQUENCE.incrementAndGet();
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts a sampler.
     *
     * @param interval time between two samples of one queue, at least {@link #MIN_INTERVAL}
     * @return a running sampler; close it when done
     * @throws IllegalArgumentException if {@code interval} is below {@link #MIN_INTERVAL}
     */
    public static QueueStatsSampler every(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("interval must be at least " + MIN_INTERVAL.toMillis() + " ms: "
                    + interval);
        }
        return new QueueStatsSampler(interval);
    }

    /** @return the time between two samples of one queue */
    public Duration interval() {
        return interval;
    }

    /** Starts sampling a queue into {@code sample}; the first sample is taken at once. */
    ScheduledFuture<?> watch(DelayedQueue<?> queue, SampledStats sample) {
        return thread.scheduleWithFixedDelay(() -> read(queue, sample), 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static void read(DelayedQueue<?> queue, SampledStats sample) {
        QueueStats stats;
        boolean paused;
        Optional<QueueCounters> counters;
        try {
            stats = queue.stats();
            paused = queue.isPaused();
            counters = queue.counters();
        } catch (RuntimeException e) {
            if (sample.markFailed()) {
                LOG.log(System.Logger.Level.WARNING, "reading the stats of queue '" + queue.name() + "' failed; its "
                        + "gauges show NaN until a read succeeds", e);
            }
            return;
        }
        sample.set(stats, paused, counters);
    }

    /** Stops the thread; the last samples stay. Idempotent. */
    @Override
    public void close() {
        thread.shutdownNow();
    }

    @Override
    public String toString() {
        return "QueueStatsSampler[every " + interval + (thread.isShutdown() ? ", closed" : "") + "]";
    }
}
