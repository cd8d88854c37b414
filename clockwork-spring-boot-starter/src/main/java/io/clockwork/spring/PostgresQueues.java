package io.clockwork.spring;

import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.postgres.PostgresQueueBuilder;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import javax.sql.DataSource;

/**
 * Opens the starter's queues on PostgreSQL ({@code clockwork.backend=postgres}): a class of its own, so that
 * clockwork-postgres and spring-jdbc are loaded only by applications that choose that backend. Stateless.
 */
final class PostgresQueues {

    private PostgresQueues() {
    }

    /**
     * @return a queue on {@code dataSource} with the queue's and the backend's options, whose offers join the
     *         calling thread's Spring transaction ({@link TransactionalQueue})
     */
    static <V> DelayedQueue<V> open(DataSource dataSource, String name, Codec<V> codec,
                                    ClockworkProperties.QueueProperties options,
                                    PostgresProperties postgres) {
        PostgresQueueBuilder<V> b = QueueFlowProperties.apply(name, options,
                        PostgresDelayedQueue.builder(dataSource, name, codec))
                .visibilityTimeout(options.getVisibilityTimeout()).maxAttempts(options.getMaxAttempts())
                .schema(postgres.getSchema()).autoCreateSchema(postgres.isAutoCreateSchema())
                .recheckInterval(postgres.getRecheckInterval());
        return new TransactionalQueue<>(b.build(), dataSource);
    }
}
