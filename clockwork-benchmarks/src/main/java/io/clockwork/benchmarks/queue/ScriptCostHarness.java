package io.clockwork.benchmarks.queue;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What each hot queue operation costs the {@code redis-server}, one operation at a time: the phases run one after
 * another on one standalone server, {@value #THREADS} client threads each, and each phase reads {@code INFO
 * commandstats} (script time: {@code fcall} and {@code evalsha} usec, which includes the commands a script calls) and the server
 * process's CPU around itself. Several threads' concurrent calls of one partition may share one script call (the
 * client's group commit), so the table gives the time per script call and per message. Not JMH: a phase is one pass
 * over {@code --messages} messages, after a warm-up pass of the same. Not thread-safe; a command-line program.
 *
 * <pre>{@code java -cp clockwork-benchmarks/target/benchmarks.jar io.clockwork.benchmarks.queue.ScriptCostHarness \
 *     [--messages 100000] [--redis-server redis-server] [--code functions|scripts]}</pre>
 * {@code --code scripts} runs the queue as a user refused {@code FCALL} and {@code FUNCTION}, so its code runs as
 * scripts ({@code EVALSHA}), as on Redis 6.2.
 */
public final class ScriptCostHarness {

    private static final int THREADS = 4;
    private static final String PAYLOAD = "x".repeat(100);
    private static final Duration HOUR = Duration.ofHours(1);

    private final RedisServers.Server server;
    private final String uri;
    private final List<String> rows = new ArrayList<>();

    private ScriptCostHarness(RedisServers.Server server, String uri) {
        this.server = server;
        this.uri = uri;
    }

    /** One operation on one message; {@code i} numbers the messages of a phase, {@code state} is the thread's. */
    private interface Op {
        void run(int i, Object[] state) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int messages = 100_000;
        String binary = "redis-server";
        String code = "functions";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--messages" -> messages = Integer.parseInt(args[++i]);
                case "--redis-server" -> binary = args[++i];
                case "--code" -> code = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; options: --messages N, --redis-server PATH, --code functions|scripts");
            }
        }
        if (!code.equals("functions") && !code.equals("scripts")) {
            throw new IllegalArgumentException("--code must be functions or scripts, was " + code);
        }
        try (RedisServers servers = new RedisServers(binary)) {
            RedisServers.Server server = servers.standalone();
            String uri = server.uri();
            if (code.equals("scripts")) {
                // A user refused FCALL and FUNCTION runs the same code as scripts, as on Redis 6.2.
                server.call("ACL", "SETUSER", "scripts", "on", ">pw", "~*", "&*", "+@all", "-fcall", "-function");
                uri = "redis://scripts:pw@127.0.0.1:" + server.port;
            }
            System.out.println("redis-server " + servers.version() + ", " + THREADS + " client threads, "
                    + messages + " messages per phase, 100-byte payloads, 1 partition, the queue's code as " + code);
            ScriptCostHarness h = new ScriptCostHarness(server, uri);
            h.run(messages, false);
            h.rows.clear();
            h.run(messages, true);
            System.out.println();
            System.out.println("| operation | script calls | script µs per call | script µs per message"
                    + " | server CPU µs per message |");
            System.out.println("|---|---:|---:|---:|---:|");
            h.rows.forEach(System.out::println);
        }
    }

    private void run(int n, boolean measured) throws Exception {
        String suffix = measured ? "m" : "w";
        try (RedisDelayedQueue<String> q = RedisDelayedQueue.builder(uri, "cost-" + suffix, Codec.string())
                .build();
             RedisDelayedQueue<String> flat = RedisDelayedQueue.builder(uri, "cost-flat-" + suffix,
                     Codec.string()).compactAfter(QueueRival.PER_MESSAGE).build()) {
            phase("offer, due in 1 h (compact store)", n, measured, (i, s) -> q.offer(PAYLOAD, HOUR));
            phase("offer, due in 1 h (per-message layout)", n, measured, (i, s) -> flat.offer(PAYLOAD, HOUR));
            phase("offer, due now", n, measured, (i, s) -> q.offer(PAYLOAD, Duration.ZERO));
            ConcurrentLinkedQueue<Delivery<String>> held = new ConcurrentLinkedQueue<>();
            phase("poll, one message", n, measured, (i, s) -> held.add(q.poll(Duration.ZERO)));
            List<Delivery<String>> all = new ArrayList<>(held);
            phase("extend", n, measured, (i, s) -> all.get(i).extend(Duration.ofMinutes(5)));
            phase("ack", n, measured, (i, s) -> all.get(i).ack());
            for (int i = 0; i < n; i++) {
                q.offer(PAYLOAD, Duration.ZERO);
            }
            // A handler's turnover: ack the job, take the next, one call; each thread starts from one poll.
            phase("ackAndPoll (a handler's turnover)", n, measured, (i, s) -> {
                @SuppressWarnings("unchecked")
                Delivery<String> d = (Delivery<String>) s[0];
                if (d == null) {
                    d = q.poll(Duration.ZERO);
                    if (d == null) {
                        return; // the other threads' turnovers took the last messages
                    }
                }
                AckAndPoll<String> r = q.ackAndPoll(d);
                s[0] = r.next();
            });
            String[] ids = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = "job-" + suffix + "-" + i;
                flat.offer(ids[i], PAYLOAD, HOUR);
            }
            phase("cancel by id", n, measured, (i, s) -> flat.cancel(ids[i]));
        }
    }

    /** Runs n operations from THREADS threads, each taking the next message number, and records the server's cost. */
    private void phase(String name, int n, boolean measured, Op op) throws Exception {
        server.call("CONFIG", "RESETSTAT");
        long cpu0 = server.cpuMillis();
        long t0 = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            Thread th = new Thread(() -> {
                Object[] state = new Object[1];
                try {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        op.run(i, state);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            }, "cost-" + t);
            th.start();
        }
        done.await();
        if (!failures.isEmpty()) {
            throw new IllegalStateException("phase '" + name + "' failed", failures.get(0));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long cpuMillis = server.cpuMillis() - cpu0;
        Map<String, long[]> stats = ServerTime.commandStats(server);
        long[] scripts = ServerTime.scripts(stats);
        String row = String.format(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f |", name, scripts[0],
                scripts[1] / (double) Math.max(1, scripts[0]), scripts[1] / (double) n, cpuMillis * 1000.0 / n);
        if (measured) {
            rows.add(row);
            System.out.println(String.format(Locale.ROOT, "%s: %,.0f messages/s", row, n / seconds));
        }
    }
}
