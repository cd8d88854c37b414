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

    /** @return where the queues live, e.g. {@code redis://127.0.0.1:6379} */
    String describe();

    /** Releases what the source opened (connections); queues handed in by the caller stay open. */
    @Override
    void close();
}
