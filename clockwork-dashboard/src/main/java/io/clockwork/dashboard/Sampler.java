package io.clockwork.dashboard;

import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.time.Ticker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples every queue of a source at a fixed interval and keeps the last samples of each, so that the dashboard
 * draws charts over time with no metrics stack. Thread-safe: one thread samples ({@link #start}), requests read.
 *
 * <p>Time comes from a {@link Ticker} (rates divide by ticker time, so tests drive it with a manual ticker); a
 * sample's wall-clock stamp is the wall clock at construction plus the ticker time since.
 */
final class Sampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sampler.class);

    private final QueueSource source;
    private final Ticker ticker;
    private final long startNanos;
    private final long startMillis;
    private final int capacity;
    private final Map<String, Series> series = new ConcurrentHashMap<>();
    private ScheduledExecutorService executor;

    /**
     * @param source      the queues
     * @param ticker      the time rates are measured in
     * @param wallMillis  the wall clock now (epoch ms)
     * @param capacity    samples kept per queue
     */
    Sampler(QueueSource source, Ticker ticker, long wallMillis, int capacity) {
        this.source = source;
        this.ticker = ticker;
        this.startNanos = ticker.read();
        this.startMillis = wallMillis;
        this.capacity = capacity;
    }

    /** Starts sampling every {@code interval} on a daemon thread of its own, the first sample at once. */
    synchronized void start(Duration interval) {
        if (executor != null) {
            throw new IllegalStateException("the sampler is already started");
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "clockwork-dashboard-sampler");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::sampleAll, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Samples every queue once; a queue that fails is skipped this time (and logged), and the samples of a queue no
     * longer listed are dropped.
     */
    void sampleAll() {
        List<String> names;
        try {
            names = source.names();
        } catch (RuntimeException e) {
            LOG.warn("cannot list the queues of {}: {}", source.describe(), e.getMessage());
            return;
        }
        series.keySet().retainAll(new HashSet<>(names)); // a deleted queue leaves no series behind
        for (String name : names) {
            try {
                source.queue(name).ifPresent(this::sample);
            } catch (RuntimeException e) {
                LOG.warn("cannot sample queue '{}': {}", name, e.getMessage());
            }
        }
    }

    private void sample(QueueView q) {
        QueueStats s = q.stats();
        Optional<Duration> oldest = q.oldestReady();
        Optional<QueueCounters> counters = q.counters();
        long nanos = ticker.read();
        double oldestSeconds = oldest.map(d -> d.toNanos() / 1e9)
                .orElse(s.ready() == 0 || q.browsable() ? 0.0 : Double.NaN);
        series.computeIfAbsent(q.name(), n -> new Series(capacity)).add(nanos,
                startMillis + (nanos - startNanos) / 1_000_000, s, oldestSeconds, counters.orElse(null));
    }

    /**
     * @param name a queue's name
     * @return its samples, oldest first (empty if none was taken)
     */
    List<Sample> samples(String name) {
        Series s = series.get(name);
        return s == null ? List.of() : s.snapshot();
    }

    /**
     * Drops a queue's samples, as when it is deleted.
     *
     * @param name a queue's name
     */
    void forget(String name) {
        series.remove(name);
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    /** One queue's samples. Thread-safe: guarded by itself. */
    private static final class Series {

        private final int capacity;
        private final ArrayDeque<Sample> samples;
        private long lastNanos;
        /** The previous sample's counters; null before the first sample or when the backend keeps none. */
        private QueueCounters last;

        Series(int capacity) {
            this.capacity = capacity;
            this.samples = new ArrayDeque<>(capacity);
        }

        synchronized void add(long nanos, long atMillis, QueueStats s, double oldestSeconds, QueueCounters now) {
            double seconds = (nanos - lastNanos) / 1e9;
            boolean rated = now != null && last != null && seconds > 0;
            if (samples.size() == capacity) {
                samples.removeFirst();
            }
            samples.addLast(new Sample(atMillis, s.delayed(), s.ready(), s.inFlight(), s.dead(), oldestSeconds,
                    rated ? rate(now.offered(), last.offered(), seconds) : Double.NaN,
                    rated ? rate(now.delivered(), last.delivered(), seconds) : Double.NaN,
                    rated ? rate(now.acked(), last.acked(), seconds) : Double.NaN,
                    rated ? rate(now.retried(), last.retried(), seconds) : Double.NaN,
                    rated ? rate(now.deadLettered(), last.deadLettered(), seconds) : Double.NaN,
                    rated ? rate(now.rateLimited(), last.rateLimited(), seconds) : Double.NaN));
            lastNanos = nanos;
            last = now;
        }

        /** A counter's growth per second; 0 if it went down (the queue was deleted and created again). */
        private static double rate(long now, long before, double seconds) {
            return Math.max(0, now - before) / seconds;
        }

        synchronized List<Sample> snapshot() {
            return List.copyOf(samples);
        }
    }
}
