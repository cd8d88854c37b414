package io.clockwork.examples.orders;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example on a real redis-server that is killed while customers pay and restarted on the same port (its AOF
 * keeps what it acknowledged): a payment's cancel that fails makes its order expire against the customer's intent,
 * and the example must then say FAILED and exit 1; with the starter's retry the same outage changes no outcome and
 * the example says OK.
 */
@ExtendWith(OutputCaptureExtension.class)
class OrdersRedisOutageIT {

    private static final int COUNT = 400;
    /** Longer than the outage and the restart together, so that a retried cancel can still come in time. */
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    /**
     * Long enough that some payments fall after the client has seen the connection drop, even on a busy machine:
     * a cancel sent before that is written to the dropped connection and replayed once Redis is back.
     */
    private static final Duration OUTAGE = Duration.ofSeconds(4);

    private static RedisServerProcess redis;

    /**
     * What one run of the example did.
     *
     * @param exitCode  its exit status
     * @param output    what it printed
     * @param ledger    its intents and payments
     * @param deadlines its listener, with the orders it expired
     */
    private record Run(int exitCode, String output, Reconciliation ledger, PaymentDeadlines deadlines) {
    }

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.builder().appendOnly(true).start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void aCancelThatFailsIsReportedAndTheRunFails(CapturedOutput output) throws Exception {
        Run run = runThroughAnOutage(output, "--clockwork.redis.retry-for=0s");
        assertThat(run.ledger().failed()).as("cancels that met the outage").isNotEmpty();
        Set<String> paidButExpired = run.ledger().toPay().stream().filter(run.deadlines().expired()::contains)
                .collect(Collectors.toSet());
        assertThat(paidButExpired).as("a failed cancel left the deadline, which expired the paid order")
                .isNotEmpty().isSubsetOf(run.ledger().failed().keySet());
        assertThat(run.output()).contains("FAILED: " + paidButExpired.size() + " orders' outcome differs")
                .contains("payments whose cancel threw").doesNotContain("OK:");
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    void withTheRetryEveryOrdersOutcomeIsItsIntent(CapturedOutput output) throws Exception {
        Run run = runThroughAnOutage(output);
        assertThat(run.ledger().slowestNanos()).as("a payment's cancel waited out the outage")
                .isGreaterThan(OUTAGE.toNanos() / 2);
        assertThat(run.ledger().failed()).as("no cancel threw").isEmpty();
        Set<String> unpaid = new HashSet<>();
        for (int i = 0; i < COUNT; i++) {
            unpaid.add("order-" + i);
        }
        unpaid.removeAll(run.ledger().toPay());
        assertThat(run.deadlines().expired()).as("exactly the unpaid orders expired").isEqualTo(unpaid);
        assertThat(unpaid).allSatisfy(id -> assertThat(run.deadlines().timesExpired(id)).isOne());
        assertThat(run.output()).contains("OK:").doesNotContain("FAILED");
        assertThat(run.exitCode()).isZero();
    }

    /**
     * Runs the example on Redis, kills Redis once customers have paid a few orders, restarts it after the outage and
     * returns when the example has finished.
     */
    private Run runThroughAnOutage(CapturedOutput output, String... extra) throws Exception {
        redis.flushAll();
        List<String> args = new ArrayList<>(List.of("--clockwork.redis.uri=" + redis.uri(),
                "--orders.count=" + COUNT, "--orders.deadline=" + DEADLINE.toMillis() + "ms", "--server.port=0"));
        args.addAll(List.of(extra));
        int before = output.getOut().length();
        CompletableFuture<ConfigurableApplicationContext> app;
        try (DelayedQueue<String> probe = RedisDelayedQueue.builder(redis.uri(), PaymentDeadlines.QUEUE,
                Codec.string()).build()) {
            app = CompletableFuture.supplyAsync(
                    () -> SpringApplication.run(OrdersApplication.class, args.toArray(String[]::new)));
            // Offers only add deadlines and cancels only take them away: a fall of 20 from the highest count
            // means the orders are placed and customers are paying.
            AtomicLong highest = new AtomicLong();
            Await.until("customers paying", Duration.ofSeconds(60), () -> {
                long delayed = probe.stats().delayed();
                highest.accumulateAndGet(delayed, Math::max);
                return highest.get() >= COUNT / 2 && highest.get() - delayed >= 20 || app.isDone();
            });
            assertThat(app).as("the example still runs").isNotDone();
        }
        redis.kill();
        // The outage itself: real time is the subject here.
        LockSupport.parkNanos(OUTAGE.toNanos());
        redis.restart();
        ConfigurableApplicationContext context = app.get(2, TimeUnit.MINUTES);
        Reconciliation ledger = context.getBean(OrdersDemo.class).ledger();
        PaymentDeadlines deadlines = context.getBean(PaymentDeadlines.class);
        int exitCode = SpringApplication.exit(context);
        return new Run(exitCode, output.getOut().substring(before), ledger, deadlines);
    }
}
