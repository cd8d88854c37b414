package io.clockwork.redis;

import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.queue.spi.Delay;
import io.clockwork.queue.spi.QueueSupport;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The single offers of one queue, blocking and asynchronous: each checks and encodes its message, generates an id
 * where none is given (fresh: its first attempt skips the dedup read), goes through its partition's group commit
 * ({@link QueueScripts#offer}) and passes a wake-up on when the script asks. Thread-safe: it keeps no state of its
 * own.
 *
 * @param <V> the type of the message values
 */
final class Offers<V> {

    private final QueueSupport<V> support;
    private final Partitions partitions;
    private final QueueScripts scripts;
    private final Signals signals;
    private final IdGenerator idGenerator;
    private final Priorities priorities;
    private final Groups groups;

    Offers(QueueSupport<V> support, Partitions partitions, QueueScripts scripts, Signals signals,
           IdGenerator idGenerator, Priorities priorities, Groups groups) {
        this.support = support;
        this.partitions = partitions;
        this.scripts = scripts;
        this.signals = signals;
        this.idGenerator = idGenerator;
        this.priorities = priorities;
        this.groups = groups;
    }

    /** @see RedisDelayedQueue#offer(Object, Duration) */
    String offer(V value, Duration delay) {
        byte[] payload = support.encode(value);
        Delay d = support.delay(delay);
        String id = idGenerator.next();
        // Fresh: the first attempt skips the dedup read (the id is unique); a retry after a lost reply checks it, so
        // a generated id is added exactly once.
        int p = partitions.of(id);
        ScriptReplies.Stored r = scripts.offer(p, id, Tail.of(Map.of(), payload), d, ScriptArgs.FRESH);
        partitions.offered(p);
        signalIfAsked(r);
        return r.idOf(id);
    }

    /** @see RedisDelayedQueue#offer(String, Object, Duration) */
    boolean offer(String id, V value, Duration delay) {
        support.checkId(id);
        byte[] payload = support.encode(value);
        return add(id, payload, support.delay(delay));
    }

    /** @see RedisDelayedQueue#offerAsync(Object, Duration) */
    CompletionStage<String> offerAsync(V value, Duration delay) {
        byte[] payload = support.encode(value);
        Delay d = support.delay(delay);
        String id = idGenerator.next();
        int p = partitions.of(id);
        return scripts.offerAsync(p, id, Tail.of(Map.of(), payload), d, ScriptArgs.FRESH).thenApply(r -> {
            partitions.offered(p);
            signalIfAsked(r);
            return r.idOf(id);
        });
    }

    /** @see RedisDelayedQueue#offerAsync(String, Object, Duration) */
    CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        support.checkId(id);
        byte[] payload = support.encode(value);
        return addAsync(id, payload, support.delay(delay));
    }

    /** @see RedisDelayedQueue#offer(Message) */
    Offered offer(Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        byte[] tail = Tail.of(message.headers(), support.encode(message.value()));
        Delay d = support.delay(message.delay());
        boolean fresh = message.id().isEmpty();
        String id = groups.idFor(message.id().orElse(null), message.headers(), idGenerator);
        int p = partitions.of(id);
        priorities.before(p, message.headers());
        groups.before(p, message.headers());
        byte flag = fresh ? ScriptArgs.FRESH : OfferBatches.flag(message.onConflict());
        ScriptReplies.Stored r = scripts.offer(p, id, tail, d, flag);
        partitions.offered(p);
        return new Offered(r.idOf(id), OfferBatches.outcome(signalIfAsked(r)));
    }

    /** @see RedisDelayedQueue#offerAsync(Message) */
    CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        Objects.requireNonNull(message, "message");
        byte[] tail = Tail.of(message.headers(), support.encode(message.value()));
        Delay d = support.delay(message.delay());
        String given = message.id().orElse(null);
        String id = groups.idFor(given, message.headers(), idGenerator);
        int p = partitions.of(id);
        byte flag = given == null ? ScriptArgs.FRESH : OfferBatches.flag(message.onConflict());
        return priorities.beforeAsync(p, message.headers())
                .thenCompose(marked -> groups.beforeAsync(p, message.headers()))
                .thenCompose(marked -> scripts.offerAsync(p, id, tail, d, flag)).thenApply(r -> {
            partitions.offered(p);
            return new Offered(r.idOf(id), OfferBatches.outcome(signalIfAsked(r)));
        });
    }

    private boolean add(String id, byte[] payload, Delay delay) {
        int p = partitions.of(id);
        ScriptReplies.Stored r = scripts.offer(p, id, Tail.of(Map.of(), payload), delay, ScriptArgs.KEEP);
        partitions.offered(p);
        return signalIfAsked(r) == ScriptReplies.ADDED;
    }

    private CompletableFuture<Boolean> addAsync(String id, byte[] payload, Delay delay) {
        int p = partitions.of(id);
        return scripts.offerAsync(p, id, Tail.of(Map.of(), payload), delay, ScriptArgs.KEEP).thenApply(r -> {
            partitions.offered(p);
            return signalIfAsked(r) == ScriptReplies.ADDED;
        });
    }

    /** Pushes a wake-up signal if the script asked the client to (its partition cannot reach the signal key). */
    private int signalIfAsked(ScriptReplies.Stored r) {
        if (r.mustSignal()) {
            signals.push();
        }
        return r.code();
    }
}
