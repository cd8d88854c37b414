package io.clockwork.dashboard;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A fixed set of queues of the running application (any {@link DelayedQueue}, typically its
 * {@code InMemoryDelayedQueue}s), for a dashboard embedded in it. Thread-safe. The queues stay the caller's:
 * {@link #close()} leaves them open.
 *
 * <p>The {@link DelayedQueue} contract reaches live messages by id only, so on these queues the dashboard shows
 * counts, charts and the oldest dead letters (the first page), and offers every action; it lists no ready, delayed
 * or in-flight messages and looks none up.
 */
public final class InProcessQueueSource implements QueueSource {

    private final Map<String, View> queues;

    private InProcessQueueSource(Map<String, View> queues) {
        this.queues = queues;
    }

    /**
     * @param queues the queues to show, each under its {@code name()}
     * @return the source
     * @throws IllegalArgumentException if two queues share a name
     */
    public static InProcessQueueSource of(List<? extends DelayedQueue<?>> queues) {
        Objects.requireNonNull(queues, "queues");
        Map<String, View> byName = new TreeMap<>();
        for (DelayedQueue<?> q : queues) {
            Objects.requireNonNull(q, "queues[i]");
            if (byName.put(q.name(), new View(q)) != null) {
                throw new IllegalArgumentException("queues must have distinct names, '" + q.name() + "' is twice");
            }
        }
        return new InProcessQueueSource(Map.copyOf(byName));
    }

    @Override
    public List<String> names() {
        return List.copyOf(new TreeMap<>(queues).keySet());
    }

    @Override
    public Optional<QueueView> queue(String name) {
        return Optional.ofNullable(queues.get(name));
    }

    @Override
    public String describe() {
        return "in-process";
    }

    @Override
    public void close() {
        // the queues are the application's
    }

    /** One queue of the application. Thread-safe as the queue. */
    private static final class View implements QueueView {

        private final DelayedQueue<?> queue;

        View(DelayedQueue<?> queue) {
            this.queue = queue;
        }

        @Override
        public String name() {
            return queue.name();
        }

        @Override
        public String backend() {
            return "in-process";
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
        public Optional<QueueCounters> counters() {
            return queue.counters();
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
