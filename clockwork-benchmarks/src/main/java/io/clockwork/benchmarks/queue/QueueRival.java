package io.clockwork.benchmarks.queue;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.redis.RedisDelayedQueue;
import io.clockwork.redis.RedisQueueBuilder;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One delayed queue under test, reduced to what the workloads do: offer a string with a delay, and take one that
 * fell due (taking includes whatever the queue needs to finish the delivery: Clockwork's {@code ack}). Each rival is
 * used as its documentation shows, with its client's defaults. Thread-safe, as both queues are.
 */
abstract class QueueRival implements AutoCloseable {

    static final String CLOCKWORK = "clockwork";
    static final String REDISSON = "redisson";

    final String name;

    QueueRival(String name) {
        this.name = name;
    }

    /** Offers a value due after {@code delayMs}; returns when the server has it. */
    abstract void offer(String value, long delayMs);

    /** Takes a due value, waiting up to about {@code waitMs}; null if none came. */
    abstract String take(long waitMs) throws InterruptedException;

    /**
     * Offers values due after {@code delayMs} with the queue's batch or asynchronous API; returns when the server
     * has them all.
     */
    abstract void offerBatch(List<String> values, long delayMs);

    /**
     * Offers values due after {@code delayMs} one asynchronous call each, all in flight together; returns when the
     * server has them all.
     */
    abstract void offerAsync(List<String> values, long delayMs);

    /** Takes up to {@code max} due values with the queue's batch API, waiting up to about {@code waitMs}. */
    abstract List<String> takeBatch(int max, long waitMs) throws InterruptedException;

    /**
     * @param batch whether the batch forms are used
     * @param size  values per batch
     * @param takes whether the scenario takes too (else it only offers)
     * @return which calls of the queue's API {@link #offer} and {@link #take} (batch: the batch forms) make
     */
    abstract String api(boolean batch, int size, boolean takes);

    @Override
    public abstract void close();

    /** Clockwork's {@link RedisDelayedQueue} on a standalone server, with a client of its own. */
    static QueueRival clockwork(String uri, String queue, int partitions) {
        return clockwork(uri, queue, partitions, null);
    }

    /**
     * Clockwork's {@link RedisDelayedQueue} with a {@code compactAfter} of its own ({@code null}: the builder's
     * default; {@link #PER_MESSAGE}: the compact store off).
     */
    static QueueRival clockwork(String uri, String queue, int partitions, Duration compactAfter) {
        RedisQueueBuilder<String> b = RedisDelayedQueue.builder(uri, queue, Codec.string()).partitions(partitions);
        if (compactAfter != null) {
            b.compactAfter(compactAfter);
        }
        return new Clockwork(b.build(), null);
    }

    /** A {@code compactAfter} that keeps every message in the per-message layout. */
    static final Duration PER_MESSAGE = DelayedQueue.MAX_DELAY.plusMillis(1);

    /** @return the harness option {@code --compact-after}: '' (default), 'off', or milliseconds */
    static Duration compactAfter(String option) {
        return option.isEmpty() ? null : option.equals("off") ? PER_MESSAGE : Duration.ofMillis(Long.parseLong(option));
    }

    /** Clockwork's {@link RedisDelayedQueue} on a Redis Cluster, split into {@code partitions}. */
    static QueueRival clockworkCluster(List<String> seeds, String queue, int partitions) {
        RedisClusterClient client = RedisClusterClient.create(
                seeds.stream().map(RedisURI::create).collect(Collectors.toList()));
        try {
            RedisDelayedQueue<String> q = RedisDelayedQueue.builder(client, queue, Codec.string())
                    .partitions(partitions).build();
            return new Clockwork(q, client);
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
    }

    /** Redisson's {@code RDelayedQueue} over an {@code RBlockingQueue}, the documented way, string codec. */
    static QueueRival redisson(String uri, String queue) {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress(uri);
        RedissonClient client = Redisson.create(config);
        RBlockingQueue<String> destination = client.getBlockingQueue(queue);
        RDelayedQueue<String> delayed = client.getDelayedQueue(destination);
        return new RedissonRival(client, destination, delayed);
    }

    private static final class Clockwork extends QueueRival {
        private final RedisDelayedQueue<String> queue;
        private final RedisClusterClient ownClusterClient;

        Clockwork(RedisDelayedQueue<String> queue, RedisClusterClient ownClusterClient) {
            super(CLOCKWORK);
            this.queue = queue;
            this.ownClusterClient = ownClusterClient;
        }

        @Override
        void offer(String value, long delayMs) {
            queue.offer(value, Duration.ofMillis(delayMs));
        }

        @Override
        String take(long waitMs) throws InterruptedException {
            Delivery<String> d = queue.poll(Duration.ofMillis(waitMs));
            if (d == null) {
                return null;
            }
            d.ack();
            return d.value();
        }

        @Override
        void offerBatch(List<String> values, long delayMs) {
            queue.offerAll(values, Duration.ofMillis(delayMs));
        }

        @Override
        void offerAsync(List<String> values, long delayMs) {
            Duration delay = Duration.ofMillis(delayMs);
            List<CompletableFuture<String>> sent = new ArrayList<>(values.size());
            for (String v : values) {
                sent.add(queue.offerAsync(v, delay).toCompletableFuture());
            }
            CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])).join();
        }

        @Override
        List<String> takeBatch(int max, long waitMs) throws InterruptedException {
            List<Delivery<String>> got = queue.poll(max, Duration.ofMillis(waitMs));
            if (got.isEmpty()) {
                return List.of();
            }
            queue.ackAll(got);
            List<String> values = new ArrayList<>(got.size());
            for (Delivery<String> d : got) {
                values.add(d.value());
            }
            return values;
        }

        @Override
        String api(boolean batch, int size, boolean takes) {
            String offer = batch ? "`offerAll(" + size + " values, delay)`" : "`offer(value, delay)`";
            String take = batch ? "`poll(" + size + ", wait)` + `ackAll(deliveries)`"
                    : "`poll(wait)` + `Delivery.ack()`";
            return takes ? offer + "; " + take : offer + ", one call in flight per thread";
        }

        @Override
        public void close() {
            queue.close();
            if (ownClusterClient != null) {
                ownClusterClient.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    private static final class RedissonRival extends QueueRival {
        private final RedissonClient client;
        private final RBlockingQueue<String> destination;
        private final RDelayedQueue<String> delayed;

        RedissonRival(RedissonClient client, RBlockingQueue<String> destination, RDelayedQueue<String> delayed) {
            super(REDISSON);
            this.client = client;
            this.destination = destination;
            this.delayed = delayed;
        }

        @Override
        void offer(String value, long delayMs) {
            delayed.offer(value, delayMs, TimeUnit.MILLISECONDS);
        }

        @Override
        String take(long waitMs) throws InterruptedException {
            // Redisson sends BLPOP with a timeout in whole seconds (at least 1 s).
            return destination.poll(waitMs, TimeUnit.MILLISECONDS);
        }

        @Override
        void offerBatch(List<String> values, long delayMs) {
            // Redisson has no batch offer for a delayed queue: its best equivalent is as many offerAsync calls in
            // flight as the batch holds (the same number of operations in flight per thread as ours).
            List<CompletableFuture<Void>> sent = new ArrayList<>(values.size());
            for (String v : values) {
                sent.add(delayed.offerAsync(v, delayMs, TimeUnit.MILLISECONDS).toCompletableFuture());
            }
            CompletableFuture.allOf(sent.toArray(new CompletableFuture[0])).join();
        }

        @Override
        void offerAsync(List<String> values, long delayMs) {
            offerBatch(values, delayMs);
        }

        @Override
        List<String> takeBatch(int max, long waitMs) throws InterruptedException {
            // BLMPOP ... COUNT max: blocks until the destination list has items, then pops up to max of them.
            Map<String, List<String>> got = destination.pollFirstFromAny(Duration.ofMillis(waitMs), max);
            if (got == null || got.isEmpty()) {
                return List.of();
            }
            List<String> values = new ArrayList<>(max);
            got.values().forEach(values::addAll);
            return values;
        }

        @Override
        String api(boolean batch, int size, boolean takes) {
            String offer = batch ? size + " x `RDelayedQueue.offerAsync(value, delay, unit)` in flight per thread, "
                    + "then wait for all" : "`RDelayedQueue.offer(value, delay, unit)`, one call in flight per thread";
            String take = batch ? "`RBlockingQueue.pollFirstFromAny(wait, " + size + ")` (BLMPOP COUNT " + size
                    + "; no ack)" : "`RBlockingQueue.poll(wait)` (BLPOP; no ack)";
            return takes ? offer + "; " + take : offer;
        }

        @Override
        public void close() {
            delayed.destroy();
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
