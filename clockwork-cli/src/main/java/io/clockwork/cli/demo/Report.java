package io.clockwork.cli.demo;

import io.clockwork.queue.QueueStats;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's closing report, one fact per line with the figure in a fixed column so runs can be compared (and
 * grepped: {@code lost  0}). Not thread-safe: used by the demo's main thread.
 */
final class Report {

    final long start = System.nanoTime();
    private final PrintWriter out;

    Report(PrintWriter out) {
        this.out = out;
    }

    /**
     * What a producing run on Redis did with its keys at the end.
     *
     * @param kind  none (in-process), kept, deleted or failed
     * @param keys  how many keys were deleted
     * @param error why the deletion failed, or null
     */
    record Cleanup(Kind kind, long keys, String error) {
        /** The run is in-process: nothing to clean. */
        static final Cleanup NONE = new Cleanup(Kind.NONE, 0, null);
        /** {@code --keep}: the keys stay. */
        static final Cleanup KEPT = new Cleanup(Kind.KEPT, 0, null);

        enum Kind { NONE, KEPT, DELETED, FAILED }

        static Cleanup deleted(long keys) {
            return new Cleanup(Kind.DELETED, keys, null);
        }

        static Cleanup failed(String error) {
            return new Cleanup(Kind.FAILED, 0, error);
        }
    }

    /**
     * Reports a producing run and decides its exit code.
     *
     * @param left    the orders queue's counts at the end, or null if they could not be read
     * @param cleanup what became of the run's keys on Redis
     * @return 0 if every order was accounted for exactly once; 1 if one was lost, died, was both cancelled and
     *         delivered, or was still in the queue (not delivered yet) at the end, or if an offer failed
     */
    int producer(DemoSettings s, Ledger ledger, OrderProducer producer, WorkerPool pool, QueueStats left,
            boolean timedOut, Cleanup cleanup, Duration elapsed) {
        Ledger.Reconciliation r = ledger.reconcile();
        Ledger.Outcome o = r.outcome(left);
        double secs = Math.max(1e-9, elapsed.toNanos() / 1e9);
        double placeSecs = Math.max(1e-9, producer.scheduleTime().toNanos() / 1e9);
        out.println();
        out.println("report");
        line("scheduled", ledger.scheduled(), String.format(Locale.ROOT, "in %s (%,.0f offers/s)",
                DemoRun.fmt(producer.scheduleTime()), ledger.scheduled() / placeSecs));
        line("cancelled", ledger.cancelled(), "paid before the deadline"
                + (ledger.latePayments() > 0 ? String.format(Locale.ROOT, "; %,d paid too late, after delivery",
                        ledger.latePayments()) : ""));
        String workers = pool == null ? "by worker processes (receipts via Redis)"
                : String.format(Locale.ROOT, "to %d workers (%d started, %d crashed), %,d retries de-duplicated",
                        s.workers(), pool.started(), pool.crashed(), pool.duplicates());
        line("delivered", ledger.delivered(), "acked " + workers);
        if (pool != null) {
            line("expired sessions", pool.expiredSessions(), "workers that stopped heartbeating");
        } else {
            text("expired sessions", "n/a (sessions live in the worker processes)");
        }
        if (o.notDeliveredYet() > 0) {
            line("not delivered yet", o.notDeliveredYet(), "still in the queue (delayed, ready or in flight) when "
                    + "the run ended: not lost, no worker took them in time");
        }
        if (left != null) {
            line("dead letters", left.dead(), "in the queue");
        }
        line("lost", o.lost(), lostNote(r, o));
        if (r.both() > 0) {
            line("both", r.both(), "orders cancelled AND delivered: a broken contract");
        }
        text("throughput", String.format(Locale.ROOT, "%,.0f orders settled/s (%,d in %s)",
                (ledger.cancelled() + ledger.delivered()) / secs, ledger.cancelled() + ledger.delivered(),
                DemoRun.fmt(elapsed)));
        lateness(ledger.lateness());
        long errors = producer.offerErrors() + producer.cancelErrors() + (pool != null ? pool.errors() : 0);
        if (errors > 0) {
            text("errors", String.format(Locale.ROOT, "%,d failed offers, %,d failed cancels, %,d worker errors%s",
                    producer.offerErrors(), producer.cancelErrors(), pool != null ? pool.errors() : 0,
                    pool != null && pool.lastError() != null ? " (last: " + pool.lastError() + ")" : ""));
        }
        keys(s, cleanup);
        List<String> problems = new ArrayList<>();
        if (o.lost() > 0) {
            problems.add(String.format(Locale.ROOT, "%,d order%s lost", o.lost(), o.lost() == 1 ? "" : "s"));
        }
        if (r.both() > 0) {
            problems.add(String.format(Locale.ROOT, "%,d cancelled and delivered", r.both()));
        }
        if (o.dead() > 0) {
            problems.add(String.format(Locale.ROOT, "%,d died (dead letters)", o.dead()));
        }
        if (producer.offerErrors() > 0) {
            problems.add(String.format(Locale.ROOT, "%,d offers failed", producer.offerErrors()));
        }
        String pending = String.format(Locale.ROOT, "%,d order%s not delivered yet (still in the queue when "
                + "--timeout %s ran out)", o.notDeliveredYet(), o.notDeliveredYet() == 1 ? "" : "s",
                DemoRun.fmt(s.timeout()));
        if (problems.isEmpty() && o.notDeliveredYet() == 0) {
            out.println("OK: every order accounted for exactly once");
        } else if (problems.isEmpty()) {
            out.println("INCOMPLETE: " + pending + "; none lost"
                    + (s.working() ? "" : "; are workers running? (clockwork demo --role worker)"));
        } else {
            out.println("FAILED: " + String.join(", ", problems) + (o.notDeliveredYet() > 0 ? "; " + pending : ""));
        }
        out.flush();
        return problems.isEmpty() && o.notDeliveredYet() == 0 ? 0 : 1;
    }

    private static String lostNote(Ledger.Reconciliation r, Ledger.Outcome o) {
        if (!o.known()) {
            return "neither cancelled nor delivered, and the queue's counts could not be read to tell whether it "
                    + "still holds them";
        }
        if (o.lost() > 0) {
            return "neither cancelled, delivered nor in the queue"
                    + (o.notDeliveredYet() == 0 && o.dead() == 0 ? ", e.g. " + r.firstUnsettled() : "");
        }
        return r.unsettled() == 0 ? "reconciled by id: every order cancelled or delivered"
                : "reconciled by id: every order cancelled, delivered or still in the queue";
    }

    private void keys(DemoSettings s, Cleanup cleanup) {
        switch (cleanup.kind()) {
            case KEPT -> text("redis keys", "kept (--keep): see them with clockwork queue stats --queue " + s.queue());
            case DELETED -> text("redis keys", String.format(Locale.ROOT, "the run's %,d deleted (its orders and "
                    + "receipts queues; --keep keeps them)", cleanup.keys()));
            case FAILED -> text("redis keys", "not deleted: " + cleanup.error());
            default -> {
                // in-process: nothing in Redis
            }
        }
    }

    /**
     * Reports a worker process's share.
     *
     * @return 0 (a worker cannot reconcile: the producer does), or 1 if receipts could not be sent
     */
    int worker(WorkerPool pool, RedisReceipts receipts, boolean sawWork, Duration elapsed) {
        out.println();
        out.println("report (worker process)");
        line("delivered", pool.acked(), String.format(Locale.ROOT, "acked by %d workers (%d crashed), %,d retries "
                + "de-duplicated, %,d lost a race to a payment", pool.started(), pool.crashed(), pool.duplicates(),
                pool.ackRefused()));
        line("expired sessions", pool.expiredSessions(), "workers that stopped heartbeating");
        text("lost", "reconciled by the producer process");
        text("throughput", String.format(Locale.ROOT, "%,.0f deliveries/s over %s",
                pool.acked() / Math.max(1e-9, elapsed.toNanos() / 1e9), DemoRun.fmt(elapsed)));
        lateness(pool.lateness());
        if (!sawWork) {
            out.println("no orders arrived before the timeout");
        }
        out.flush();
        return receipts.failures() == 0 ? 0 : 1;
    }

    private void lateness(Lateness lateness) {
        Lateness.Summary l = lateness.summary();
        text("lateness", l == null ? "n/a (nothing delivered)"
                : "p50 " + micros(l.p50()) + "  p99 " + micros(l.p99()) + "  max " + micros(l.max())
                        + "  (delivery time - due time)");
    }

    private static String micros(long us) {
        return DemoRun.fmt(Duration.ofNanos(us * 1_000));
    }

    private void line(String what, long n, String note) {
        out.println(String.format(Locale.ROOT, "  %-17s %,10d  %s", what, n, note));
    }

    private void text(String what, String value) {
        out.println(String.format(Locale.ROOT, "  %-17s %s", what, value));
    }
}
