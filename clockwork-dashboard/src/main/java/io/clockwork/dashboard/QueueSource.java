package io.clockwork.dashboard;

import java.util.List;
import java.util.Optional;

/** The queues a dashboard shows. Implementations are thread-safe. */
public interface QueueSource extends AutoCloseable {

    /** @return the queues' names, sorted; read again on every call, so new queues appear */
    List<String> names();

    /**
     * @param name a queue's name
     * @return its view, or empty if there is no such queue
     */
    Optional<QueueView> queue(String name);

    /** @return whether {@link #delete(String)} deletes queues of this source */
    default boolean deletesQueues() {
        return false;
    }

    /**
     * Deletes a queue and everything stored for it (its messages in every state, dead letters, schedules, counters
     * and its entry in the list of queues), so that it is no longer listed. A client that still uses the queue may
     * create it again.
     *
     * @param name a queue's name
     * @return how many stored items (keys on Redis) were deleted
     * @throws UnsupportedOperationException if this source deletes no queue ({@link #deletesQueues()})
     * @throws IllegalStateException         if there is no such queue
     */
    default long delete(String name) {
        throw new UnsupportedOperationException("the queues of " + describe() + " cannot be deleted from here: they "
                + "belong to their application");
    }

    /** @return where the queues live, e.g. {@code redis://127.0.0.1:6379} */
    String describe();

    /** Releases what the source opened (connections); queues handed in by the caller stay open. */
    @Override
    void close();
}
