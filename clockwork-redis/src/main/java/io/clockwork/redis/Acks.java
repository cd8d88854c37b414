package io.clockwork.redis;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The acks of one queue's deliveries: one, many (one {@code ack.lua} call per partition), asynchronous, and an ack
 * with the next poll of the same partition; each reads the script's code through the delivery
 * ({@link RedisDelivery#ackedIfGone}) and tells the delivery when the ack failed. Thread-safe: it keeps no state.
 *
 * @param <V> the type of the message values
 */
final class Acks<V> {

    private final RedisDelayedQueue<V> queue;
    private final QueueScripts scripts;
    private final PollLoop<V> pollLoop;
    private final String name;
    private final boolean rateLimited;

    /** @param rateLimited whether the queue has a rate limit: an ack-and-poll is then an ack and a limited poll */
    Acks(RedisDelayedQueue<V> queue, QueueScripts scripts, PollLoop<V> pollLoop, String name, boolean rateLimited) {
        this.rateLimited = rateLimited;
        this.queue = queue;
        this.scripts = scripts;
        this.pollLoop = pollLoop;
        this.name = name;
    }

    /** @see RedisDelayedQueue#ackAll */
    List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        Objects.requireNonNull(deliveries, "deliveries");
        Object[] given = deliveries.toArray();
        QueueSupport.checkBatch("deliveries", given.length);
        String[] ids = new String[given.length];
        long[] receipts = new long[given.length];
        String[] groups = new String[given.length];
        for (int i = 0; i < given.length; i++) {
            int index = i;
            Objects.requireNonNull(given[i], () -> "deliveries[" + index + "]");
            if (!(given[i] instanceof RedisDelivery<?> d) || d.queue() != queue) {
                throw new IllegalArgumentException("deliveries[" + i + "] is not a delivery of queue '"
                        + name + "' (this client): " + given[i]);
            }
            ids[i] = d.id();
            receipts[i] = d.receipt();
            groups[i] = Groups.groupOf(d.headers());
        }
        if (ids.length == 0) {
            return List.of();
        }
        long[] codes;
        try {
            codes = scripts.ackAll(ids, receipts, groups);
        } catch (RuntimeException e) {
            for (Object d : given) {
                ((RedisDelivery<?>) d).ackFailed();
            }
            throw e;
        }
        Boolean[] result = new Boolean[ids.length];
        for (int i = 0; i < ids.length; i++) {
            result[i] = ((RedisDelivery<?>) given[i]).ackedIfGone(ScriptReplies.AckCode.of(codes[i]));
            freed((RedisDelivery<?>) given[i]);
        }
        return List.of(result);
    }

    /** @see RedisDelayedQueue#ackAndPoll */
    AckAndPoll<V> ackAndPoll(Delivery<V> done) {
        Objects.requireNonNull(done, "done");
        if (!(done instanceof RedisDelivery<V> d) || d.queue() != queue) {
            throw new IllegalArgumentException("done is not a delivery of queue '" + name
                    + "' (this client): " + done);
        }
        if (rateLimited) {
            boolean acked = ack(d);
            try {
                List<Delivery<V>> next = pollLoop.poll(Duration.ZERO, 0);
                return new AckAndPoll<>(acked, next.isEmpty() ? null : next.get(0));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new AckAndPoll<>(acked, null);
            }
        }
        long sent = System.nanoTime();
        ScriptReplies.AckPolled r;
        try {
            r = scripts.ackPoll(d.partition(), d.id(), d.receipt(), Groups.groupOf(d.headers()));
        } catch (RuntimeException e) {
            d.ackFailed();
            throw e;
        }
        return new AckAndPoll<>(d.ackedIfGone(r.code()), pollLoop.delivered(d.partition(), r.polled(), sent));
    }

    boolean ack(RedisDelivery<V> d) {
        ScriptReplies.AckCode code;
        try {
            code = scripts.ack(d.partition(), d.id(), d.receipt(), Groups.groupOf(d.headers()));
        } catch (RuntimeException e) {
            d.ackFailed();
            throw e;
        }
        freed(d);
        return d.ackedIfGone(code);
    }

    CompletionStage<Boolean> ackAsync(RedisDelivery<V> d) {
        String group = Groups.groupOf(d.headers());
        return scripts.ackAsync(d.partition(), d.id(), d.receipt(), group).whenComplete((code, e) -> {
            if (e != null) {
                d.ackFailed();
            } else {
                freed(d);
            }
        }).thenApply(d::ackedIfGone);
    }

    /**
     * An ack of a group's message may free the group's slot: this client polls the partition again at once rather
     * than after its "nothing due" hint ({@link Partitions#offered}).
     */
    private void freed(RedisDelivery<?> d) {
        if (Groups.groupOf(d.headers()) != null) {
            queue.routing().offered(d.partition());
        }
    }
}
