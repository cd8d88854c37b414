package io.clockwork.benchmarks.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one measurement window of the {@link QueueHarness} saw (rates, CPU of the JVM, of every redis-server and of
 * the machine, slow log entries, connections, failures, command stats), and how it is measured. Not thread-safe: one
 * harness thread fills it.
 */
final class Window {

    double offeredPerSec;
    double takenPerSec;
    long messages;
    double jvmCpuPct;
    double redisCpuPct;
    /** Per redis-server process, in the order of the servers measured. */
    double[] serverCpuPct;
    /** All cores' busy time (everything on the machine), as % of one core. */
    double machineCpuPct;
    long slow;
    long connections;
    long failed;
    Map<String, long[]> commands = new LinkedHashMap<>();

    /**
     * Measures a running workload for a while.
     *
     * @param w       the workload
     * @param where   the servers it runs on (their CPU time, command stats and slow log are read)
     * @param seconds how long to measure
     * @return what the window saw
     * @throws Exception if the workload failed or the wait was interrupted
     */
    static Window over(Workload w, List<RedisServers.Server> where, double seconds) throws Exception {
        for (RedisServers.Server s : where) {
            s.call("CONFIG", "RESETSTAT");
            s.call("SLOWLOG", "RESET");
        }
        long redis0 = 0;
        long[] server0 = new long[where.size()];
        for (int k = 0; k < where.size(); k++) {
            server0[k] = where.get(k).cpuMillis();
            redis0 += server0[k];
        }
        long[] machine0 = machineTicks();
        long jvm0 = Workload.jvmCpuMillis();
        long off0 = w.offered.sum();
        long tak0 = w.taken.sum();
        long fail0 = w.failed.sum();
        long t0 = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        long off1 = w.offered.sum();
        long tak1 = w.taken.sum();
        long t1 = System.nanoTime();
        long jvm1 = Workload.jvmCpuMillis();
        long[] machine1 = machineTicks();
        long redis1 = 0;
        double[] serverCpu = new double[where.size()];
        double windowSecs = (t1 - t0) / 1e9;
        for (int k = 0; k < where.size(); k++) {
            long c = where.get(k).cpuMillis();
            serverCpu[k] = (c - server0[k]) / (windowSecs * 10);
            redis1 += c;
        }
        w.checkError();
        Window win = new Window();
        double secs = (t1 - t0) / 1e9;
        win.offeredPerSec = (off1 - off0) / secs;
        win.takenPerSec = (tak1 - tak0) / secs;
        win.messages = Math.max(off1 - off0, tak1 - tak0);
        win.failed = w.failed.sum() - fail0;
        if (win.failed > 0) {
            System.out.println("  " + win.failed + " operations failed in the window, first: " + w.firstFailure.get());
        }
        win.jvmCpuPct = (jvm1 - jvm0) / (secs * 10);
        win.redisCpuPct = (redis1 - redis0) / (secs * 10);
        win.serverCpuPct = serverCpu;
        // Busy ticks of 10 ms each (USER_HZ 100), as % of one core over the window.
        win.machineCpuPct = machine0[0] < 0 || machine1[0] < 0 ? -1 : (machine1[0] - machine0[0]) * 10 / (secs * 10);
        for (RedisServers.Server s : where) {
            win.slow += (Long) s.call("SLOWLOG", "LEN");
            win.connections += Long.parseLong(infoField(s, "stats", "total_connections_received").trim());
            ServerTime.commandStats(s).forEach((cmd, stat) -> {
                long[] acc = win.commands.computeIfAbsent(cmd, k -> new long[2]);
                acc[0] += stat[0];
                acc[1] += stat[1];
            });
        }
        return win;
    }

    /** @return {busy ticks, all ticks} of all cores since boot, from /proc/stat; {-1, -1} if unreadable */
    static long[] machineTicks() {
        try {
            String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = cpu.trim().split("\\s+");
            long total = 0;
            for (int k = 1; k < f.length; k++) {
                total += Long.parseLong(f[k]);
            }
            long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0); // idle + iowait
            return new long[] {total - idle, total};
        } catch (IOException | RuntimeException e) {
            return new long[] {-1, -1};
        }
    }

    static String infoField(RedisServers.Server s, String section, String field) {
        for (String l : ((String) s.call("INFO", section)).split("\r?\n")) {
            if (l.startsWith(field + ":")) {
                return l.substring(field.length() + 1);
            }
        }
        return "?";
    }
}
