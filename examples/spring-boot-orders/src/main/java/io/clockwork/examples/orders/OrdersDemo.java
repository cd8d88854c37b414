package io.clockwork.examples.orders;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.queue.QueueStats;
import io.clockwork.spring.ClockworkProperties;
import io.clockwork.spring.ClockworkQueues;
import io.clockwork.timer.WheelTimer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Places orders with payment deadlines, pays most of them in time, waits until every payment has finished and no
 * deadline is left in the queue, and prints a report that sets each order's outcome against its intent by order id,
 * with the queue's meters and health. It exits 0 only when every paid order never expired and every unpaid one
 * expired exactly once; a payment whose cancel threw is reported, and its order counts against the run if it then
 * expired. Not thread-safe: runs once at start-up.
 */
@Component
public class OrdersDemo implements CommandLineRunner, ExitCodeGenerator {

    /** Customers pay within this share of the deadline: the rest of it is the margin of a timely payment. */
    private static final double PAY_WITHIN = 0.8;

    private final ClockworkQueues queues;
    private final PaymentDeadlines deadlines;
    private final MeterRegistry registry;
    private final HealthIndicator health;
    private final int count;
    private final double paidShare;
    private final Duration deadline;
    private final Duration statsInterval;
    private final Duration retryFor;
    private final Duration linger;
    private final Environment environment;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile int exitCode = 1;
    private volatile Reconciliation ledger;

    OrdersDemo(ClockworkQueues queues, PaymentDeadlines deadlines, MeterRegistry registry,
               HealthIndicator clockworkHealthIndicator, ClockworkProperties clockwork,
               @Value("${orders.count:1000}") int count,
               @Value("${orders.paid-share:0.7}") double paidShare,
               @Value("${orders.deadline:2s}") Duration deadline,
               @Value("${clockwork.metrics.stats-interval:10s}") Duration statsInterval,
               @Value("${orders.linger:0s}") Duration linger, Environment environment) {
        this.queues = queues;
        this.deadlines = deadlines;
        this.registry = registry;
        this.health = clockworkHealthIndicator;
        this.count = count;
        this.paidShare = paidShare;
        this.deadline = deadline;
        this.statsInterval = statsInterval;
        this.retryFor = clockwork.getRedis().getRetryFor();
        this.linger = linger;
        this.environment = environment;
    }

    @Override
    public void run(String... args) throws InterruptedException {
        DelayedQueue<Order> queue = queues.queue(PaymentDeadlines.QUEUE, Order.class);
        Reconciliation ledger = new Reconciliation(count);
        this.ledger = ledger;
        SplittableRandom random = new SplittableRandom(42);
        long start = System.nanoTime();
        System.out.printf("orders demo: %,d orders, deadline %,d ms after each, %.0f%% paid in time, queue on %s%n",
                count, deadline.toMillis(), paidShare * 100, queues.onRedis() ? "Redis" : "the in-process backend");
        boolean settled;
        try (WheelTimer customers = WheelTimer.builder().name("customers").build()) {
            for (int i = 0; i < count; i++) {
                String id = "order-" + i;
                queue.offer(Message.of(new Order(id, 1000 + i)).id(id).delay(deadline));
                if (random.nextDouble() < paidShare) {
                    long payAfter = (long) (random.nextDouble() * deadline.toMillis() * PAY_WITHIN);
                    ledger.intendToPay(id);
                    customers.schedule(() -> pay(queue, id, ledger), payAfter, TimeUnit.MILLISECONDS);
                }
            }
            long limit = System.nanoTime() + deadline.multipliedBy(2).plus(retryFor).plusSeconds(30).toNanos();
            while (!(settled = ledger.paymentsDone() && empty(queue)) && System.nanoTime() < limit) {
                Thread.sleep(50);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Reconciliation.Mismatches wrong = ledger.mismatches(deadlines);
        int paidOk = ledger.toPay().size() - wrong.paidButExpired().size();
        long foundGoneOk = ledger.foundGone().stream().filter(id -> deadlines.timesExpired(id) == 0).count();
        System.out.printf("report after %.1f s%n", seconds);
        System.out.printf("  intent      %,7d  to be paid in time, %,d never%n", ledger.toPay().size(),
                count - ledger.toPay().size());
        System.out.printf("  paid        %,7d  deadline cancelled, never expired (%,d of them by a cancel that found"
                + " the deadline gone)%n", paidOk, foundGoneOk);
        System.out.printf("  expired     %,7d  by the @ClockworkListener%n", deadlines.expired().size());
        System.out.printf("  slowest     %,7d  ms a payment's cancel took%n",
                TimeUnit.NANOSECONDS.toMillis(ledger.slowestNanos()));
        if (!ledger.failed().isEmpty()) {
            Map.Entry<String, String> first = ledger.failed().entrySet().iterator().next();
            System.out.printf("  failed      %,7d  payments whose cancel threw, e.g. %s: %s%n",
                    ledger.failed().size(), first.getKey(), first.getValue());
        }
        System.out.printf("  mismatched  %,7d  outcome differs from intent: %,d paid but expired%s, %,d never paid"
                        + " and never expired%s, %,d expired more than once%s%n", wrong.count(),
                wrong.paidButExpired().size(), some(wrong.paidButExpired()), wrong.unpaidNotExpired().size(),
                some(wrong.unpaidNotExpired()), wrong.expiredTwice().size(), some(wrong.expiredTwice()));
        Thread.sleep(statsInterval.toMillis() + 100); // the state gauges show the sample taken after the run
        System.out.println("meters (clockwork.*)");
        registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("clockwork."))
                .sorted(Comparator.comparing((Meter m) -> m.getId().getName()).thenComparing(m -> m.getId().toString()))
                .forEach(m -> System.out.println("  " + describe(m)));
        System.out.println("health: " + health.health(false).getStatus());
        exitCode = settled && wrong.count() == 0 ? 0 : 1;
        if (exitCode == 0) {
            System.out.println("OK: every order's outcome is its intent: each paid order never expired, each unpaid"
                    + " one expired exactly once");
        } else if (!settled) {
            System.out.printf("FAILED: not settled after %.1f s (payments still running, or deadlines left in the"
                    + " queue); %,d orders differ from their intent so far%n", seconds, wrong.count());
        } else {
            System.out.printf("FAILED: %,d orders' outcome differs from their intent%n", wrong.count());
        }
        linger();
    }

    /** Pays an order: cancels its deadline, and records what the cancel answered or threw. */
    private static void pay(DelayedQueue<Order> queue, String id, Reconciliation ledger) {
        long start = System.nanoTime();
        try {
            ledger.paid(id, queue.cancel(id), System.nanoTime() - start);
        } catch (RuntimeException e) {
            ledger.cancelFailed(id, e, System.nanoTime() - start);
        }
    }

    /** @return whether the queue holds no deadline, delayed, due or being handled; false while it cannot tell */
    private static boolean empty(DelayedQueue<Order> queue) {
        try {
            QueueStats s = queue.stats();
            return s.delayed() == 0 && s.ready() == 0 && s.inFlight() == 0;
        } catch (RuntimeException e) {
            return false; // the backend does not answer now; the next check asks again
        }
    }

    private static String some(List<String> ids) {
        return ids.isEmpty() ? "" : " (" + String.join(", ", ids.subList(0, Math.min(3, ids.size())))
                + (ids.size() > 3 ? ", ..." : "") + ")";
    }

    /**
     * Keeps the application, and so its HTTP endpoints, up for {@code orders.linger} after the report, or until the
     * context closes (Ctrl-C).
     */
    private void linger() throws InterruptedException {
        if (linger.isZero()) {
            return;
        }
        String port = environment.getProperty("local.server.port");
        System.out.printf("serving %s for %s (orders.linger), then exiting with %d%n", port == null
                ? "no HTTP endpoints (not a web application)"
                : "http://localhost:" + port + "/actuator/health and /actuator/metrics", linger, exitCode);
        closed.await(linger.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Ends {@link #linger()} when the context closes. */
    @EventListener(ContextClosedEvent.class)
    void contextClosed() {
        closed.countDown();
    }

    /** @return the ledger of the last run, or null before one */
    Reconciliation ledger() {
        return ledger;
    }

    private static String describe(Meter m) {
        String tags = m.getId().getTags().stream().filter(t -> !t.getKey().equals("backend"))
                .map(t -> t.getKey() + "=" + t.getValue()).reduce((a, b) -> a + "," + b).orElse("");
        String name = m.getId().getName() + "{" + tags + "}";
        if (m instanceof Counter c) {
            return String.format("%-66s %,8.0f", name, c.count());
        }
        if (m instanceof Gauge g) {
            return String.format("%-66s %,8.0f", name, g.value());
        }
        if (m instanceof Timer t) {
            return String.format("%-66s %,8d  mean %.2f ms, max %.2f ms", name, t.count(),
                    t.mean(TimeUnit.MILLISECONDS), t.max(TimeUnit.MILLISECONDS));
        }
        return name;
    }

    @Override
    public int getExitCode() {
        return exitCode;
    }
}
