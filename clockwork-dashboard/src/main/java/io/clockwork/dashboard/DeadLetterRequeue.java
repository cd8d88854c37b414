package io.clockwork.dashboard;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import java.util.List;

/**
 * Requeues every dead letter a queue has when it starts, in batches of the oldest, through the queue's contract.
 * Stateless.
 */
final class DeadLetterRequeue {

    private static final int BATCH = 100;

    private DeadLetterRequeue() {
    }

    /**
     * @param queue the queue
     * @return how many were requeued; at most the dead count at the start, so letters that die again meanwhile are
     *         not chased
     */
    static long all(DelayedQueue<?> queue) {
        long budget = queue.stats().dead();
        long done = 0;
        while (done < budget) {
            List<DeadLetter> batch = queue.deadLetters((int) Math.min(BATCH, budget - done));
            long before = done;
            for (DeadLetter d : batch) {
                if (queue.requeueDead(d.id())) {
                    done++;
                }
            }
            if (done == before) {
                break;
            }
        }
        return done;
    }
}
