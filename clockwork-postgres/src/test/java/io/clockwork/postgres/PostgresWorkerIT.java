package io.clockwork.postgres;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.testing.queue.WorkerContract;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.function.Consumer;

/**
 * The {@link WorkerContract} on a real PostgreSQL server: every queue is a {@link PostgresDelayedQueue} with a fresh
 * name, and another client of it is another {@code PostgresDelayedQueue} of the same name and options.
 */
@ExtendWith(PostgresExtension.class)
class PostgresWorkerIT extends WorkerContract {

    private final ContractQueues queues = new ContractQueues("worker-");

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    @Override
    protected DelayedQueue<String> otherClientOf(DelayedQueue<String> queue) {
        return queues.track(PostgresDelayedQueue.builder(ContractQueues.dataSource(), queue.name(), Codec.string())
                .visibilityTimeout(queue.visibilityTimeout()).maxAttempts(queue.maxAttempts()).build());
    }

    @Override
    protected void closeQueues() {
        queues.close();
    }
}
