package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flow-control properties against a real redis-server: the Redis backend keeps the queue's rate limit and the
 * group options, while priorities need no property.
 */
class ClockworkFlowControlRedisIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class))
            .withPropertyValues("clockwork.redis.uri=" + TestRedis.server().uri());

    @Test
    void theGroupOptionsHoldOnRedis() {
        runner.withPropertyValues("clockwork.queues.flow-groups.max-in-flight-per-group=1",
                "clockwork.queues.flow-groups.group-rate-limit.permits=5",
                "clockwork.queues.flow-groups.group-weights.vip=3").run(context -> {
            assertThat(context).hasNotFailed();
            DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("flow-groups", String.class);
            q.offer(Message.of("a0").group("a"));
            q.offer(Message.of("a1").group("a"));
            q.offer(Message.of("b0").group("b"));
            assertThat(q.poll(10, Duration.ZERO)).extracting(d -> d.value()).containsExactlyInAnyOrder("a0", "b0");
            assertThat(q.poll(10, Duration.ZERO)).as("a's one slot is taken").isEmpty();
            assertThat(q.stats().ready()).isEqualTo(1);
        });
    }

    @Test
    void theQueuesRateLimitHoldsOnRedis() {
        runner.withPropertyValues("clockwork.queues.flow-limited.rate-limit.permits=2",
                "clockwork.queues.flow-limited.rate-limit.interval=1h").run(context -> {
            assertThat(context).hasNotFailed();
            DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("flow-limited", String.class);
            for (int i = 0; i < 3; i++) {
                q.offer(Message.of("m" + i));
            }
            assertThat(q.poll(10, Duration.ZERO)).hasSize(2);
            assertThat(q.poll(10, Duration.ZERO)).isEmpty();
            assertThat(q.stats().ready()).isEqualTo(1);
            assertThat(q.counters()).hasValueSatisfying(c -> assertThat(c.rateLimited()).isEqualTo(1));
        });
    }

    @Test
    void withoutThemTheQueueOpensOnRedisAndDeliversByPriority() {
        runner.withPropertyValues("clockwork.queues.orders.max-attempts=2").run(context -> {
            assertThat(context).hasNotFailed();
            DelayedQueue<String> q = context.getBean(ClockworkQueues.class).queue("flow-orders", String.class);
            q.offer(Message.of("low"));
            q.offer(Message.of("high").priority(5));
            assertThat(q.poll(Duration.ofSeconds(5)).value()).isEqualTo("high");
            assertThat(q.poll(Duration.ofSeconds(5)).value()).isEqualTo("low");
            q.purgeDead();
        });
    }
}
