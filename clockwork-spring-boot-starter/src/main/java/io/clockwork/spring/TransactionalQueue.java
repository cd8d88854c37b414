package io.clockwork.spring;

import io.clockwork.postgres.PostgresDelayedQueue;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A PostgreSQL queue whose offers, cancels and reschedules join the Spring transaction of the calling thread: inside
 * {@code @Transactional} (or a {@code TransactionTemplate}) they run on the transaction's connection, so a rollback
 * leaves no message and wakes no consumer, and a commit makes them visible at once. Outside a transaction they run
 * as the queue runs them, each in its own. Thread-safe, as the queue it wraps.
 *
 * <p>The transaction must manage the queue's {@link DataSource} (Spring Boot's {@code DataSourceTransactionManager}
 * or {@code JpaTransactionManager} on it do). Inside a transaction of another resource the connection Spring hands
 * out commits each statement by itself, which would break the promise of a rollback: those calls fail with an
 * {@link IllegalStateException} that says so, and nothing is written. The asynchronous forms, inside a transaction,
 * run at once on the caller's thread and connection and return a completed stage: a statement on another thread
 * could not join the transaction.
 */
final class TransactionalQueue<V> extends ForwardingDelayedQueue<V> {

    private final PostgresDelayedQueue<V> queue;
    private final DataSource dataSource;

    /**
     * @param queue      the queue
     * @param dataSource the DataSource whose transactions it joins: the one the queue was built on
     */
    TransactionalQueue(PostgresDelayedQueue<V> queue, DataSource dataSource) {
        super(queue);
        this.queue = queue;
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    @Override
    public String offer(V value, Duration delay) {
        Message<V> m = Message.of(value).delay(delay);
        return joined(c -> queue.offer(c, m).id(), () -> super.offer(value, delay));
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        Objects.requireNonNull(id, "id");
        return joined(c -> queue.offer(c, Message.of(value).id(id).delay(delay)).outcome() == Offered.Outcome.ADDED,
                () -> super.offer(id, value, delay));
    }

    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        return joined(c -> {
            Objects.requireNonNull(values, "values");
            List<Message<V>> batch = new ArrayList<>(values.size());
            for (V v : values) {
                batch.add(Message.of(v).delay(delay));
            }
            return added(queue.offerAll(c, batch));
        }, () -> super.offerAll(values, delay));
    }

    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        return joined(c -> {
            Objects.requireNonNull(messages, "messages");
            List<Message<V>> batch = new ArrayList<>(messages.size());
            new LinkedHashMap<>(messages).forEach((id, v) -> batch.add(Message.<V>of(v).id(id).delay(delay)));
            return added(queue.offerAll(c, batch));
        }, () -> super.offerAll(messages, delay));
    }

    @Override
    public Offered offer(Message<? extends V> message) {
        return joined(c -> queue.offer(c, message), () -> super.offer(message));
    }

    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        return joined(c -> queue.offerAll(c, messages), () -> super.offerAll(messages));
    }

    @Override
    public boolean cancel(String id) {
        return joined(c -> queue.cancel(c, id), () -> super.cancel(id));
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        return joined(c -> queue.reschedule(c, id, delay), () -> super.reschedule(id, delay));
    }

    @Override
    public boolean promote(String id) {
        return joined(c -> queue.reschedule(c, id, Duration.ZERO), () -> super.promote(id));
    }

    @Override
    public CompletionStage<String> offerAsync(V value, Duration delay) {
        return inTransaction() ? now(() -> offer(value, delay)) : super.offerAsync(value, delay);
    }

    @Override
    public CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        return inTransaction() ? now(() -> offer(id, value, delay)) : super.offerAsync(id, value, delay);
    }

    @Override
    public CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        return inTransaction() ? now(() -> offerAll(values, delay)) : super.offerAllAsync(values, delay);
    }

    @Override
    public CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        return inTransaction() ? now(() -> offer(message)) : super.offerAsync(message);
    }

    @Override
    public CompletionStage<List<Offered>> offerAllAsync(List<? extends Message<? extends V>> messages) {
        return inTransaction() ? now(() -> offerAll(messages)) : super.offerAllAsync(messages);
    }

    @Override
    public CompletionStage<Boolean> cancelAsync(String id) {
        return inTransaction() ? now(() -> cancel(id)) : super.cancelAsync(id);
    }

    /** @return whether the calling thread runs in a Spring transaction */
    private static boolean inTransaction() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }

    /**
     * Runs {@code inside} on the transaction's connection when the thread runs in one, else {@code outside}.
     *
     * @throws IllegalStateException if the transaction does not manage the queue's DataSource
     */
    private <T> T joined(Function<Connection, T> inside, Supplier<T> outside) {
        if (!inTransaction()) {
            return outside.get();
        }
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            if (c.getAutoCommit()) {
                throw new IllegalStateException("queue '" + queue.name() + "' cannot join this thread's transaction:"
                        + " it does not manage the queue's DataSource, whose connection commits each statement by "
                        + "itself; run the offer in a transaction of that DataSource (its DataSourceTransactionManager "
                        + "or JpaTransactionManager), or outside any transaction");
            }
            return inside.apply(c);
        } catch (SQLException e) {
            throw new IllegalStateException("queue '" + queue.name() + "': cannot read the transaction's connection: "
                    + e.getMessage(), e);
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /** @return a stage completed with what {@code call} returns, or failed with what it throws */
    private static <T> CompletionStage<T> now(Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static List<String> added(List<Offered> offered) {
        return offered.stream().filter(o -> o.outcome() == Offered.Outcome.ADDED).map(Offered::id).toList();
    }
}
