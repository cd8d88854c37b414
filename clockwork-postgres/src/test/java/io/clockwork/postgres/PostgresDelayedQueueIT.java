package io.clockwork.postgres;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.DelayedQueueContract;
import io.clockwork.postgres.fixture.PostgresExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The {@link DelayedQueueContract} on a real PostgreSQL server: every queue is a {@link PostgresDelayedQueue} with a
 * fresh name on the JVM's pool, and time passes on the database's clock.
 */
@ExtendWith(PostgresExtension.class)
class PostgresDelayedQueueIT extends DelayedQueueContract {

    private final ContractQueues queues = new ContractQueues("contract-");

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    @Override
    protected void passTime(Duration amount) {
        ContractQueues.passTime(amount);
    }

    @AfterEach
    void closeQueues() {
        queues.close();
    }
}
