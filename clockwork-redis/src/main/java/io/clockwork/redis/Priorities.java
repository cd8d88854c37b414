package io.clockwork.redis;

import io.clockwork.queue.Message;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The priorities of one queue's messages on Redis: a message's priority ({@link Message#priority(int)}) travels as its
 * header {@value Message#PRIORITY_HEADER}, and a partition delivers by priority once it is marked ordered
 * ({@code order.lua}, then {@code include/ready.lua}). This client marks a partition before its first offer of a
 * message with a priority to it, and remembers the partitions it marked (a mark is never removed), so an offer pays the
 * extra call once per partition per client. Thread-safe: two threads may both mark a partition, which is harmless.
 */
final class Priorities {

    private final QueueScripts scripts;
    private final AtomicIntegerArray marked;

    Priorities(QueueScripts scripts, int partitions) {
        this.scripts = scripts;
        this.marked = new AtomicIntegerArray(partitions);
    }

    /**
     * @param headers a message's headers, checked by {@link Message} (a priority header holds a priority other than
     *                0, in range)
     * @return whether the message has a priority other than 0
     */
    static boolean prioritized(Map<String, String> headers) {
        return headers.containsKey(Message.PRIORITY_HEADER);
    }

    /** Marks partition p ordered, unless this client did already, before an offer of a message with headers. */
    void before(int p, Map<String, String> headers) {
        if (prioritized(headers) && marked.get(p) == 0) {
            scripts.order(p);
            marked.set(p, 1);
        }
    }

    /** {@link #before} without waiting: completes when the partition is marked (at once if it needs no mark). */
    CompletionStage<Void> beforeAsync(int p, Map<String, String> headers) {
        if (!prioritized(headers) || marked.get(p) != 0) {
            return CompletableFuture.completedFuture(null);
        }
        return scripts.orderAsync(p).thenRun(() -> marked.set(p, 1));
    }

    /** Marks every partition ordered that this client did not mark yet (a batch or a schedule with a priority). */
    void all() {
        for (int p = 0; p < marked.length(); p++) {
            if (marked.get(p) == 0) {
                scripts.order(p);
                marked.set(p, 1);
            }
        }
    }
}
