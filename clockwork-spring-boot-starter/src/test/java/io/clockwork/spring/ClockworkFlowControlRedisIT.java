package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flow-control properties against a real redis-server: the Redis backend keeps the queue's rate limit and refuses
 * the group options, so the context fails at start naming each of those, while priorities need no property.
 */
class ClockworkFlowControlRedisIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ClockworkAutoConfiguration.class))
            .withPropertyValues("clockwork.redis.uri=" + TestRedis.server().uri());

    @Test
    void eachFlowControlPropertyFailsTheStartNamingIt() {
        for (String property : new String[] {"clockwork.queues.orders.group-rate-limit.permits=10",
                "clockwork.queues.orders.max-in-flight-per-group=1", "clockwork.queues.orders.group-weights.vip=3"}) {
            String named = property.substring(0, property.indexOf(property.contains(".permits") ? ".permits" : "="))
                    .replaceFirst("\\.vip$", "");
            runner.withPropertyValues(property).run(context -> assertThat(context).hasFailed().getFailure()
                    .rootCause().as(property).isInstanceOf(IllegalStateException.class)
                    .hasMessage(named + " is not supported by the Redis backend (clockwork.redis.uri or a RedisClient "
                            + "bean): remove it, or use in-process queues"));
        }
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
