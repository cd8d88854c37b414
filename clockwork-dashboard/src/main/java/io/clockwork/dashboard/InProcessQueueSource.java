package io.clockwork.dashboard;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueStats;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.Schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 * or in-flight messages and looks none up. A queue's recurring schedules appear once the application hands them in
 * with {@link #withSchedules(String, Schedules)}: the dashboard lists, pauses and resumes them, and never starts
 * them or runs a pass.
 */
public final class InProcessQueueSource implements QueueSource {

    private final Supplier<? extends Collection<? extends DelayedQueue<?>>> queues;
    private final String where;
    /** Queue name to the schedules the application handed in for it. */
    private final Map<String, Schedules<?>> schedules;

    private InProcessQueueSource(Supplier<? extends Collection<? extends DelayedQueue<?>>> queues, String where,
            Map<String, Schedules<?>> schedules) {
        this.queues = queues;
        this.where = where;
        this.schedules = schedules;
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
        return new InProcessQueueSource(() -> fixed, "in-process", Map.of());
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
        return new InProcessQueueSource(queues, where, Map.of());
    }

    /**
     * Shows a queue's recurring schedules beside it. The schedules stay the application's: {@link #close()} leaves
     * them open, and whether they run passes is the application's choice ({@link Schedules#start()}).
     *
     * @param queue     the name of one of this source's queues, the one the schedules' occurrences go to
     * @param schedules its schedules
     * @return a source like this one, with these schedules on that queue
     * @throws IllegalArgumentException if this source has no such queue now, or that queue has schedules already
     */
    public InProcessQueueSource withSchedules(String queue, Schedules<?> schedules) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(schedules, "schedules");
        if (!names().contains(queue)) {
            throw new IllegalArgumentException("queue must be one of this source's queues " + names() + ", was '"
                    + queue + "'");
        }
        if (this.schedules.containsKey(queue)) {
            throw new IllegalArgumentException("queue '" + queue + "' has schedules already");
        }
        Map<String, Schedules<?>> copy = new TreeMap<>(this.schedules);
        copy.put(queue, schedules);
        return new InProcessQueueSource(this.queues, where, Map.copyOf(copy));
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
                return Optional.of(new View(q, where, schedules.get(name)));
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
    private static final class View extends QueueActions {

        private final DelayedQueue<?> queue;
        private final String where;
        private final Schedules<?> schedules; // null: none handed in

        View(DelayedQueue<?> queue, String where, Schedules<?> schedules) {
            super(queue);
            this.queue = queue;
            this.where = where;
            this.schedules = schedules;
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
        public Optional<QueueCounters> counters() {
            return queue.counters();
        }

        @Override
        public List<GroupBacklog> largestGroups(int limit) {
            return queue.largestGroups(limit);
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
        public List<ScheduleInfo> schedules() {
            return schedules == null ? List.of() : schedules.list();
        }

        @Override
        public boolean pauseSchedule(String name) {
            return schedules == null ? checkedFalse(name) : schedules.pause(name);
        }

        @Override
        public boolean resumeSchedule(String name) {
            return schedules == null ? checkedFalse(name) : schedules.resume(name);
        }

        /** Without schedules there is nothing to pause or resume, but a malformed name is refused all the same. */
        private static boolean checkedFalse(String name) {
            Schedule.checkName(name);
            return false;
        }
    }
}
