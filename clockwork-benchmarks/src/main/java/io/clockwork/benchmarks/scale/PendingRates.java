package io.clockwork.benchmarks.scale;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Part 1 and 2 of the scale harness, for one subject in one JVM: schedule, cancel and delivery rates with a small
 * number of items pending far in the future, then the heap retained per pending item while the subject fills up to
 * the huge number, then the same rates again. Not thread-safe: run by one thread.
 *
 * <p>A round times {@link ScaleSettings#ops()} schedules of items due 1 to 2 hours out and as many cancels, in
 * cycles of {@link ScaleSettings#cycle()} schedules then the same items' cancels (so the pending count stays between
 * the background count and that plus one cycle), then the delivery of {@link ScaleSettings#due()} items due at one
 * instant ({@link DueBatch}). Background items are spread evenly over 1 to 2 hours out and never come due. Warm-up
 * rounds run at the small count before anything is reported, so both counts are measured with compiled code.
 *
 * <p>Heap: the used heap after several {@link System#gc()} calls, read from the memory bean, before and after the
 * fill, divided by the items added; the subject's threads get half a second, plus a millisecond per 10,000 items
 * added, to take the items in first.
 *
 * <p>Rows: {@code rate, subject, pending, operation, per second} per round and operation, then {@code bytes,
 * subject, bytes per item, pending reported}.
 */
final class PendingRates {

    private static final int DELAYS = 1 << 16;

    private final Subject subject;
    private final ScaleSettings settings;
    private final Subject.Producer producer;
    private final DueBatch batch;
    private final long[] farDelays = new long[DELAYS];
    private final List<String[]> rows = new ArrayList<>();
    private int nextDelay;

    private PendingRates(Subject subject, ScaleSettings settings) {
        this.subject = subject;
        this.settings = settings;
        this.producer = subject.producer(Math.max(settings.cycle(), settings.due()));
        this.batch = new DueBatch(subject, producer, settings.due());
        SplittableRandom random = new SplittableRandom(0x5CA1E);
        for (int i = 0; i < DELAYS; i++) {
            farDelays[i] = Subject.HOUR_NANOS + random.nextLong(Subject.HOUR_NANOS);
        }
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
            return new PendingRates(subject, settings).run();
        }
    }

    private List<String[]> run() throws InterruptedException {
        fill(settings.small(), settings.small());
        for (int i = 0; i < settings.warmup(); i++) {
            round(-1);
        }
        for (int i = 0; i < settings.rounds(); i++) {
            round(settings.small());
        }
        long before = usedHeapAfterGc();
        int added = settings.pending() - settings.small();
        fill(added, settings.pending());
        Thread.sleep(500 + added / 10_000); // Netty's worker files at most 100,000 new timeouts per tick
        long after = usedHeapAfterGc();
        rows.add(new String[] {"bytes", subject.name(), format((after - before) / (double) added),
                Long.toString(subject.pending())});
        for (int i = 0; i < settings.rounds(); i++) {
            round(settings.pending());
        }
        return rows;
    }

    /** Adds {@code count} background items, the i-th of {@code total} due at 1 h + i/total h. */
    private void fill(int count, int total) {
        long step = Subject.HOUR_NANOS / total;
        for (int i = total - count; i < total; i++) {
            producer.fill(Subject.HOUR_NANOS + step * i);
        }
    }

    /** One round; reported unless {@code pending} is negative (a warm-up). */
    private void round(int pending) throws InterruptedException {
        int cycle = settings.cycle();
        long scheduleNanos = 0;
        long cancelNanos = 0;
        int failed = 0;
        int done = 0;
        for (; done + cycle <= settings.ops(); done += cycle) {
            long t0 = System.nanoTime();
            for (int i = 0; i < cycle; i++) {
                producer.scheduleFar(i, farDelays[nextDelay++ & (DELAYS - 1)]);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < cycle; i++) {
                if (!producer.cancel(i)) {
                    failed++;
                }
            }
            long t2 = System.nanoTime();
            scheduleNanos += t1 - t0;
            cancelNanos += t2 - t1;
        }
        if (failed > 0) {
            throw new IllegalStateException(subject + ": " + failed + " of " + done + " cancels failed");
        }
        long due = batch.schedule(settings.due());
        Subject.Span span = subject.deliver(due, DueBatch.timeoutNanos());
        if (pending < 0) {
            return;
        }
        List<String> ops = subject.operations();
        report(pending, ops.get(0), done * 1e9 / scheduleNanos);
        report(pending, ops.get(1), done * 1e9 / cancelNanos);
        report(pending, ops.get(2), settings.due() * 1e9 / span.nanos());
    }

    private void report(int pending, String operation, double perSecond) {
        rows.add(new String[] {"rate", subject.name(), Integer.toString(pending), operation, format(perSecond)});
    }

    private static String format(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    /** @return the used heap after full collections */
    static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
