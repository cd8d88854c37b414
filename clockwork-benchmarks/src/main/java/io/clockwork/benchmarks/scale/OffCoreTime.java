package io.clockwork.benchmarks.scale;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

/**
 * How long the calling thread has been off its core while it could have run, from Linux's per-thread counters and the
 * thread's CPU clock: the time it waited, runnable, on a run queue (the second field of {@code
 * /proc/thread-self/schedstat}: every core was busy with other threads of the JVM, the JIT, the collector, other
 * processes), and, across an interval in which it never blocked, the time it did not run (wall time less its CPU time,
 * which a guest kernel keeps net of the time its virtual core was taken by the host, and of interrupts). The CPU time
 * is the thread's CPU clock ({@link ThreadMXBean#getCurrentThreadCpuTime()}, {@code CLOCK_THREAD_CPUTIME_ID}), which
 * brings the running slice up to date when read; schedstat's first field is only as fresh as the thread's last
 * scheduler tick or switch, up to a tick stale for a thread that never blocks, which put a running thread's counter
 * milliseconds ahead of or behind the wall clock between two reads. A virtual machine's host takes a virtual core from
 * a guest whose cores are all busy for a host time slice (8.3 ms on the machines the docs' figures come from), and the
 * guest's thread, on its core all along as far as the guest knows, sees a gap. Lets a probe tell those parts of a pause
 * from the part in which it was held up by what it called or stopped by the JVM.
 *
 * <p>An interval in which the thread blocked (a voluntary context switch: a lock it waited for, a safepoint, a
 * sleep) has only its run-queue waits counted, so time spent blocked is never taken for time off core.
 *
 * <p>Not thread-safe, and bound to the thread that opened it: open and read it on the measured thread. Each
 * {@link #mark} reads the thread's CPU clock and two small files, some microseconds, and allocates nothing (a probe
 * that made garbage would bring on the collections it measures), so callers sample it, not call it per operation.
 */
final class OffCoreTime implements AutoCloseable {

    private static final String SCHEDSTAT = "/proc/thread-self/schedstat";
    private static final String STATUS = "/proc/thread-self/status";
    private static final byte[] VOLUNTARY = "\nvoluntary_ctxt_switches:".getBytes(StandardCharsets.US_ASCII);

    private final RandomAccessFile schedstat;
    private final RandomAccessFile status;
    private final ThreadMXBean threads;
    private final byte[] buffer = new byte[4096];
    private long wallAt;
    private long runningAt;
    private long waitingAt;
    private long switchesAt;

    private OffCoreTime(RandomAccessFile schedstat, RandomAccessFile status, ThreadMXBean threads) {
        this.schedstat = schedstat;
        this.status = status;
        this.threads = threads;
    }

    /** @return the calling thread's counters, marked now; null where the kernel does not provide them */
    static OffCoreTime openForThisThread() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            return null;
        }
        try {
            OffCoreTime time = new OffCoreTime(new RandomAccessFile(SCHEDSTAT, "r"), new RandomAccessFile(STATUS, "r"),
                    threads);
            time.mark();
            return time;
        } catch (IOException | UncheckedIOException | NumberFormatException | IndexOutOfBoundsException e) {
            return null;
        }
    }

    /**
     * Reads the counters and starts a new interval.
     *
     * @return nanoseconds the thread was off its core while it could have run, since the previous mark (or the
     *         opening)
     */
    long mark() {
        long wall = System.nanoTime();
        long running = threads.getCurrentThreadCpuTime();
        int n = read(schedstat, SCHEDSTAT);
        long waiting = number(n, skipSpaces(n, skipDigits(n, skipSpaces(n, 0))));
        n = read(status, STATUS);
        long switches = number(n, skipSpaces(n, find(n, VOLUNTARY) + VOLUNTARY.length));

        long waited = waiting - waitingAt;
        long offCore = waited;
        if (switches == switchesAt) {
            offCore = Math.max(waited, (wall - wallAt) - (running - runningAt));
        }
        wallAt = wall;
        runningAt = running;
        waitingAt = waiting;
        switchesAt = switches;
        return offCore;
    }

    /** Reads a whole small file into the buffer, without allocating; returns its length. */
    private int read(RandomAccessFile file, String name) {
        try {
            file.seek(0);
            int n = 0;
            for (int r; n < buffer.length && (r = file.read(buffer, n, buffer.length - n)) > 0; ) {
                n += r;
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + name, e);
        }
    }

    /** @return the index in the buffer's first {@code n} bytes at which {@code text} starts */
    private int find(int n, byte[] text) {
        outer:
        for (int i = 0; i + text.length <= n; i++) {
            for (int j = 0; j < text.length; j++) {
                if (buffer[i + j] != text[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new NumberFormatException(new String(text, StandardCharsets.US_ASCII).trim() + " not found");
    }

    private int skipSpaces(int n, int i) {
        while (i < n && (buffer[i] == ' ' || buffer[i] == '\t')) {
            i++;
        }
        return i;
    }

    private int skipDigits(int n, int i) {
        while (i < n && buffer[i] >= '0' && buffer[i] <= '9') {
            i++;
        }
        return i;
    }

    /** @return the decimal number at index {@code i} of the buffer */
    private long number(int n, int i) {
        if (i >= n || buffer[i] < '0' || buffer[i] > '9') {
            throw new NumberFormatException("no number at " + i);
        }
        long value = 0;
        for (; i < n && buffer[i] >= '0' && buffer[i] <= '9'; i++) {
            value = value * 10 + (buffer[i] - '0');
        }
        return value;
    }

    @Override
    public void close() {
        try {
            schedstat.close();
            status.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing " + SCHEDSTAT, e);
        }
    }
}
