package io.clockwork.benchmarks.queue;

import io.lettuce.core.cluster.SlotHash;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The {@code redis-server} processes of one harness run: standalone servers and a Redis Cluster of masters, each on
 * a free loopback port (never 6379) in a temporary directory, without persistence (no RDB, no AOF: the benchmark
 * measures the queues, not the disk). A cluster is formed as the test fixture forms one: {@code CLUSTER
 * SET-CONFIG-EPOCH}, {@code CLUSTER ADDSLOTS} of an even share per master, {@code CLUSTER MEET}, then a wait for
 * {@code cluster_state:ok} on every node. Every process is killed by {@link #close()}, by a shutdown hook, and by a
 * shell watchdog should this JVM die without running its hooks. Not thread-safe: owned by the harness thread.
 */
final class RedisServers implements AutoCloseable {

    /** One running server. */
    static final class Server {
        final int port;
        final Process process;
        final Path dir;

        Server(int port, Process process, Path dir) {
            this.port = port;
            this.process = process;
            this.dir = dir;
        }

        String uri() {
            return "redis://127.0.0.1:" + port;
        }

        Object call(String... args) {
            try (Resp r = new Resp(port, 120_000)) {
                return r.call(args);
            }
        }

        /** @return user plus system CPU time of the process so far, in milliseconds (from /proc) */
        long cpuMillis() {
            return RedisServers.cpuMillis(process.pid());
        }
    }

    /**
     * @param pid a process on this machine
     * @return its user plus system CPU time so far, in milliseconds, from {@code /proc/<pid>/stat} (10 ms steps);
     *         -1 if unreadable (no such process, or no /proc)
     */
    static long cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 10; // USER_HZ is 100 on Linux
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static final int SLOTS = 16384;
    private final String binary;
    private final List<Server> all = new ArrayList<>();
    private final Thread hook = new Thread(this::close, "redis-servers-shutdown");

    RedisServers(String binary) {
        this.binary = binary;
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** @return the version the binary reports, e.g. {@code 7.0.15} */
    String version() {
        try {
            Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            int i = out.indexOf("v=");
            return i < 0 ? out.trim() : out.substring(i + 2, out.indexOf(' ', i));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A queue name, the first from {@code names} whose partitions' hash slots spread evenly over the masters of a
     * cluster formed here (master i holds the slots [i * 16384 / masters, (i + 1) * 16384 / masters)), so that no
     * master holds more partitions than another by chance of the name.
     *
     * @param names      fresh names to try
     * @param masters    the cluster's masters
     * @param partitions the queue's partitions
     * @return the name
     */
    static String balancedName(Supplier<String> names, int masters, int partitions) {
        while (true) {
            String name = names.get();
            int[] per = new int[masters];
            for (int p = 0; p < partitions; p++) {
                int slot = SlotHash.getSlot("cw:{" + name + ":" + p + "}:pending");
                int master = 0;
                while (slot >= (master + 1) * SLOTS / masters) {
                    master++;
                }
                per[master]++;
            }
            int min = Arrays.stream(per).min().orElse(0);
            int max = Arrays.stream(per).max().orElse(0);
            if (max - min <= (partitions % masters == 0 ? 0 : 1)) {
                return name;
            }
        }
    }

    /** Starts a standalone server. */
    Server standalone() {
        return start(false);
    }

    /** Starts {@code masters} cluster-enabled servers and forms a cluster of them; returns them in slot order. */
    List<Server> cluster(int masters) {
        List<Server> nodes = new ArrayList<>();
        for (int i = 0; i < masters; i++) {
            nodes.add(start(true));
        }
        for (int i = 0; i < masters; i++) {
            Server n = nodes.get(i);
            n.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            int from = i * SLOTS / masters;
            int to = (i + 1) * SLOTS / masters;
            String[] args = new String[2 + to - from];
            args[0] = "CLUSTER";
            args[1] = "ADDSLOTS";
            for (int s = from; s < to; s++) {
                args[2 + s - from] = Integer.toString(s);
            }
            n.call(args);
        }
        for (int i = 1; i < masters; i++) {
            nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            boolean ok = true;
            for (Server n : nodes) {
                String info = (String) n.call("CLUSTER", "INFO");
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + masters)
                        || !info.contains("cluster_slots_ok:" + SLOTS)) {
                    ok = false;
                }
            }
            if (ok) {
                return nodes;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster not ok after 60 s");
            }
            sleep(100);
        }
    }

    private Server start(boolean cluster) {
        for (int attempt = 0; attempt < 10; attempt++) {
            int port = freePort(cluster);
            Path dir;
            try {
                dir = Files.createTempDirectory("cw-bench-redis-" + port + "-");
                String conf = "bind 127.0.0.1\nport " + port + "\nprotected-mode yes\ndaemonize no\n"
                        + "dir \"" + dir + "\"\nlogfile \"" + dir.resolve("redis.log") + "\"\n"
                        + "save \"\"\nappendonly no\n"
                        // Extra redis.conf lines for experiments, e.g. -Dqueue.redis.conf='hash-max-listpack-entries 0'
                        + System.getProperty("queue.redis.conf", "").replace(";", "\n") + "\n"
                        + (cluster ? "cluster-enabled yes\ncluster-config-file nodes.conf\n"
                        + "cluster-node-timeout 5000\n" : "");
                Files.writeString(dir.resolve("redis.conf"), conf);
                Process p = new ProcessBuilder(binary, dir.resolve("redis.conf").toString())
                        .directory(dir.toFile()).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("stdout.log").toFile()).start();
                watchdog(p.pid());
                Server s = new Server(port, p, dir);
                all.add(s);
                if (awaitPong(s)) {
                    return s;
                }
                stop(s);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + binary, e);
            }
        }
        throw new IllegalStateException("redis-server did not start after 10 attempts");
    }

    private static boolean awaitPong(Server s) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!s.process.isAlive()) {
                return false; // most likely the port was taken meanwhile: try another one
            }
            try {
                if ("PONG".equals(s.call("PING"))) {
                    return true;
                }
            } catch (RuntimeException e) {
                // not up yet
            }
            sleep(20);
        }
        return false;
    }

    private static int freePort(boolean cluster) {
        for (int i = 0; i < 100; i++) {
            int port;
            try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = ss.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (port == 6379 || (cluster && (port + 10000 > 65535 || !isFree(port + 10000)))) {
                continue;
            }
            return port;
        }
        throw new IllegalStateException("no free port");
    }

    private static boolean isFree(int port) {
        try (ServerSocket ss = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return ss.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills the server if this JVM dies without its shutdown hooks (SIGKILL): no orphaned redis-server. */
    private static void watchdog(long redisPid) {
        long jvm = ProcessHandle.current().pid();
        String script = "while kill -0 " + redisPid + " 2>/dev/null; do if ! kill -0 " + jvm
                + " 2>/dev/null; then kill -9 " + redisPid + "; exit 0; fi; sleep 1; done";
        try {
            new ProcessBuilder("sh", "-c", script).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            System.err.println("no watchdog for redis-server " + redisPid + ": " + e);
        }
    }

    /** Stops one server (SIGTERM, then SIGKILL after 5 s) and deletes its directory. */
    void stop(Server s) {
        s.process.destroy();
        try {
            if (!s.process.waitFor(5, TimeUnit.SECONDS)) {
                s.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            s.process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        all.remove(s);
        try (Stream<Path> files = Files.walk(s.dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }

    @Override
    public synchronized void close() {
        for (Server s : new ArrayList<>(all)) {
            stop(s);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // called from the hook itself
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
