package io.clockwork.cli.demo;

import java.io.PrintWriter;
import java.time.Duration;
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
     * Reports a producing run and decides its exit code.
     *
     * @return 0 if every order was accounted for exactly once, else 1
     */
    int producer(DemoSettings s, Ledger ledger, OrderProducer producer, WorkerPool pool, long dead, boolean timedOut,
            Duration elapsed) {
        Ledger.Reconciliation r = ledger.reconcile();
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
        if (dead >= 0) {
            line("dead letters", dead, "in the queue");
        }
        line("lost", r.lost(), r.lost() == 0 ? "reconciled by id: every order cancelled or delivered"
                : "e.g. " + r.firstLost() + " was neither cancelled nor delivered");
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
        boolean ok = r.lost() == 0 && r.both() == 0 && !timedOut && producer.offerErrors() == 0;
        out.println(ok ? "OK: every order accounted for exactly once"
                : "FAILED: " + (timedOut ? "timed out; " : "") + "orders were lost or mis-accounted");
        out.flush();
        return ok ? 0 : 1;
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
