package io.clockwork.benchmarks.scale;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * How long the calling thread has waited, runnable, for a core: the second field of Linux's
 * {@code /proc/thread-self/schedstat} (nanoseconds spent on a run queue, waiting to run). Lets a probe tell the part
 * of a pause in which its thread was ready to run but every core was busy (other threads of the JVM, the JIT, the
 * collector, other processes) from the part in which it was held up by what it called or stopped by the JVM.
 *
 * <p>Not thread-safe, and bound to the thread that opened it: open and read it on the measured thread. Each read is
 * a {@code pread} of a small file, a few microseconds, so callers sample it, not read it per operation.
 */
final class CoreWaits implements AutoCloseable {

    private static final String FILE = "/proc/thread-self/schedstat";

    private final RandomAccessFile file;
    private final byte[] buffer = new byte[128];

    private CoreWaits(RandomAccessFile file) {
        this.file = file;
    }

    /** @return the calling thread's counter, or null where the kernel does not provide one (not Linux, no schedstats) */
    static CoreWaits openForThisThread() {
        try {
            CoreWaits waits = new CoreWaits(new RandomAccessFile(FILE, "r"));
            waits.nanos();
            return waits;
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return null;
        }
    }

    /** @return nanoseconds the opening thread has spent runnable but not running, since it started */
    long nanos() {
        try {
            file.seek(0);
            int n = file.read(buffer);
            String[] fields = new String(buffer, 0, Math.max(0, n), StandardCharsets.US_ASCII).trim().split(" ");
            return Long.parseLong(fields[1]);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + FILE, e);
        }
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing " + FILE, e);
        }
    }
}
