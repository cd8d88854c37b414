package io.clockwork.cli.queue;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.RedisDelayedQueue;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code clockwork queue stats}: the queue's counts by state, then its cumulative event counters, rate-limited polls
 * included. Not thread-safe: one per command line.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Prints the queue's partition count (on Redis), whether it is paused, how many messages are delayed, ready, "
                + "in flight and dead, "
                + "and when the next delayed one is due, then how many messages were offered, delivered, acked, "
                + "retried and dead-lettered since the queue was created, and how many polls a rate limit held back. "
                + "Expired deliveries are returned to the schedule first, as any client call does.")
public final class QueueStatsCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (DelayedQueue<byte[]> q = target.open()) {
            QueueStats st = target.stats(q);
            out.println(target.describe());
            if (q instanceof RedisDelayedQueue<byte[]> redis) {
                out.println(String.format(Locale.ROOT, "  %-12s %,12d", "partitions", redis.partitions()));
            }
            out.println(String.format(Locale.ROOT, "  %-12s %12s", "paused", q.isPaused() ? "yes" : "no"));
            out.println(String.format(Locale.ROOT, "  %-12s %,12d", "delayed", st.delayed()));
            out.println(String.format(Locale.ROOT, "  %-12s %,12d", "ready", st.ready()));
            out.println(String.format(Locale.ROOT, "  %-12s %,12d", "in flight", st.inFlight()));
            out.println(String.format(Locale.ROOT, "  %-12s %,12d", "dead", st.dead()));
            out.println(String.format(Locale.ROOT, "  %-12s %,12d", "total", st.total()));
            if (st.lost() > 0) {
                out.println(String.format(Locale.ROOT, "  %-12s %,12d  (dropped: Redis evicted part of their state)",
                        "lost", st.lost()));
            }
            if (st.trimmed() > 0) {
                out.println(String.format(Locale.ROOT, "  %-12s %,12d  (dead letters removed by the retention)",
                        "trimmed", st.trimmed()));
            }
            out.println(String.format(Locale.ROOT, "  %-12s %12s", "next due in", QueueTarget.dueIn(st)));
            q.counters().ifPresent(c -> {
                out.println("  since the queue was created:");
                out.println(String.format(Locale.ROOT, "    %-13s %,9d", "offered", c.offered()));
                out.println(String.format(Locale.ROOT, "    %-13s %,9d", "delivered", c.delivered()));
                out.println(String.format(Locale.ROOT, "    %-13s %,9d", "acked", c.acked()));
                out.println(String.format(Locale.ROOT, "    %-13s %,9d", "retried", c.retried()));
                out.println(String.format(Locale.ROOT, "    %-13s %,9d", "dead-lettered", c.deadLettered()));
                out.println(String.format(Locale.ROOT, "    %-13s %,9d  (polls a rate limit held back)",
                        "rate-limited", c.rateLimited()));
            });
        }
        out.flush();
        return 0;
    }
}
