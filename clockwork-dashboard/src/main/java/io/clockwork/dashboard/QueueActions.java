package io.clockwork.dashboard;

import io.clockwork.queue.DelayedQueue;

import java.time.Duration;

/**
 * The actions every {@link QueueView} performs through the queue contract alone (cancel, reschedule, requeue one or
 * all dead letters, purge, pause and resume), so the views of each backend share them. Thread-safe as the queue is.
 */
abstract class QueueActions implements QueueView {

    private final DelayedQueue<?> target;

    QueueActions(DelayedQueue<?> target) {
        this.target = target;
    }

    @Override
    public final boolean cancel(String id) {
        return target.cancel(id);
    }

    @Override
    public final boolean reschedule(String id, Duration delay) {
        return target.reschedule(id, delay);
    }

    @Override
    public final boolean requeueDead(String id) {
        return target.requeueDead(id);
    }

    @Override
    public final long requeueAllDead() {
        return DeadLetterRequeue.all(target);
    }

    @Override
    public final long purgeDead() {
        return target.purgeDead();
    }

    @Override
    public final boolean isPaused() {
        return target.isPaused();
    }

    @Override
    public final void pause() {
        target.pause();
    }

    @Override
    public final void resume() {
        target.resume();
    }
}
