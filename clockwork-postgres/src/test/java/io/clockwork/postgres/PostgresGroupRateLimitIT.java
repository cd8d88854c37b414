package io.clockwork.postgres;

import io.clockwork.postgres.fixture.PostgresExtension;
import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.GroupRateLimitContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.function.Consumer;

/** The {@link GroupRateLimitContract} on a real PostgreSQL server: the grouped take (GroupSql). */
@ExtendWith(PostgresExtension.class)
class PostgresGroupRateLimitIT extends GroupRateLimitContract {

    private final ContractQueues queues = new ContractQueues("groupratelimit-");

    @Override
    protected <V> DelayedQueue<V> newQueue(Codec<V> codec, Consumer<DelayedQueueBuilder<V, ?>> options) {
        return queues.fresh(codec, options);
    }

    /** Half an interval covers a test step's own latency (a grouped take) on a busy machine. */
    @Override
    protected Duration interval() {
        return Duration.ofMillis(500);
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
