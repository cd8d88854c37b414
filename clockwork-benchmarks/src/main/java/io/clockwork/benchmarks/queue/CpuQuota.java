package io.clockwork.benchmarks.queue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A CPU quota on one process, through a cgroup v1 {@code cpu} controller ({@code cpu.cfs_quota_us} over a 100 ms
 * {@code cpu.cfs_period_us}): the process may use at most {@code cores} of CPU time per wall-clock second, as if it
 * ran alone on a machine that small. The benchmarks use it to simulate Redis masters on separate small machines when
 * every process shares one 2-core host, so that Redis, not the shared client, is what a cluster spreads. Needs root
 * and a writable {@code /sys/fs/cgroup/cpu}; {@link #unavailable()} says why not. Closing moves the process back to
 * the root group (if it still runs) and removes the group. Not thread-safe.
 */
final class CpuQuota implements AutoCloseable {

    static final Path ROOT = Path.of("/sys/fs/cgroup/cpu");
    private static final long PERIOD_US = 100_000;

    private final Path dir;
    private final long pid;

    /**
     * Puts a running process under a quota.
     *
     * @param pid   the process
     * @param cores the quota in cores, e.g. 0.25 for a quarter of one core; at least 0.01
     */
    CpuQuota(long pid, double cores) {
        if (!(cores >= 0.01)) {
            throw new IllegalArgumentException("cores must be at least 0.01: " + cores);
        }
        String why = unavailable();
        if (why != null) {
            throw new IllegalStateException(why);
        }
        this.pid = pid;
        this.dir = ROOT.resolve("clockwork-bench-" + ProcessHandle.current().pid() + "-" + pid);
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
            Files.writeString(dir.resolve("cpu.cfs_quota_us"), Long.toString(Math.round(cores * PERIOD_US)));
            Files.writeString(dir.resolve("cgroup.procs"), Long.toString(pid));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot put process " + pid + " under a CPU quota in " + dir, e);
        }
    }

    /** @return null if quotas can be set here, else why not (for a clear message instead of a figure) */
    static String unavailable() {
        if (!Files.isDirectory(ROOT)) {
            return "no cgroup v1 cpu controller at " + ROOT + " (CPU quotas need it)";
        }
        if (!Files.isWritable(ROOT)) {
            return ROOT + " is not writable (CPU quotas need root)";
        }
        return null;
    }

    /** @return in how many 100 ms periods the quota stopped the process so far; -1 if unknown */
    long throttledPeriods() {
        try {
            for (String l : Files.readAllLines(dir.resolve("cpu.stat"))) {
                if (l.startsWith("nr_throttled ")) {
                    return Long.parseLong(l.substring("nr_throttled ".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "pid %d in %s", pid, dir);
    }

    @Override
    public void close() {
        try {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                Files.writeString(ROOT.resolve("cgroup.procs"), Long.toString(pid));
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            System.err.println("could not remove " + dir + ": " + e);
        }
    }
}
