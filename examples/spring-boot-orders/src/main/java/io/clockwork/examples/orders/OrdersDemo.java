package io.clockwork.examples.orders;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.spring.ClockworkQueues;
import io.clockwork.timer.WheelTimer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Places orders with payment deadlines, pays most of them in time, waits until every order is paid or expired, and
 * prints a report reconciled by order id with the queue's meters and health. Not thread-safe: runs once at start-up.
 */
@Component
public class OrdersDemo implements CommandLineRunner, ExitCodeGenerator {

    private final ClockworkQueues queues;
    private final PaymentDeadlines deadlines;
    private final MeterRegistry registry;
    private final HealthIndicator health;
    private final int count;
    private final double paidShare;
    private final Duration deadline;
    private final Duration statsInterval;
    private int exitCode = 1;

    OrdersDemo(ClockworkQueues queues, PaymentDeadlines deadlines, MeterRegistry registry,
               HealthIndicator clockworkHealthIndicator,
               @Value("${orders.count:1000}") int count,
               @Value("${orders.paid-share:0.7}") double paidShare,
               @Value("${orders.deadline:2s}") Duration deadline,
               @Value("${clockwork.metrics.stats-interval:10s}") Duration statsInterval) {
        this.queues = queues;
        this.deadlines = deadlines;
        this.registry = registry;
        this.health = clockworkHealthIndicator;
        this.count = count;
        this.paidShare = paidShare;
        this.deadline = deadline;
        this.statsInterval = statsInterval;
    }

    @Override
    public void run(String... args) throws InterruptedException {
        DelayedQueue<Order> queue = queues.queue(PaymentDeadlines.QUEUE, Order.class);
        Set<String> paid = ConcurrentHashMap.newKeySet();
        Set<String> paidLate = ConcurrentHashMap.newKeySet();
        SplittableRandom random = new SplittableRandom(42);
        long start = System.nanoTime();
        System.out.printf("orders demo: %,d orders, deadline %,d ms after each, %.0f%% paid in time, queue on %s%n",
                count, deadline.toMillis(), paidShare * 100, queues.onRedis() ? "Redis" : "the in-process backend");
        try (WheelTimer customers = WheelTimer.builder().name("customers").build()) {
            for (int i = 0; i < count; i++) {
                String id = "order-" + i;
                queue.offer(Message.of(new Order(id, 1000 + i)).id(id).delay(deadline));
                if (random.nextDouble() < paidShare) {
                    long payAfter = (long) (random.nextDouble() * deadline.toMillis() * 0.9);
                    customers.schedule(() -> (queue.cancel(id) ? paid : paidLate).add(id), payAfter,
                            TimeUnit.MILLISECONDS);
                }
            }
            long limit = System.nanoTime() + deadline.multipliedBy(2).plusSeconds(30).toNanos();
            while (paid.size() + deadlines.expired().size() < count && System.nanoTime() < limit) {
                Thread.sleep(50);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long both = paid.stream().filter(deadlines.expired()::contains).count();
        long lost = count - paid.size() - deadlines.expired().size() + both;
        System.out.printf("report after %.1f s%n", seconds);
        System.out.printf("  paid        %,7d  deadline cancelled%n", paid.size());
        System.out.printf("  expired     %,7d  by the @ClockworkListener (%,d of them paid too late)%n",
                deadlines.expired().size(), paidLate.size());
        System.out.printf("  lost        %,7d  reconciled by id: each order paid or expired, never both (%d both)%n",
                lost, both);
        Thread.sleep(statsInterval.toMillis() + 100); // the state gauges show the sample taken after the run
        System.out.println("meters (clockwork.*)");
        registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("clockwork."))
                .sorted(Comparator.comparing((Meter m) -> m.getId().getName()).thenComparing(m -> m.getId().toString()))
                .forEach(m -> System.out.println("  " + describe(m)));
        System.out.println("health: " + health.health(false).getStatus());
        exitCode = lost == 0 && both == 0 ? 0 : 1;
        System.out.println(exitCode == 0 ? "OK: every order accounted for exactly once" : "FAILED: orders lost");
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
