package io.clockwork.benchmarks.scale;

import java.lang.management.GarbageCollectorMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Part 3 of the scale harness, for one subject in one JVM: {@link ScaleSettings#storm()} items all due at the same
 * instant (within one millisecond) while a {@link PauseProbe} on another thread keeps scheduling and cancelling;
 * reports how long the storm took to deliver and the longest pause the probe saw from one tick before the due
 * instant until the last item was delivered. A warm-up storm of a tenth of the size (at least 1,000) runs first and
 * is not reported.
 *
 * <p>Each round runs twice: with <b>young</b> items, due a few seconds after they were scheduled, so that any young
 * collection in the window copies those not yet delivered; and with <b>tenured</b> items, which a full collection
 * ({@link System#gc()}) between the scheduling and the due instant has moved to the old generation, as the minutes
 * or hours that a server's messages wait before a storm would. The young storm is the harder case for a collector;
 * the tenured one is what a storm of messages offered well ahead meets.
 *
 * <p>Each storm round is followed by a control round: as many items scheduled the same way (and tenured the same
 * way) but due an hour out, and the probe watched over a window of the storm's length, the same lead after the
 * scheduling (or the collection), with nothing falling due. The control's pauses are those of the JVM holding that
 * many items while the probe allocates (with young items, chiefly young collections copying them), so the storm's
 * pauses beyond the control's are the delivery's. The control's items are cancelled after its window. Not
 * thread-safe: run by one thread.
 *
 * <p>Time: the storm's span is the subject's {@link Subject.Span} (first to last task run for a timer; first poll
 * to last ack for the queue). GC time is the growth of the collectors' accumulated pause time (every collection of
 * G1's; ZGC's and Shenandoah's pauses, not their concurrent cycles) from the end of the scheduling to the end of the
 * window, in both kinds of round.
 *
 * <p>Rows: {@code storm, subject, items, span ns, longest schedule call ns, longest gap ns, probe operations,
 * GC ms, tick, age, longest gap less time off core ns, collector, window ns} per round, {@code age} being {@code
 * young} or {@code tenured} and {@code collector} this JVM's ({@link GarbageCollectors#current()}), and {@code
 * storm-control} with the same columns but the last (its span column is the window watched). "Less time off core" is
 * {@link PauseProbe#maxGapLessOffCoreNanos()}.
 */
final class ExpiryStorm {

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The least time left between the scheduling and the due instant for the full collection that tenures. */
    private static final long MIN_TENURE_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final String YOUNG = "young";
    static final String TENURED = "tenured";
    /** Column of a row: the probe's longest gap less its time off core, in nanoseconds (-1: not reported). */
    static final int GAP_LESS_OFF_CORE = 10;
    /** Column of a row: the collector this JVM runs. */
    static final int COLLECTOR = 11;
    /** Column of a storm row: the window watched, in nanoseconds. */
    private static final int WINDOW = 12;

    private final Subject subject;
    private final DueBatch batch;
    private final Subject.Producer controls;
    /** Time left for the tenuring collection: three times the last one's, at least {@link #MIN_TENURE_NANOS}. */
    private long tenureNanos = MIN_TENURE_NANOS;
    /** In the last tenured storm: from the end of its collection to the start of its window. */
    private long tenuredGapNanos;

    private ExpiryStorm(Subject subject, int largest) {
        this.subject = subject;
        this.batch = new DueBatch(subject, subject.producer(largest), largest);
        this.controls = subject.producer(largest);
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
            storm.round(Math.max(1_000, settings.storm() / 10), false);
            List<String[]> rows = new ArrayList<>();
            for (int i = 0; i < settings.rounds(); i++) {
                for (boolean tenured : new boolean[] {false, true}) {
                    String[] row = storm.round(settings.storm(), tenured);
                    rows.add(row);
                    rows.add(storm.control(settings.storm(), Long.parseLong(row[WINDOW]), tenured));
                }
            }
            return rows;
        }
    }

    /** @return the storm's row; its last column is the window watched: from a tick before due to the last delivery */
    private String[] round(int count, boolean tenured) throws InterruptedException {
        long due = tenured ? scheduleTenured(count) : batch.schedule(count);
        PauseProbe probe = new PauseProbe(subject, due - TICK_NANOS);
        Thread prober = start(probe);
        long gcBefore = gcMillis();
        Subject.Span span;
        try {
            span = subject.deliver(due, DueBatch.timeoutNanos());
        } finally {
            probe.stop();
            prober.join();
        }
        long gc = gcMillis() - gcBefore;
        long window = span.lastNanos() - (due - TICK_NANOS);
        return row("storm", count, span.nanos(), probe, gc, tenured, Long.toString(window));
    }

    /**
     * Schedules a batch due late enough for a full collection after the scheduling, runs it, and returns the due
     * instant; a batch whose collection overran its due instant is delivered, discarded and scheduled again, later.
     */
    private long scheduleTenured(int count) throws InterruptedException {
        for (int attempt = 0; attempt < DueBatch.tries(); attempt++) {
            long due = batch.schedule(count, tenureNanos);
            long start = System.nanoTime();
            System.gc();
            long end = System.nanoTime();
            tenureNanos = Math.max(MIN_TENURE_NANOS, 3 * (end - start));
            if (due - TICK_NANOS - end >= TICK_NANOS) {
                tenuredGapNanos = due - TICK_NANOS - end;
                return due;
            }
            subject.deliver(due, DueBatch.timeoutNanos());
        }
        throw new IllegalStateException(subject + ": the collection after scheduling " + count + " items overran "
                + "their due instant " + DueBatch.tries() + " times");
    }

    /**
     * Schedules count items an hour out as the storm's were scheduled (and tenured), and watches the probe for
     * {@code window}.
     */
    private String[] control(int count, long window, boolean tenured) throws InterruptedException {
        long lead = batch.leadNanos();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            controls.scheduleFar(i, Subject.HOUR_NANOS);
        }
        long from = start + lead - TICK_NANOS;
        if (tenured) {
            System.gc();
            from = System.nanoTime() + tenuredGapNanos;
        }
        PauseProbe probe = new PauseProbe(subject, from);
        Thread prober = start(probe);
        long gcBefore = gcMillis();
        try {
            long until = from + window;
            for (long now = System.nanoTime(); now - until < 0; now = System.nanoTime()) {
                LockSupport.parkNanos(until - now);
            }
        } finally {
            probe.stop();
            prober.join();
        }
        long gc = gcMillis() - gcBefore;
        for (int i = 0; i < count; i++) {
            if (!controls.cancel(i)) {
                throw new IllegalStateException(subject + ": a control item could not be cancelled");
            }
        }
        return row("storm-control", count, window, probe, gc, tenured);
    }

    private String[] row(String kind, int count, long nanos, PauseProbe probe, long gc, boolean tenured,
            String... more) {
        List<String> r = new ArrayList<>(List.of(kind, subject.name(), Integer.toString(count), Long.toString(nanos),
                Long.toString(probe.maxCallNanos()), Long.toString(probe.maxGapNanos()),
                Long.toString(probe.operations()), Long.toString(gc), subject.tick(), tenured ? TENURED : YOUNG,
                Long.toString(probe.maxGapLessOffCoreNanos()), GarbageCollectors.current()));
        r.addAll(List.of(more));
        return r.toArray(new String[0]);
    }

    private static Thread start(PauseProbe probe) {
        Thread prober = new Thread(probe, "storm-probe");
        prober.setDaemon(true);
        prober.start();
        return prober;
    }

    /** @return milliseconds of collection pauses so far ({@link GarbageCollectors#total}: not concurrent cycles) */
    private static long gcMillis() {
        return GarbageCollectors.total("Pauses", GarbageCollectorMXBean::getCollectionTime);
    }
}
