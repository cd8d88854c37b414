package io.clockwork.dashboard;

import io.clockwork.queue.Codec;
import io.clockwork.queue.GroupBacklog;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.QueueStats;
import io.clockwork.redis.QueueNotFoundException;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisQueueBrowser;
import io.clockwork.redis.RedisQueueBuilder;
import io.clockwork.redis.RedisQueueRegistry;
import io.clockwork.redis.RedisSchedules;
import io.clockwork.schedule.ScheduleInfo;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The queues of one Redis server or Redis Cluster, found through its registry of queues ({@link RedisQueueRegistry}),
 * each opened once (as an existing queue, with raw byte values, so any producer's payload can be shown) and kept open
 * until {@link #close()}. The queues share one Lettuce client (its threads and event loops; on a Cluster, a cluster
 * client that finds the nodes from a seed node), each with its own connection. Thread-safe.
 *
 * <p>Each queue's schedules are read and paused through a {@link RedisSchedules} that is never started and whose
 * {@code fireDue} is never called: listing, pausing and resuming only read and write the schedules' state, so the
 * dashboard produces no occurrence (the applications' schedulers do).
 */
public final class RedisQueueSource implements QueueSource {

    private final int maxAttempts;
    private final RedisQueueRegistry registry;
    private final Function<String, RedisQueueBuilder<byte[]>> builders;
    private final Runnable shutdown;
    private final String description;
    private final Map<String, RedisView> open = new ConcurrentHashMap<>();

    private RedisQueueSource(int maxAttempts, RedisQueueRegistry registry,
            Function<String, RedisQueueBuilder<byte[]>> builders, Runnable shutdown, String description) {
        this.maxAttempts = maxAttempts;
        this.registry = registry;
        this.builders = builders;
        this.shutdown = shutdown;
        this.description = description;
    }

    /**
     * Connects to a server.
     *
     * @param redisUri    the server (Lettuce URI syntax)
     * @param maxAttempts the queues' maxAttempts, as their clients build them: it decides what an expired delivery
     *                    becomes when the dashboard's stats call returns it to the schedule
     * @return the source
     * @throws IllegalArgumentException if the URI is malformed or maxAttempts out of range
     * @throws io.clockwork.redis.RedisQueueException if the server cannot be reached
     */
    public static RedisQueueSource connect(String redisUri, int maxAttempts) {
        Objects.requireNonNull(redisUri, "redisUri");
        checkMaxAttempts(maxAttempts);
        RedisQueueRegistry registry = RedisQueueRegistry.connect(redisUri); // first: it checks the URI and the server
        RedisClient client = RedisClient.create(RedisURI.create(redisUri));
        return new RedisQueueSource(maxAttempts, registry,
                name -> RedisDelayedQueue.builder(client, name, Codec.bytes()), client::shutdown, registry.where());
    }

    /**
     * Connects to a Redis Cluster through one of its nodes; the client finds the others from it.
     *
     * @param seedUri     a node of the Cluster (Lettuce URI syntax)
     * @param maxAttempts as in {@link #connect(String, int)}
     * @return the source
     * @throws IllegalArgumentException if the URI is malformed or maxAttempts out of range
     * @throws io.clockwork.redis.RedisQueueException if the Cluster cannot be reached
     */
    public static RedisQueueSource connectCluster(String seedUri, int maxAttempts) {
        Objects.requireNonNull(seedUri, "seedUri");
        checkMaxAttempts(maxAttempts);
        RedisURI seed;
        try {
            seed = RedisURI.create(seedUri);
        } catch (RuntimeException e) { // neither the URI nor Lettuce's message is shown: either may hold a password
            throw new IllegalArgumentException("seedUri is not a Redis URI");
        }
        RedisClusterClient client = RedisClusterClient.create(seed);
        RedisQueueRegistry registry;
        try {
            registry = RedisQueueRegistry.of(client);
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
        String host = seed.getHost() != null ? seed.getHost() + ":" + seed.getPort() : String.valueOf(seed.getSocket());
        String description = "redis cluster, seed " + (seed.isSsl() ? "rediss" : "redis") + "://" + host;
        return new RedisQueueSource(maxAttempts, registry,
                name -> RedisDelayedQueue.builder(client, name, Codec.bytes()), client::shutdown, description);
    }

    private static void checkMaxAttempts(int maxAttempts) {
        if (maxAttempts < 1 || maxAttempts > QueueOptions.MAX_MAX_ATTEMPTS) {
            throw new IllegalArgumentException("maxAttempts must be 1 to " + QueueOptions.MAX_MAX_ATTEMPTS + ", was "
                    + maxAttempts);
        }
    }

    @Override
    public List<String> names() {
        return registry.names();
    }

    @Override
    public Optional<QueueView> queue(String name) {
        Objects.requireNonNull(name, "name");
        RedisView v = open.get(name);
        if (v != null) {
            return Optional.of(v);
        }
        if (!names().contains(name)) {
            return Optional.empty();
        }
        synchronized (open) {
            v = open.get(name);
            if (v == null) {
                try {
                    v = new RedisView(builders.apply(name).openExisting().maxAttempts(maxAttempts).build(),
                            description);
                } catch (QueueNotFoundException e) {
                    return Optional.empty(); // listed, then deleted
                }
                open.put(name, v);
            }
        }
        return Optional.of(v);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean deletesQueues() {
        return true;
    }

    /**
     * Deletes every key of the queue on Redis, in every partition, and its name from the registry
     * ({@link RedisDelayedQueue#delete()}), then closes the source's view of it.
     *
     * @throws QueueNotFoundException if no client has created a queue of that name
     * @throws io.clockwork.redis.RedisQueueException if Redis fails
     */
    @Override
    public long delete(String name) {
        Objects.requireNonNull(name, "name");
        synchronized (open) {
            RedisView v = open.remove(name);
            if (v != null) {
                try {
                    return v.queue.delete();
                } finally {
                    v.close();
                }
            }
            try (RedisDelayedQueue<byte[]> q = builders.apply(name).openExisting().maxAttempts(maxAttempts).build()) {
                return q.delete();
            }
        }
    }

    @Override
    public void close() {
        synchronized (open) {
            open.values().forEach(RedisView::close);
            open.clear();
        }
        registry.close();
        shutdown.run();
    }

    /** One open Redis queue. Thread-safe. */
    private static final class RedisView extends QueueActions {

        private final RedisDelayedQueue<byte[]> queue;
        private final RedisQueueBrowser browser;
        private final RedisSchedules<byte[]> schedules;
        private final String where;

        RedisView(RedisDelayedQueue<byte[]> queue, String where) {
            super(queue);
            this.queue = queue;
            this.browser = RedisQueueBrowser.of(queue);
            this.schedules = RedisSchedules.builder(queue).build(); // never started: see the class comment
            this.where = where;
        }

        void close() {
            schedules.close();
            queue.close();
        }

        @Override
        public String name() {
            return queue.name();
        }

        @Override
        public String backend() {
            return where + (detail().isEmpty() ? "" : ", " + detail());
        }

        @Override
        public String detail() {
            return queue.partitions() > 1 ? queue.partitions() + " partitions" : "";
        }

        @Override
        public QueueStats stats() {
            return queue.stats();
        }

        @Override
        public Optional<Duration> oldestReady() {
            return browser.head().oldestReady();
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
            RedisQueueBrowser.Page p = browser.page(RedisQueueBrowser.State.valueOf(state.name()), cursor, size);
            List<MessageRow> rows = new ArrayList<>(p.entries().size());
            p.entries().forEach(e -> rows.add(row(e)));
            return new MessagePage(rows, p.total(), p.next(), true);
        }

        @Override
        public Optional<MessageRow> find(String id) {
            return browser.find(id).map(RedisView::row);
        }

        @Override
        public boolean browsable() {
            return true;
        }

        private static MessageRow row(RedisQueueBrowser.Entry e) {
            return new MessageRow(e.id(), MessageState.valueOf(e.state().name()), Optional.of(e.at()), e.attempts(),
                    e.headers(), e.payload(), e.evicted() ? "state evicted by Redis" : e.error());
        }

        @Override
        public List<ScheduleInfo> schedules() {
            return schedules.list();
        }

        @Override
        public boolean pauseSchedule(String name) {
            return schedules.pause(name);
        }

        @Override
        public boolean resumeSchedule(String name) {
            return schedules.resume(name);
        }
    }
}
