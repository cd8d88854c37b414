package io.clockwork.worker;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Several {@link WorkerListener}s heard as one, made by {@link WorkerListener#compose}: each event goes to every
 * listener in order, and a listener that throws does not keep it from the others. Thread-safe as its listeners are:
 * it holds an immutable list and no state.
 *
 * @param <V> the value type
 */
final class CompositeWorkerListener<V> implements WorkerListener<V> {

    private final List<WorkerListener<V>> listeners;

    /** @param listeners the listeners, in the order they hear each event; not empty, no null */
    CompositeWorkerListener(List<WorkerListener<V>> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /** Calls every listener, then throws the first failure (with the later ones suppressed), if any. */
    private void each(Consumer<WorkerListener<V>> event) {
        RuntimeException first = null;
        for (WorkerListener<V> l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else if (first != e) {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void delivered(Job<V> job) {
        each(l -> l.delivered(job));
    }

    @Override
    public void handled(Job<V> job, long nanos, Throwable failure) {
        each(l -> l.handled(job, nanos, failure));
    }

    @Override
    public void acked(Job<V> job) {
        each(l -> l.acked(job));
    }

    @Override
    public void retried(Job<V> job, Duration delay, String error) {
        each(l -> l.retried(job, delay, error));
    }

    @Override
    public void deadLettered(Job<V> job, String reason) {
        each(l -> l.deadLettered(job, reason));
    }

    @Override
    public void released(Job<V> job) {
        each(l -> l.released(job));
    }

    @Override
    public void leaseLost(Job<V> job) {
        each(l -> l.leaseLost(job));
    }

    @Override
    public void timedOut(Job<V> job, Duration timeout) {
        each(l -> l.timedOut(job, timeout));
    }

    @Override
    public void backendError(String operation, RuntimeException error) {
        each(l -> l.backendError(operation, error));
    }

    @Override
    public String toString() {
        return "WorkerListener.compose" + listeners;
    }
}
