package io.clockwork.inprocess;

import io.clockwork.queue.Delivery;
import io.clockwork.time.ManualTicker;
import java.time.Duration;

/** What the queue's jcstress tests share: a fresh queue on a clock that stands still, and a poll that never waits. */
final class Queues {

    private Queues() {
    }

    /** @return a new queue whose ticker never moves, so only what a test offers due now is ready */
    static InMemoryDelayedQueue<String> standingStill() {
        return InMemoryDelayedQueue.<String>builder().ticker(new ManualTicker()).build();
    }

    /** {@code poll(ZERO)}, which throws only if the thread is interrupted, which nothing does here. */
    static Delivery<String> pollNow(InMemoryDelayedQueue<String> queue) {
        try {
            return queue.poll(Duration.ZERO);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
