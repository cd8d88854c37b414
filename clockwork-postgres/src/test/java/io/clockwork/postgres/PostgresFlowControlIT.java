package io.clockwork.postgres;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.testing.queue.FlowControlContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link FlowControlContract} on a real PostgreSQL server, plus what only a shared backend promises: a pause is
 * stored with the queue (its row in {@code clockwork_queues}), so every client sees it, and it outlives the client
 * that made it.
 */
@ExtendWith(PostgresExtension.class)
class PostgresFlowControlIT extends FlowControlContract {

    private final ContractQueues queues = new ContractQueues("flow-");

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    private PostgresDelayedQueue<String> open(String name) {
        return queues.track(PostgresDelayedQueue.builder(ContractQueues.dataSource(), name, Codec.string()).build());
    }

    @Override
    protected void passTime(Duration amount) {
        ContractQueues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }

    @Test
    void aPauseHoldsForEveryClientAndOutlivesTheClientThatMadeIt() throws Exception {
        PostgresDelayedQueue<String> producer = open("flow-shared");
        for (int i = 0; i < 8; i++) {
            producer.offer("m" + i, Duration.ZERO);
        }
        producer.pause();
        producer.close();
        PostgresDelayedQueue<String> consumer = open("flow-shared");
        assertThat(consumer.isPaused()).isTrue();
        assertThat(consumer.poll(8, Duration.ZERO)).isEmpty();
        PostgresDelayedQueue<String> operator = open("flow-shared");
        operator.resume();
        assertThat(consumer.isPaused()).isFalse();
        assertThat(consumer.poll(8, Duration.ofSeconds(5))).hasSize(8);
    }
}
