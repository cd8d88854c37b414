package io.clockwork.benchmarks.scale;

/**
 * Another producer during an expiry storm: on its own thread it schedules items due 1 to 2 hours out and cancels
 * each one 512 operations later, as fast as it can, and records the longest single schedule call and the longest
 * gap between the ends of two successive operations, counting only operations that end at or after a given
 * instant. Runs until {@link #stop()}. Its fields are written by its thread and read after {@link Thread#join()}.
 *
 * <p>Time: {@link System#nanoTime()}; the gap includes whatever held the thread up (a lock the subject takes, a GC
 * pause, the OS giving its core to another thread), which is the point: it is the pause another producer sees.
 *
 * <p>Every {@value #SAMPLE_EVERY} operations it also reads how long its thread was off its core while it could have
 * run ({@link OffCoreTime}: waiting for a core, or its virtual core taken by the host), and keeps the longest gap of
 * each such interval less that time: a lower bound of the pause that was neither the OS running other threads on
 * every core nor the host running other machines (so: the subject's locks and work, the JVM's safepoints). On a
 * machine with fewer cores than busy threads (two cores: the probe, the thread delivering the storm, the JIT's and
 * the collector's threads), or a virtual machine whose host is busy, the two figures differ by that time.
 */
final class PauseProbe implements Runnable {

    private static final int SLOTS = 1024;
    private static final int BEHIND = 512;
    private static final int SAMPLE_EVERY = 1024;

    private final Subject subject;
    private final long fromNanos;
    private volatile boolean stopped;
    private long maxCallNanos;
    private long maxGapNanos;
    private long maxGapLessOffCoreNanos = -1;
    private long operations;

    /**
     * @param subject   what to schedule on
     * @param fromNanos operations that end before this instant are not counted
     */
    PauseProbe(Subject subject, long fromNanos) {
        this.subject = subject;
        this.fromNanos = fromNanos;
    }

    @Override
    public void run() {
        Subject.Producer producer = subject.producer(SLOTS);
        OffCoreTime offCore = OffCoreTime.openForThisThread();
        long intervalGap = 0;
        long previous = System.nanoTime();
        for (long i = 0; !stopped; i++) {
            int slot = (int) (i & (SLOTS - 1));
            long start = System.nanoTime();
            producer.scheduleFar(slot, Subject.HOUR_NANOS + (i & 0xFFFF) * 1_000_000L);
            long scheduled = System.nanoTime();
            if (i >= BEHIND) {
                producer.cancel((int) ((i - BEHIND) & (SLOTS - 1)));
            }
            long end = System.nanoTime();
            if (scheduled - fromNanos >= 0) {
                long gap = Math.max(scheduled - previous, end - scheduled);
                maxCallNanos = Math.max(maxCallNanos, scheduled - start);
                maxGapNanos = Math.max(maxGapNanos, gap);
                intervalGap = Math.max(intervalGap, gap);
                operations += i >= BEHIND ? 2 : 1;
            }
            if (offCore != null && ((i + 1) % SAMPLE_EVERY == 0 || stopped)) {
                maxGapLessOffCoreNanos = Math.max(maxGapLessOffCoreNanos, Math.max(0, intervalGap - offCore.mark()));
                intervalGap = 0;
                end = System.nanoTime(); // the read is the probe's own pause, not the subject's
            }
            previous = end;
        }
        if (offCore != null) {
            offCore.close();
        }
    }

    /** Asks the probe's thread to finish its current operation and stop. */
    void stop() {
        stopped = true;
    }

    /** @return the longest schedule call counted, in nanoseconds */
    long maxCallNanos() {
        return maxCallNanos;
    }

    /** @return the longest gap between the ends of successive operations counted, in nanoseconds */
    long maxGapNanos() {
        return maxGapNanos;
    }

    /**
     * @return the longest gap of any sampling interval less the time the probe's thread was off its core in that
     *         interval while it could have run, at least 0; -1 where the OS does not report it
     */
    long maxGapLessOffCoreNanos() {
        return maxGapLessOffCoreNanos;
    }

    /** @return the operations counted (schedules and cancels) */
    long operations() {
        return operations;
    }
}
