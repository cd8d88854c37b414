package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.Message;
import io.clockwork.testing.queue.GroupContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link GroupContract} on a real PostgreSQL server (the grouped take, GroupSql), plus what only a shared backend
 * promises: a group's in-flight limit holds across clients, and a client that dies holding a group's message blocks
 * that group (and only it) until the message's visibility timeout, never longer or shorter.
 */
@ExtendWith(PostgresExtension.class)
class PostgresGroupIT extends GroupContract {

    private final ContractQueues queues = new ContractQueues("group-");

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    @Override
    protected void passTime(Duration amount) {
        ContractQueues.passTime(amount);
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofMillis(400); // real time: a loaded machine may pause a call for a few hundred ms
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    private PostgresDelayedQueue<String> client(String name, Duration visibility) {
        return queues.track(PostgresDelayedQueue.builder(ContractQueues.dataSource(), name, Codec.string())
                .maxInFlightPerGroup(1).visibilityTimeout(visibility).build());
    }

    @Test
    void aClientThatDiesHoldingAGroupsMessageBlocksThatGroupUntilItsVisibilityTimeout() throws Exception {
        String name = "group-crash";
        Duration visibility = Duration.ofSeconds(1);
        PostgresDelayedQueue<String> dying = client(name, visibility);
        dying.offer(Message.of("a0").group("a"));
        dying.offer(Message.of("a1").group("a"));
        dying.offer(Message.of("b0").group("b"));
        long start = System.nanoTime();
        assertThat(dying.poll(Duration.ZERO).value()).isEqualTo("a0");
        dying.close(); // without an ack: its consumer is gone
        PostgresDelayedQueue<String> survivor = client(name, visibility);
        List<Delivery<String>> others = survivor.poll(10, Duration.ZERO);
        assertThat(others).extracting(Delivery::value).as("other groups go on").containsExactly("b0");
        assertThat(others.get(0).ack()).isTrue();
        assertThat(survivor.poll(Duration.ofMillis(300))).as("group a is held by the dead client's lease").isNull();
        Delivery<String> next = survivor.poll(Duration.ofSeconds(10));
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(next.value()).as("a1 was due before a0 came back").isEqualTo("a1");
        assertThat(elapsedMillis).as("not before the visibility timeout").isGreaterThanOrEqualTo(1000);
        assertThat(survivor.poll(Duration.ZERO)).as("one at a time: a0 waits for a1").isNull();
        assertThat(next.ack()).isTrue();
        Delivery<String> retried = survivor.poll(Duration.ofSeconds(5));
        assertThat(retried.value()).isEqualTo("a0");
        assertThat(retried.attempt()).isEqualTo(2);
    }

    @Test
    void twoClientsTogetherNeverHoldTwoMessagesOfAGroup() throws Exception {
        String name = "group-shared";
        PostgresDelayedQueue<String> one = client(name, Duration.ofMinutes(1));
        PostgresDelayedQueue<String> two = client(name, Duration.ofMinutes(1));
        for (int i = 0; i < 5; i++) {
            for (String g : List.of("a", "b", "c")) {
                one.offer(Message.of(g + i).group(g));
            }
        }
        List<Delivery<String>> first = one.poll(10, Duration.ZERO);
        assertThat(first).extracting(Delivery::value).containsExactlyInAnyOrder("a0", "b0", "c0");
        assertThat(two.poll(10, Duration.ZERO)).as("each group's one slot is taken").isEmpty();
        assertThat(first.get(0).ack()).isTrue();
        List<Delivery<String>> second = two.poll(10, Duration.ZERO);
        assertThat(second).hasSize(1);
        assertThat(second.get(0).value()).isEqualTo(first.get(0).value().charAt(0) + "1");
    }
}
