package io.clockwork.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisQueueRegistry;
import io.clockwork.redis.RedisSchedules;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code clockwork queue delete} against a real redis-server. */
@ExtendWith(RedisExtension.class)
class QueueDeleteCommandIT {

    private RedisServerProcess redis;

    /**
     * "orders": three partitions with messages in every state (delayed in the compact store, ready, in flight,
     * dead) and a schedule; "mail": one delayed message.
     */
    @BeforeEach
    void seed(RedisServerProcess server) throws InterruptedException {
        redis = server;
        try (RedisDelayedQueue<String> orders = RedisDelayedQueue.builder(redis.uri(), "orders", Codec.string())
                .partitions(3).maxAttempts(1).build();
             RedisDelayedQueue<String> mail = RedisDelayedQueue.builder(redis.uri(), "mail", Codec.string()).build();
             RedisSchedules<String> schedules = RedisSchedules.builder(orders).build()) {
            for (int i = 0; i < 20; i++) {
                orders.offer("later-" + i, "pay " + i, Duration.ofHours(1));
                orders.offer("now-" + i, "pay " + i, Duration.ZERO);
            }
            List<Delivery<String>> taken = orders.poll(10, Duration.ofSeconds(2));
            assertThat(taken).isNotEmpty();
            taken.get(0).nack(Duration.ZERO);
            schedules.put(Schedule.of("nightly", ScheduleRule.fixedRate(Duration.ofDays(1)), "close the books"));
            mail.offer("welcome", "hello", Duration.ofHours(1));
        }
        assertThat(keys("{orders:0}")).isNotEmpty();
        assertThat(keys("{orders:2}")).isNotEmpty();
    }

    @SuppressWarnings("unchecked")
    private List<String> keys(String part) {
        return ((List<String>) redis.call("KEYS", "*")).stream().filter(k -> k.contains(part)).toList();
    }

    private List<String> registered() {
        try (RedisQueueRegistry registry = RedisQueueRegistry.connect(redis.uri())) {
            return registry.names();
        }
    }

    @Test
    void deletesEveryKeyOfTheQueueAndItsRegistryEntry() {
        List<String> mailKeys = keys("{mail:");

        Cli.Result r = Cli.run("queue", "delete", "--redis", redis.uri(), "orders", "--yes");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("deleted queue 'orders' on 127.0.0.1:" + redis.port())
                .containsPattern("[0-9]+ keys \\(3 partitions; 20 delayed, [0-9]+ ready, [0-9]+ in flight, 1 dead\\)");
        assertThat(keys("{orders:")).isEmpty();
        assertThat(registered()).containsExactly("mail");
        assertThat(keys("{mail:")).containsExactlyInAnyOrderElementsOf(mailKeys);
    }

    @Test
    void acceptsTheNameAsQueueOptionToo() {
        Cli.Result r = Cli.run("queue", "delete", "--redis", redis.uri(), "--queue", "mail", "--yes");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(registered()).containsExactly("orders");
        assertThat(keys("{mail:")).isEmpty();
    }

    @Test
    void withoutYesItIsAUsageErrorAndDeletesNothing() {
        Cli.Result r = Cli.run("queue", "delete", "--redis", redis.uri(), "orders");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.errLines()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("add --yes").doesNotContain("Exception");
        assertThat(registered()).containsExactly("mail", "orders");
        assertThat(keys("{orders:0}")).isNotEmpty();
    }

    @Test
    void badArgumentsAreUsageErrors() {
        for (String[] args : List.of(
                new String[] {"queue", "delete", "--redis", redis.uri(), "--yes"},
                new String[] {"queue", "delete", "--redis", redis.uri(), "", "--yes"},
                new String[] {"queue", "delete", "--redis", redis.uri(), "sur\uD800", "--yes"},
                new String[] {"queue", "delete", "--redis", redis.uri(), "--queue", " ", "--yes"},
                new String[] {"queue", "delete", "--redis", redis.uri(), "orders", "--queue", "mail", "--yes"},
                new String[] {"queue", "delete", "--redis", redis.uri(), "orders", "mail", "--yes"},
                new String[] {"queue", "delete", "orders", "--yes"},
                new String[] {"queue", "delete", "--redis", "nonsense", "orders", "--yes"})) {
            Cli.Result r = Cli.run(args);
            assertThat(r.exit()).as("%s: %s", String.join(" ", args), r.err()).isEqualTo(2);
            assertThat(r.errLines()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).doesNotContain("Exception");
        }
        assertThat(registered()).containsExactly("mail", "orders");
    }

    @Test
    void anUnknownQueueIsAFailureAndCreatesNothing() {
        Cli.Result r = Cli.run("queue", "delete", "--redis", redis.uri(), "ordres", "--yes");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("unknown queue 'ordres'");
        assertThat(keys("{ordres:")).isEmpty();
        assertThat(registered()).containsExactly("mail", "orders");
    }
}
