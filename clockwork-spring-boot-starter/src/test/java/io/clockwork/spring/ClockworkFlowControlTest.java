package io.clockwork.spring;

import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.testing.Await;
import io.clockwork.time.ManualTicker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flow-control properties of {@code clockwork.queues.<name>} in real application contexts with in-process queues:
 * bound, checked at start (a bad value fails it naming the property) and applied to the queue's builder.
 */
class ClockworkFlowControlTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class));

    private static List<String> values(List<Delivery<String>> deliveries) {
        return deliveries.stream().map(Delivery::value).toList();
    }

    @Test
    void maxInFlightPerGroupHoldsAGroupToItsLimitWhileOtherGroupsGoOn() {
        runner.withPropertyValues("clockwork.queues.tenants.max-in-flight-per-group=1").run(context -> {
            DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("tenants", String.class);
            q.offer(Message.of("a1").group("a"));
            q.offer(Message.of("a2").group("a"));
            Delivery<String> a1 = q.poll(Duration.ZERO);
            assertThat(a1.value()).isEqualTo("a1");
            assertThat(q.poll(Duration.ZERO)).as("a's one slot is taken").isNull();
            q.offer(Message.of("b1").group("b"));
            assertThat(q.poll(Duration.ZERO).value()).as("another group goes on").isEqualTo("b1");
            assertThat(a1.ack()).isTrue();
            assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a2");
        });
    }

    @Test
    void rateLimitsHoldDeliveriesBackAndCountTheWaits() {
        runner.withPropertyValues("clockwork.queues.paced.rate-limit.permits=2",
                "clockwork.queues.paced.rate-limit.interval=1h",
                "clockwork.queues.grouped.group-rate-limit.permits=1",
                "clockwork.queues.grouped.group-rate-limit.interval=1h").run(context -> {
                    ClockworkQueues queues = context.getBean(ClockworkQueues.class);
                    DelayedQueue<String> paced = queues.queue("paced", String.class);
                    paced.offerAll(List.of("m1", "m2", "m3"), Duration.ZERO);
                    assertThat(values(paced.poll(10, Duration.ZERO))).containsExactly("m1", "m2");
                    assertThat(paced.poll(Duration.ZERO)).as("no permit left this hour").isNull();
                    assertThat(paced.counters().orElseThrow().rateLimited()).isEqualTo(1);
                    assertThat(paced.stats().ready()).as("held back, not dropped").isEqualTo(1);

                    DelayedQueue<String> grouped = queues.queue("grouped", String.class);
                    for (String v : List.of("a1", "a2", "b1", "b2")) {
                        grouped.offer(Message.of(v).group(v.substring(0, 1)));
                    }
                    assertThat(values(grouped.poll(10, Duration.ZERO))).containsExactlyInAnyOrder("a1", "b1");
                    assertThat(grouped.poll(Duration.ZERO)).isNull();
                });
    }

    @Test
    void theRateLimitedWaitsReachTheApplicationsMeterRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues(
                "clockwork.queues.paced.rate-limit.permits=1", "clockwork.queues.paced.rate-limit.interval=1h",
                "clockwork.metrics.stats-interval=50ms").run(context -> {
                    DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("paced", String.class);
                    q.offerAll(List.of("a", "b"), Duration.ZERO);
                    assertThat(q.poll(Duration.ZERO).value()).isEqualTo("a");
                    assertThat(q.poll(Duration.ZERO)).isNull();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Await.until("the held-back poll sampled", () -> {
                        FunctionCounter c = registry.find("clockwork.queue.rate.limited").tag("queue", "paced")
                                .functionCounter();
                        return c != null && c.count() == 1;
                    });
                });
    }

    @Test
    void aRateLimitsIntervalIsOneSecondUnlessSet() throws InterruptedException {
        ClockworkProperties.QueueProperties p = new ClockworkProperties.QueueProperties();
        p.getRateLimit().setPermits(1);
        ManualTicker ticker = new ManualTicker();
        try (InMemoryDelayedQueue<String> q = QueueFlowProperties.apply("q", p,
                InMemoryDelayedQueue.<String>builder().ticker(ticker)).build()) {
            q.offerAll(List.of("m1", "m2"), Duration.ZERO);
            assertThat(q.poll(Duration.ZERO).value()).isEqualTo("m1");
            ticker.advance(Duration.ofMillis(999));
            assertThat(q.poll(Duration.ZERO)).isNull();
            ticker.advance(Duration.ofMillis(1));
            assertThat(q.poll(Duration.ZERO).value()).isEqualTo("m2");
        }
    }

    @Test
    void groupWeightsGiveAGroupMoreTurnsInTheRoundRobin() {
        runner.withPropertyValues("clockwork.queues.weighted.group-weights.vip=2",
                "clockwork.queues.weighted.group-weights[tenant/7]=1").run(context -> {
                    DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("weighted", String.class);
                    for (String v : List.of("v1", "v2", "v3", "v4")) {
                        q.offer(Message.of(v).group("vip"));
                    }
                    for (String v : List.of("n1", "n2")) {
                        q.offer(Message.of(v).group("tenant/7"));
                    }
                    assertThat(values(q.poll(6, Duration.ZERO))).containsExactly("v1", "v2", "n1", "v3", "v4", "n2");
                    ClockworkProperties p = context.getBean(ClockworkProperties.class);
                    assertThat(p.getQueues().get("weighted").getGroupWeights())
                            .containsEntry("vip", 2).containsEntry("tenant/7", 1);
                });
    }

    @Test
    void theGuidesYamlBinds() throws java.io.IOException {
        String yaml = """
                clockwork:
                  queues:
                    invoices:
                      rate-limit:
                        permits: 100
                        interval: 1s
                      group-rate-limit:
                        permits: 10
                        interval: 1m
                      max-in-flight-per-group: 1
                      group-weights:
                        tenant-vip: 3
                        "[tenant/42]": 2
                """;
        List<org.springframework.core.env.PropertySource<?>> sources = new org.springframework.boot.env
                .YamlPropertySourceLoader().load("guide", new org.springframework.core.io.ByteArrayResource(
                        yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        runner.withInitializer(c -> sources.forEach(c.getEnvironment().getPropertySources()::addFirst)).run(context -> {
            ClockworkProperties.QueueProperties q = context.getBean(ClockworkProperties.class).getQueues()
                    .get("invoices");
            assertThat(q.getRateLimit().getPermits()).isEqualTo(100);
            assertThat(q.getGroupRateLimit().getInterval()).isEqualTo(Duration.ofMinutes(1));
            assertThat(q.getMaxInFlightPerGroup()).isEqualTo(1);
            assertThat(q.getGroupWeights()).containsExactly(java.util.Map.entry("tenant-vip", 3),
                    java.util.Map.entry("tenant/42", 2));
            assertThat(context.getBean(ClockworkQueues.class).queue("invoices", String.class)).isNotNull();
        });
    }

    @Test
    void aBadFlowControlValueFailsTheStartNamingThePropertyAndTheRange() {
        String q = "clockwork.queues.orders.";
        for (List<String> bad : List.of(
                List.of(q + "rate-limit.permits=0", q + "rate-limit", "[1, 1000000]"),
                List.of(q + "rate-limit.permits=5", q + "rate-limit.interval=0s", q + "rate-limit", "interval"),
                List.of(q + "group-rate-limit.permits=1000001", q + "group-rate-limit", "[1, 1000000]"),
                List.of(q + "group-rate-limit.interval=2d", q + "group-rate-limit.permits", "must be set"),
                List.of(q + "max-in-flight-per-group=0", q + "max-in-flight-per-group", "[1, 1000000]"),
                List.of(q + "group-weights.vip=1001", q + "group-weights[vip]", "[1, 1000]"),
                List.of(q + "group-weights[" + "g".repeat(129) + "]=2", q + "group-weights[", "128"))) {
            List<String> properties = bad.subList(0, bad.size() - 2);
            String named = bad.get(bad.size() - 2);
            String range = bad.get(bad.size() - 1);
            runner.withPropertyValues(properties.toArray(String[]::new)).run(context -> assertThat(context)
                    .hasFailed().getFailure().rootCause().as("%s", properties).hasMessageContaining(named)
                    .hasMessageContaining(range));
        }
    }

    @Test
    void aValueThatIsNoNumberFailsTheStartNamingTheProperty() {
        runner.withPropertyValues("clockwork.queues.orders.max-in-flight-per-group=many").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "Failed to bind properties under 'clockwork.queues.orders.max-in-flight-per-group'"));
    }

    @Test
    void onRedisTheGroupOptionsAreCheckedAtStartBeforeAnyConnection() {
        runner.withPropertyValues("clockwork.redis.uri=redis://127.0.0.1:1",
                "clockwork.queues.orders.max-in-flight-per-group=1",
                "clockwork.queues.orders.group-weights.vip=2").run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("clockwork.redis.uri=redis://127.0.0.1:1",
                "clockwork.queues.orders.group-weights.vip=0").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clockwork.queues.orders.group-weights[vip]"));
    }
}
