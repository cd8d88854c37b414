package io.clockwork.benchmarks.queue;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one phase of a harness cost the {@code redis-server}: its scripts' time ({@code INFO commandstats}'
 * {@code fcall} and {@code evalsha} usec, which includes the commands they call) and its process's CPU time ({@code INFO cpu}: the
 * scripts plus reading requests and writing replies), per message, printed as one line. Tells a server-bound phase
 * from a client-bound one: a rate that falls while the server's time per message stays is the client's doing. Not
 * thread-safe: one phase per instance.
 */
final class ServerTime {

    private final RedisServers.Server server;
    private final long wall0;
    private final double cpu0;

    private ServerTime(RedisServers.Server server) {
        this.server = server;
        this.wall0 = System.nanoTime();
        this.cpu0 = server == null ? 0 : cpuSeconds(server);
    }

    /**
     * Resets the server's command statistics and starts timing a phase.
     *
     * @param server the server, or null to time nothing (a warm-up)
     * @return the phase's timer
     */
    static ServerTime start(RedisServers.Server server) {
        if (server != null) {
            server.call("CONFIG", "RESETSTAT");
        }
        return new ServerTime(server);
    }

    /**
     * Prints the phase's server time per message: script µs, server CPU µs, and the server's busy share of the wall.
     *
     * @param phase    the phase's name
     * @param messages how many messages the phase handled
     */
    void print(String phase, int messages) {
        if (server == null) {
            return;
        }
        double wall = (System.nanoTime() - wall0) / 1e9;
        double cpu = cpuSeconds(server) - cpu0;
        long[] scripts = scripts(commandStats(server));
        long calls = scripts[0];
        long scriptUsec = scripts[1];
        System.out.println(String.format(Locale.ROOT, "    %s: server %.1f µs of scripts and %.1f µs of CPU per message"
                + " (%,d script calls), busy %.0f%% of %.2f s", phase, scriptUsec / (double) messages,
                cpu * 1e6 / messages, calls, 100 * cpu / wall, wall));
    }

    /**
     * @param stats {@link #commandStats} of a server
     * @return {calls, usec} of the queue's script calls: {@code FCALL} (functions, Redis 7.0+) and {@code EVALSHA}
     *         (scripts) together
     */
    static long[] scripts(Map<String, long[]> stats) {
        long[] f = stats.getOrDefault("fcall", new long[2]);
        long[] e = stats.getOrDefault("evalsha", new long[2]);
        return new long[] {f[0] + e[0], f[1] + e[1]};
    }

    /**
     * Reads {@code INFO commandstats}.
     *
     * @param server the server
     * @return per command name (e.g. {@code evalsha}): {calls, usec} since the server started or its last
     *         {@code CONFIG RESETSTAT}
     */
    static Map<String, long[]> commandStats(RedisServers.Server server) {
        Map<String, long[]> result = new HashMap<>();
        for (String l : ((String) server.call("INFO", "commandstats")).split("\r?\n")) {
            if (!l.startsWith("cmdstat_")) {
                continue;
            }
            long[] acc = result.computeIfAbsent(l.substring(8, l.indexOf(':')), k -> new long[2]);
            for (String kv : l.substring(l.indexOf(':') + 1).split(",")) {
                String[] p = kv.split("=");
                if (p[0].equals("calls")) {
                    acc[0] = Long.parseLong(p[1]);
                } else if (p[0].equals("usec")) {
                    acc[1] = Long.parseLong(p[1]);
                }
            }
        }
        return result;
    }

    private static double cpuSeconds(RedisServers.Server server) {
        double total = 0;
        for (String l : ((String) server.call("INFO", "cpu")).split("\r?\n")) {
            if (l.startsWith("used_cpu_user:") || l.startsWith("used_cpu_sys:")) {
                total += Double.parseDouble(l.substring(l.indexOf(':') + 1).trim());
            }
        }
        return total;
    }
}
