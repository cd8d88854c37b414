package io.clockwork.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A {@link DelayedQueue} that forwards every call to another, the base of decorators that observe a queue (metrics,
 * tracing) without the backends knowing of them. Thread-safe if the delegate is.
 *
 * <p>A subclass overrides the calls it observes and calls {@code super}. Deliveries it hands out may be wrapped in
 * a {@link ForwardingDelivery} by overriding {@link #wrap(Delivery)}; {@link #ackAll(List)} and
 * {@link #ackAndPoll(Delivery)} unwrap them again before the delegate sees them, so decorators stack in any number.
 * The queue costs nothing to a program that does not decorate it: the backends have no hook to call.
 *
 * @param <V> the value type
 */
public abstract class ForwardingDelayedQueue<V> implements DelayedQueue<V> {

    private final DelayedQueue<V> delegate;

    /** @param delegate the queue every call goes to */
    protected ForwardingDelayedQueue(DelayedQueue<V> delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** @return the queue every call goes to */
    public final DelayedQueue<V> delegate() {
        return delegate;
    }

    /**
     * Wraps a delivery the delegate handed out before the caller sees it; the identity by default.
     *
     * @param delivery a delivery of the delegate
     * @return what the caller receives
     */
    protected Delivery<V> wrap(Delivery<V> delivery) {
        return delivery;
    }

    /**
     * @param delivery a delivery this queue handed out, or one of the delegate
     * @return the delegate's delivery
     */
    protected Delivery<V> unwrap(Delivery<V> delivery) {
        return delivery instanceof ForwardingDelivery<V> f ? f.delegate() : delivery;
    }

    @Override
    public String offer(V value, Duration delay) {
        return delegate.offer(value, delay);
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        return delegate.offer(id, value, delay);
    }

    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        return delegate.offerAll(values, delay);
    }

    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        return delegate.offerAll(messages, delay);
    }

    @Override
    public Offered offer(Message<? extends V> message) {
        return delegate.offer(message);
    }

    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        return delegate.offerAll(messages);
    }

    @Override
    public CompletionStage<String> offerAsync(V value, Duration delay) {
        return delegate.offerAsync(value, delay);
    }

    @Override
    public CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        return delegate.offerAsync(id, value, delay);
    }

    @Override
    public CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        return delegate.offerAllAsync(values, delay);
    }

    @Override
    public CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        return delegate.offerAsync(message);
    }

    @Override
    public CompletionStage<List<Offered>> offerAllAsync(List<? extends Message<? extends V>> messages) {
        return delegate.offerAllAsync(messages);
    }

    @Override
    public boolean cancel(String id) {
        return delegate.cancel(id);
    }

    @Override
    public CompletionStage<Boolean> cancelAsync(String id) {
        return delegate.cancelAsync(id);
    }

    @Override
    public boolean reschedule(String id, Duration delay) {
        return delegate.reschedule(id, delay);
    }

    @Override
    public boolean promote(String id) {
        return delegate.promote(id);
    }

    @Override
    public void pause() {
        delegate.pause();
    }

    @Override
    public void resume() {
        delegate.resume();
    }

    @Override
    public boolean isPaused() {
        return delegate.isPaused();
    }

    @Override
    public Delivery<V> poll(Duration wait) throws InterruptedException {
        Delivery<V> d = delegate.poll(wait);
        return d == null ? null : wrap(d);
    }

    @Override
    public List<Delivery<V>> poll(int maxMessages, Duration wait) throws InterruptedException {
        return wrapAll(delegate.poll(maxMessages, wait));
    }

    /**
     * Wraps a batch of the delegate's deliveries, one by one, with {@link #wrap(Delivery)}.
     *
     * @param deliveries the delegate's deliveries
     * @return what the caller receives, in the same order
     */
    protected List<Delivery<V>> wrapAll(List<Delivery<V>> deliveries) {
        if (deliveries.isEmpty()) {
            return deliveries;
        }
        List<Delivery<V>> wrapped = new ArrayList<>(deliveries.size());
        for (Delivery<V> d : deliveries) {
            wrapped.add(wrap(d));
        }
        return wrapped;
    }

    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        Objects.requireNonNull(deliveries, "deliveries");
        List<Delivery<V>> inner = new ArrayList<>(deliveries.size());
        for (int i = 0; i < deliveries.size(); i++) {
            inner.add(unwrap(Objects.requireNonNull(deliveries.get(i), "deliveries[" + i + "]")));
        }
        return delegate.ackAll(inner);
    }

    @Override
    public AckAndPoll<V> ackAndPoll(Delivery<V> done) {
        AckAndPoll<V> r = delegate.ackAndPoll(unwrap(Objects.requireNonNull(done, "done")));
        return r.next() == null ? r : new AckAndPoll<>(r.acked(), wrap(r.next()));
    }

    @Override
    public QueueStats stats() {
        return delegate.stats();
    }

    @Override
    public Optional<QueueCounters> counters() {
        return delegate.counters();
    }

    @Override
    public List<GroupBacklog> largestGroups(int limit) {
        return delegate.largestGroups(limit);
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        return delegate.deadLetters(limit);
    }

    @Override
    public boolean requeueDead(String id) {
        return delegate.requeueDead(id);
    }

    @Override
    public long purgeDead() {
        return delegate.purgeDead();
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public Duration visibilityTimeout() {
        return delegate.visibilityTimeout();
    }

    @Override
    public int maxAttempts() {
        return delegate.maxAttempts();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
