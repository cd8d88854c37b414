package io.clockwork.spring;

import io.clockwork.micrometer.MeteredDelayedQueue;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.inprocess.InMemoryDelayedQueue;
import io.clockwork.worker.Job;
import io.clockwork.queue.QueueOptions;
import io.clockwork.worker.RetryPolicy;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.redis.RedisQueueBuilder;
import org.postgresql.ds.PGSimpleDataSource;
import io.clockwork.testing.Await;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The auto-configuration in real application contexts with in-process queues (no clockwork.redis.uri). */
class ClockworkAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class));

    record Order(String id, long cents) {
    }

    static class OrderListener {
        final List<Order> orders = new CopyOnWriteArrayList<>();
        final List<String> jobIds = new CopyOnWriteArrayList<>();

        @ClockworkListener(queue = "orders", concurrency = 2)
        void onOrder(Order order) {
            orders.add(order);
        }

        @ClockworkListener(queue = "receipts")
        void onReceipt(Job<String> job) {
            jobIds.add(job.id() + ":" + job.value());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ListenerApp {
        @Bean
        OrderListener orderListener() {
            return new OrderListener();
        }
    }

    @Test
    void withoutRedisQueuesAreInProcessAndListenersReceiveDecodedValues() {
        runner.withUserConfiguration(ListenerApp.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ClockworkQueues.class)
                    .hasSingleBean(ClockworkListeners.class).doesNotHaveBean(io.lettuce.core.RedisClient.class);
            ClockworkQueues queues = context.getBean(ClockworkQueues.class);
            DelayedQueue<Order> orders = queues.queue("orders", Order.class);
            assertThat(orders).as("no registry: not metered").isInstanceOf(InMemoryDelayedQueue.class);
            orders.offer(new Order("o-1", 1999), Duration.ZERO);
            String id = queues.queue("receipts", String.class).offer("r", Duration.ZERO);
            OrderListener listener = context.getBean(OrderListener.class);
            Await.until("both handled", () -> listener.orders.size() == 1 && listener.jobIds.size() == 1);
            assertThat(listener.orders).containsExactly(new Order("o-1", 1999));
            assertThat(listener.jobIds).containsExactly(id + ":r");
            assertThat(context.getBean(ClockworkListeners.class).workers()).hasSize(2)
                    .anySatisfy(w -> assertThat(w.toString()).contains("concurrency 2"))
                    .allSatisfy(w -> assertThat(w.toString()).as("no prefetch set: adaptive").contains("adaptive"));
        });
    }

    @Test
    void queuesAreMeteredIntoTheApplicationsRegistry() {
        runner.withUserConfiguration(ListenerApp.class)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    DelayedQueue<Order> orders = context.getBean(ClockworkQueues.class).queue("orders", Order.class);
                    assertThat(orders).isInstanceOf(MeteredDelayedQueue.class);
                    orders.offer(new Order("o-2", 5), Duration.ZERO);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Await.until("acked", () -> registry.find("clockwork.queue.acked").tag("queue", "orders")
                            .counter() != null && registry.get("clockwork.queue.acked").tag("queue", "orders")
                            .counter().count() == 1);
                    assertThat(registry.get("clockwork.queue.handler").tag("queue", "orders")
                            .tag("outcome", "success").timer().count()).isEqualTo(1);
                });
    }

    /** What the application's worker listeners heard: each ack, by the listener of orders and by the catch-all. */
    static final class Heard {
        final List<String> orders = new CopyOnWriteArrayList<>();
        final List<String> all = new CopyOnWriteArrayList<>();
    }

    @Configuration(proxyBeanMethods = false)
    static class WorkerListenerApp {
        @Bean
        Heard heard() {
            return new Heard();
        }

        @Bean
        WorkerListener<Order> orderEvents(Heard heard) {
            return new WorkerListener<>() {
                @Override
                public void acked(Job<Order> job) {
                    heard.orders.add(String.valueOf((Object) job.value())); // a String here would be misrouted
                }
            };
        }

        @Bean
        WorkerListener<Object> allEvents(Heard heard) {
            return new WorkerListener<>() {
                @Override
                public void acked(Job<Object> job) {
                    heard.all.add(job.id());
                }
            };
        }
    }

    @Test
    void workerListenerBeansHearTheWorkersOfTheirValueTypeBesideTheMetrics() {
        runner.withUserConfiguration(ListenerApp.class, WorkerListenerApp.class)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    ClockworkQueues queues = context.getBean(ClockworkQueues.class);
                    String order = queues.queue("orders", Order.class).offer(new Order("o-3", 7), Duration.ZERO);
                    String receipt = queues.queue("receipts", String.class).offer("r", Duration.ZERO);
                    Heard heard = context.getBean(Heard.class);
                    Await.until("both acks heard by the catch-all listener", () -> heard.all.size() == 2);
                    assertThat(heard.all).containsExactlyInAnyOrder(order, receipt);
                    assertThat(heard.orders).as("the orders' listener hears only orders")
                            .containsExactly(new Order("o-3", 7).toString());
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("clockwork.queue.handler").tag("queue", "orders")
                            .tag("outcome", "success").timer().count()).as("the metrics' listener too").isEqualTo(1);
                });
    }

    @Test
    void metricsCanBeTurnedOff() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("clockwork.metrics.enabled=false")
                .run(context -> assertThat(context.getBean(ClockworkQueues.class).queue("q", String.class))
                        .isNotInstanceOf(MeteredDelayedQueue.class));
    }

    @Test
    void everyBeanBacksOffForTheApplicationsOwn() {
        ClockworkCodecs mine = new ClockworkCodecs() {
            @Override
            @SuppressWarnings("unchecked")
            public <V> Codec<V> codecFor(Class<V> type) {
                return (Codec<V>) Codec.string();
            }
        };
        runner.withBean(ClockworkCodecs.class, () -> mine).run(context ->
                assertThat(context.getBean(ClockworkCodecs.class)).isSameAs(mine));
        ClockworkProperties props = new ClockworkProperties();
        ClockworkQueues queues = new ClockworkQueues(props, ClockworkCodecs.defaults(), null, List.of());
        runner.withBean(ClockworkQueues.class, () -> queues).run(context ->
                assertThat(context.getBean(ClockworkQueues.class)).isSameAs(queues));
    }

    @Test
    void queueAndWorkerPropertiesBind() {
        runner.withUserConfiguration(ListenerApp.class).withPropertyValues(
                "clockwork.queues.orders.visibility-timeout=7s", "clockwork.queues.orders.max-attempts=3",
                "clockwork.worker.concurrency=3", "clockwork.worker.prefetch=5",
                "clockwork.worker.retry.initial-delay=250ms",
                "clockwork.worker.shutdown-timeout=5s", "clockwork.worker.timeout=2m",
                "clockwork.health.dead-letter-threshold=10").run(context -> {
                    ClockworkProperties p = context.getBean(ClockworkProperties.class);
                    assertThat(p.getQueues().get("orders").getVisibilityTimeout()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(p.getWorker().getRetry().getInitialDelay()).isEqualTo(Duration.ofMillis(250));
                    assertThat(p.getHealth().getDeadLetterThreshold()).isEqualTo(10);
                    DelayedQueue<Order> orders = context.getBean(ClockworkQueues.class).queue("orders", Order.class);
                    assertThat(orders.visibilityTimeout()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(orders.maxAttempts()).isEqualTo(3);
                    assertThat(context.getBean(ClockworkListeners.class).workers())
                            .anySatisfy(w -> assertThat(w.toString()).contains("concurrency 3"))
                            .allSatisfy(w -> assertThat(w.toString()).contains("prefetch 5").contains("timeout PT2M"));
                });
    }

    @Test
    void propertyDefaultsAreTheCoresDefaults() {
        ClockworkProperties p = new ClockworkProperties();
        ClockworkProperties.QueueProperties q = new ClockworkProperties.QueueProperties();
        assertThat(q.getVisibilityTimeout()).isEqualTo(QueueOptions.DEFAULT_VISIBILITY_TIMEOUT);
        assertThat(q.getMaxAttempts()).isEqualTo(QueueOptions.DEFAULT_MAX_ATTEMPTS);
        assertThat(p.getWorker().getConcurrency()).isEqualTo(Worker.DEFAULT_CONCURRENCY);
        assertThat(p.getWorker().getPrefetch()).as("unset: the Worker's adaptive prefetch").isNull();
        assertThat(p.getWorker().getShutdownTimeout()).isEqualTo(Worker.DEFAULT_SHUTDOWN_TIMEOUT);
        assertThat(p.getWorker().getPhase()).isEqualTo(ClockworkListeners.DEFAULT_PHASE);
        ClockworkProperties.Retry r = p.getWorker().getRetry();
        assertThat(r.getInitialDelay()).isEqualTo(RetryPolicy.DEFAULT_INITIAL_DELAY);
        assertThat(r.getMultiplier()).isEqualTo(RetryPolicy.DEFAULT_MULTIPLIER);
        assertThat(r.getMaxDelay()).isEqualTo(RetryPolicy.DEFAULT_MAX_DELAY);
        assertThat(r.getJitter()).isEqualTo(RetryPolicy.DEFAULT_JITTER);
        assertThat(r.getMaxAttempts()).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS);
    }

    @Test
    void configurationMetadataListsTheProperties() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("metadata generated by spring-boot-configuration-processor").isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"clockwork.redis.uri\"", "\"clockwork.queues\"",
                    "\"clockwork.worker.concurrency\"", "\"clockwork.worker.retry.max-attempts\"",
                    "\"clockwork.health.dead-letter-threshold\"", "\"clockwork.metrics.stats-interval\"",
                    "\"clockwork.redis.command-timeout\"", "\"clockwork.redis.retry-for\"",
                    "\"clockwork.redis.connect-timeout\"", "\"clockwork.redis.reconnect-max-delay\"",
                    "\"clockwork.redis.recheck-interval\"", "\"clockwork.postgres.recheck-interval\"",
                    "\"clockwork.postgres.schema\"");
        }
    }

    @Test
    void redisOptionDefaultsAreTheBuildersSaveRetryForWhichRidesThroughARestart() {
        ClockworkProperties.Redis r = new ClockworkProperties().getRedis();
        assertThat(r.getCommandTimeout()).isEqualTo(RedisQueueBuilder.DEFAULT_COMMAND_TIMEOUT);
        assertThat(r.getConnectTimeout()).isEqualTo(RedisQueueBuilder.DEFAULT_CONNECT_TIMEOUT);
        assertThat(r.getRecheckInterval()).isEqualTo(RedisQueueBuilder.DEFAULT_RECHECK_INTERVAL);
        assertThat(r.getRetryFor()).as("longer than a restart of Redis").isGreaterThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(r.getReconnectMaxDelay()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void redisOptionsAcceptWhatTheQueueBuilderAccepts() {
        Duration hour = Duration.ofHours(1);
        for (Duration d : List.of(Duration.ofMillis(-1), Duration.ZERO, Duration.ofMillis(1), hour,
                hour.plusNanos(1))) {
            ClockworkProperties.Redis r = new ClockworkProperties().getRedis();
            assertThat(accepts(() -> r.setCommandTimeout(d))).as("command-timeout %s", d)
                    .isEqualTo(accepts(() -> builder().commandTimeout(d)));
            assertThat(accepts(() -> r.setRetryFor(d))).as("retry-for %s", d)
                    .isEqualTo(accepts(() -> builder().retryOnConnectionLoss(d)));
            assertThat(accepts(() -> r.setConnectTimeout(d))).as("connect-timeout %s", d)
                    .isEqualTo(accepts(() -> builder().connectTimeout(d)));
            assertThat(accepts(() -> r.setRecheckInterval(d))).as("recheck-interval %s", d)
                    .isEqualTo(accepts(() -> builder().recheckInterval(d)));
        }
    }

    @Test
    void postgresRecheckIntervalAcceptsWhatTheQueueBuilderAccepts() {
        for (Duration d : List.of(Duration.ofMillis(-1), Duration.ZERO, Duration.ofMillis(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1).plusNanos(1))) {
            PostgresProperties p = new ClockworkProperties().getPostgres();
            assertThat(accepts(() -> p.setRecheckInterval(d))).as("recheck-interval %s", d)
                    .isEqualTo(accepts(() -> PostgresDelayedQueue.builder(new PGSimpleDataSource(), "limits",
                            Codec.string()).recheckInterval(d)));
        }
    }

    private static RedisQueueBuilder<String> builder() {
        return RedisDelayedQueue.builder("redis://127.0.0.1:1", "limits", Codec.string());
    }

    private static boolean accepts(Runnable set) {
        try {
            set.run();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Test
    void redisOptionsBindToTheQueuesAndTheClient() {
        runner.withPropertyValues("clockwork.redis.uri=redis://127.0.0.1:1", "clockwork.redis.command-timeout=750ms",
                "clockwork.redis.retry-for=12s", "clockwork.redis.connect-timeout=3s",
                "clockwork.redis.reconnect-max-delay=2s", "clockwork.redis.recheck-interval=250ms").run(context -> {
                    ClockworkProperties.Redis r = context.getBean(ClockworkProperties.class).getRedis();
                    assertThat(r.getCommandTimeout()).isEqualTo(Duration.ofMillis(750));
                    assertThat(r.getRetryFor()).isEqualTo(Duration.ofSeconds(12));
                    assertThat(r.getReconnectMaxDelay()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(r.getRecheckInterval()).isEqualTo(Duration.ofMillis(250));
                    io.lettuce.core.RedisClient client = context.getBean(io.lettuce.core.RedisClient.class);
                    assertThat(client.getOptions().getSocketOptions().getConnectTimeout())
                            .isEqualTo(Duration.ofSeconds(3));
                    assertThat(client.getOptions().getDisconnectedBehavior())
                            .isEqualTo(io.lettuce.core.ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
                    assertThat(client.getResources().reconnectDelay().createDelay(30))
                            .isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void aBadRedisOptionFailsTheStartNamingTheProperty() {
        for (String bad : List.of("clockwork.redis.command-timeout=0s", "clockwork.redis.retry-for=-1s",
                "clockwork.redis.connect-timeout=2h", "clockwork.redis.reconnect-max-delay=1ms",
                "clockwork.redis.recheck-interval=0ms")) {
            String property = bad.substring(0, bad.indexOf('='));
            runner.withPropertyValues(bad).run(context -> assertThat(context).hasFailed().getFailure()
                    .rootCause().hasMessageContaining(property)
                    .hasMessageContaining("must be in"));
        }
    }

    @Test
    void aBackendWithoutItsServerFailsTheStartSayingWhatIsMissing() {
        runner.withPropertyValues("clockwork.backend=postgres").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("clockwork.backend=postgres")
                .hasMessageContaining("spring.datasource.url"));
        runner.withPropertyValues("clockwork.backend=redis").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("clockwork.backend=redis")
                .hasMessageContaining("clockwork.redis.uri"));
        runner.withPropertyValues("clockwork.backend=in-process").run(context -> assertThat(context)
                .getBean(ClockworkQueues.class).extracting(ClockworkQueues::backend)
                .isEqualTo(ClockworkProperties.Backend.IN_PROCESS));
        runner.withPropertyValues("clockwork.backend=cassandra").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("cassandra"));
    }

    static class BadListener {
        @ClockworkListener(queue = "orders")
        void twoParameters(String a, String b) {
        }
    }

    static class TimedListener {
        @ClockworkListener(queue = "slow", timeout = "150ms")
        void onSlow(String s) {
        }
    }

    static class BadTimeoutListener {
        @ClockworkListener(queue = "slow", timeout = "soon")
        void onSlow(String s) {
        }
    }

    @Test
    void aListenersTimeoutWinsOverThePropertyAndABadOneFailsTheContextNamingTheMethod() {
        runner.withBean(TimedListener.class).withPropertyValues("clockwork.worker.timeout=2m").run(context ->
                assertThat(context.getBean(ClockworkListeners.class).workers())
                        .singleElement().asString().contains("timeout PT0.15S"));
        runner.withBean(BadTimeoutListener.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("@ClockworkListener(timeout)").hasMessageContaining("onSlow")
                .hasMessageContaining("\"soon\""));
    }

    @Test
    void aListenerOfTheWrongShapeFailsTheContextNamingTheMethod() {
        runner.withBean(BadListener.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("twoParameters").hasMessageContaining("one parameter"));
    }

    @Test
    void healthIsDownWhenRedisDoesNotAnswer() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        io.lettuce.core.RedisClient dead = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + port);
        try {
            runner.withBean(io.lettuce.core.RedisClient.class, () -> dead).run(context -> {
                var health = context.getBean(ClockworkHealthIndicator.class).health(true);
                assertThat(health.getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
                assertThat(health.getDetails()).containsKey("error");
            });
        } finally {
            dead.shutdown();
        }
    }

    @Test
    void oneQueueNameHasOneValueType() {
        runner.run(context -> {
            ClockworkQueues queues = context.getBean(ClockworkQueues.class);
            queues.queue("q", String.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> queues.queue("q", Order.class))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'q'");
        });
    }
}
