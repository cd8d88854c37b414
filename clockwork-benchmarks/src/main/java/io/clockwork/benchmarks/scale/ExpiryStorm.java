package io.clockwork.benchmarks.scale;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Part 3 of the scale harness, for one subject in one JVM: {@link ScaleSettings#storm()} items all due at the same
 * instant (within one millisecond) while a {@link PauseProbe} on another thread keeps scheduling and cancelling;
 * reports how long the storm took to deliver and the longest pause the probe saw from one tick before the due
 * instant until the last item was delivered. A warm-up storm of a tenth of the size (at least 1,000) runs first and
 * is not reported. Not thread-safe: run by one thread.
 *
 * <p>Time: the storm's span is the subject's {@link Subject.Span} (first to last task run for a timer; first poll
 * to last ack for the queue). GC time is the growth of the collectors' accumulated collection time over the window.
 *
 * <p>Rows: {@code storm, subject, items, span ns, longest schedule call ns, longest gap ns, probe operations,
 * GC ms, tick} per round.
 */
final class ExpiryStorm {

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Subject subject;
    private final DueBatch batch;

    private ExpiryStorm(Subject subject, int largest) {
        this.subject = subject;
        this.batch = new DueBatch(subject, subject.producer(largest), largest);
    }

    /**
     * Measures one subject.
     *
     * @param name     the subject
     * @param settings the sizes
     * @return the result rows
     * @throws InterruptedException if interrupted
     */
    static List<String[]> measure(String name, ScaleSettings settings) throws InterruptedException {
        try (Subject subject = Subject.open(name)) {
            ExpiryStorm storm = new ExpiryStorm(subject, settings.storm());
            storm.round(Math.max(1_000, settings.storm() / 10));
            List<String[]> rows = new ArrayList<>();
            for (int i = 0; i < settings.rounds(); i++) {
                rows.add(storm.round(settings.storm()));
            }
            return rows;
        }
    }

    private String[] round(int count) throws InterruptedException {
        long due = batch.schedule(count);
        PauseProbe probe = new PauseProbe(subject, due - TICK_NANOS);
        Thread prober = new Thread(probe, "storm-probe");
        prober.setDaemon(true);
        prober.start();
        long gcBefore = gcMillis();
        Subject.Span span;
        try {
            span = subject.deliver(due, DueBatch.timeoutNanos());
        } finally {
            probe.stop();
            prober.join();
        }
        long gc = gcMillis() - gcBefore;
        return new String[] {"storm", subject.name(), Integer.toString(count), Long.toString(span.nanos()),
                Long.toString(probe.maxCallNanos()), Long.toString(probe.maxGapNanos()),
                Long.toString(probe.operations()), Long.toString(gc), subject.tick()};
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
