package io.clockwork.dashboard;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Queues of the running application (any {@link DelayedQueue}, typically its {@code InMemoryDelayedQueue}s), for a
 * dashboard embedded in it: a fixed list ({@link #of}), or whatever a supplier holds at each request ({@link #live},
 * for an application that opens queues as it goes). Thread-safe as the supplier is. The queues stay the caller's:
 * {@link #close()} leaves them open.
 *
 * <p>The {@link DelayedQueue} contract reaches live messages by id only, so on these queues the dashboard shows
 * counts, charts and the oldest dead letters (the first page), and offers every action; it lists no ready, delayed
 * or in-flight messages and looks none up.
 */
public final class InProcessQueueSource implements QueueSource {

    private final Supplier<? extends Collection<? extends DelayedQueue<?>>> queues;
    private final String where;

    private InProcessQueueSource(Supplier<? extends Collection<? extends DelayedQueue<?>>> queues, String where) {
        this.queues = queues;
        this.where = where;
    }

    /**
     * @param queues the queues to show, each under its {@code name()}
     * @return the source
     * @throws IllegalArgumentException if two queues share a name
     */
    public static InProcessQueueSource of(List<? extends DelayedQueue<?>> queues) {
        Objects.requireNonNull(queues, "queues");
        Map<String, DelayedQueue<?>> byName = new TreeMap<>();
        for (DelayedQueue<?> q : queues) {
            Objects.requireNonNull(q, "queues[i]");
            if (byName.put(q.name(), q) != null) {
                throw new IllegalArgumentException("queues must have distinct names, '" + q.name() + "' is twice");
            }
        }
        List<DelayedQueue<?>> fixed = List.copyOf(byName.values());
        return new InProcessQueueSource(() -> fixed, "in-process");
    }

    /**
     * A source that asks {@code queues} for the queues at every listing and look-up, so queues the application opens
     * later appear. Where two queues share a name, the first one the supplier gives is shown.
     *
     * @param queues gives the queues to show now; called from request and sampler threads at once
     * @param where  where the queues live, shown on the pages, e.g. {@code in-process}; never a secret such as a
     *               password in a URI
     * @return the source
     */
    public static InProcessQueueSource live(Supplier<? extends Collection<? extends DelayedQueue<?>>> queues,
                                            String where) {
        Objects.requireNonNull(queues, "queues");
        Objects.requireNonNull(where, "where");
        if (where.isBlank()) {
            throw new IllegalArgumentException("where must name where the queues live, was blank");
        }
        return new InProcessQueueSource(queues, where);
    }

    @Override
    public List<String> names() {
        TreeSet<String> names = new TreeSet<>();
        for (DelayedQueue<?> q : queues.get()) {
            names.add(q.name());
        }
        return List.copyOf(names);
    }

    @Override
    public Optional<QueueView> queue(String name) {
        Objects.requireNonNull(name, "name");
        for (DelayedQueue<?> q : queues.get()) {
            if (q.name().equals(name)) {
                return Optional.of(new View(q, where));
            }
        }
        return Optional.empty();
    }

    @Override
    public String describe() {
        return where;
    }

    @Override
    public void close() {
        // the queues are the application's
    }

    /** One queue of the application. Thread-safe as the queue. */
    private static final class View implements QueueView {

        private final DelayedQueue<?> queue;
        private final String where;

        View(DelayedQueue<?> queue, String where) {
            this.queue = queue;
            this.where = where;
        }

        @Override
        public String name() {
            return queue.name();
        }

        @Override
        public String backend() {
            return where;
        }

        @Override
        public QueueStats stats() {
            return queue.stats();
        }

        @Override
        public Optional<Duration> oldestReady() {
            return Optional.empty();
        }

        @Override
        public OptionalLong scheduled() {
            return OptionalLong.empty();
        }

        @Override
        public MessagePage page(MessageState state, Optional<String> cursor, int size) {
            if (state != MessageState.DEAD || cursor.isPresent()) {
                return new MessagePage(List.of(), state == MessageState.DEAD ? queue.stats().dead() : 0,
                        Optional.empty(), false);
            }
            List<MessageRow> rows = new ArrayList<>();
            for (DeadLetter d : queue.deadLetters(size)) {
                rows.add(new MessageRow(d.id(), MessageState.DEAD, Optional.empty(), d.attempts(), d.headers(),
                        d.payload(), d.reason()));
            }
            long dead = queue.stats().dead();
            return new MessagePage(rows, dead, Optional.empty(), rows.size() >= dead);
        }

        @Override
        public Optional<MessageRow> find(String id) {
            return Optional.empty();
        }

        @Override
        public boolean browsable() {
            return false;
        }

        @Override
        public boolean cancel(String id) {
            return queue.cancel(id);
        }

        @Override
        public boolean reschedule(String id, Duration delay) {
            return queue.reschedule(id, delay);
        }

        @Override
        public boolean requeueDead(String id) {
            return queue.requeueDead(id);
        }

        @Override
        public long requeueAllDead() {
            return DeadLetterRequeue.all(queue);
        }

        @Override
        public long purgeDead() {
            return queue.purgeDead();
        }
    }
}
