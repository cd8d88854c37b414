package io.clockwork.redis;

import io.clockwork.redis.KeyLayout.Key;

import java.nio.charset.StandardCharsets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Redis keys of one queue of the Redisson face and a typed call per script ({@code face_*.lua}). Thread-safe.
 * It is the Redis side of the {@code clockwork-redisson} module's {@code RedisRedisson}, which applications use;
 * instances come from {@link FaceConnections#store(String)}.
 *
 * <p>A face queue is a one-partition Clockwork queue (its {@code pending} sorted set and {@code meta} hash hold the
 * elements, due by the server's clock) plus two indexes in the same hash tag: {@code order}, the delayed elements in
 * offer order, and {@code values}, every element by the SHA-1 of its payload (see {@code include/face.lua}). Each
 * element is in one of two scopes at the server's clock: {@link Scope#DELAYED} until its due time, then
 * {@link Scope#DUE} (in the destination).
 */
public final class FaceStore implements AutoCloseable {

    /** Where an element is at the server's clock. */
    public enum Scope {
        /** Not yet due: the delayed queue's elements. */
        DELAYED("delayed"),
        /** Due: the destination's elements. */
        DUE("due");

        private final byte[] arg;

        Scope(String arg) {
            this.arg = arg.getBytes(StandardCharsets.US_ASCII);
        }
    }

    /**
     * The reply of a take.
     *
     * @param payloads the elements taken, head first
     * @param waitMs   0 if more elements are due, else the ms until the next one falls due, or -1 if none is pending
     */
    public record Taken(List<byte[]> payloads, long waitMs) {
    }

    private static final byte[] NO_MAX_ATTEMPTS = ScriptArgs.arg(0);
    private static final byte[] FIRST = ScriptArgs.arg("first");
    private static final byte[] HEAD = ScriptArgs.arg("head");
    private static final byte[] TAIL = ScriptArgs.arg("tail");
    private static final byte[] YES = ScriptArgs.arg(1);
    private static final byte[] NO = ScriptArgs.arg(0);

    private final String name;
    private final ScriptRunner runner;
    private final Signals signals;
    /** The queue's keys: one partition, on a standalone server (or in one Cluster slot). */
    private final KeyLayout keys;

    FaceStore(String name, ScriptRunner runner, Signals signals) {
        this.name = name;
        this.runner = runner;
        this.signals = signals;
        this.keys = new KeyLayout(name, 1, false);
    }

    /** @return the queue's name */
    public String name() {
        return name;
    }

    /**
     * Waits for an offer to this queue, or for {@code waitMs}.
     *
     * @param waitMs the longest wait in ms
     * @return whether a signal arrived before the wait ended
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitSignal(long waitMs) throws InterruptedException {
        return signals.await(waitMs);
    }

    /**
     * Counts a Redisson delayed queue's elements, for a dry run of its migration into this queue.
     *
     * @param redissonKeys Redisson's timeout set, delayed list and destination list
     * @return {due (the destination list's length), delayed (the larger of the timeout set's and the delayed list's)}
     */
    public long[] redissonCounts(byte[][] redissonKeys) {
        var commands = runner.connections().commands();
        long due = runner.await(commands.llen(redissonKeys[2]));
        long delayed = Math.max(runner.await(commands.zcard(redissonKeys[0])),
                runner.await(commands.llen(redissonKeys[1])));
        return new long[] {due, delayed};
    }

    /**
     * @param payload the element
     * @param delayMs its delay in ms; 0 or less: due at once
     */
    public void offer(byte[] payload, long delayMs) {
        run("offer", Script.FACE_OFFER, NO_MAX_ATTEMPTS, ScriptArgs.arg(Math.max(0, delayMs)),
                payload);
    }

    /** Files an element due before the destination's head, so it is the next one taken. */
    public void offerFirst(byte[] payload) {
        run("offerFirst", Script.FACE_OFFER, NO_MAX_ATTEMPTS, FIRST, payload);
    }

    /**
     * @param limit  the most elements to take, at least 1
     * @param tail   whether to take from the tail (the last due) instead of the head
     * @param remove whether to remove them (a take) or only read them (a peek)
     * @return what was taken, and how long until the next element falls due
     */
    public Taken take(int limit, boolean tail, boolean remove) {
        List<Object> r = run(remove ? "poll" : "peek", Script.FACE_TAKE, NO_MAX_ATTEMPTS,
                ScriptArgs.arg(limit), tail ? TAIL : HEAD, remove ? YES : NO);
        return new Taken(payloads(r, 1), (Long) r.get(0));
    }

    /**
     * @param limit  the most elements, at least 1
     * @param tail   whether to start from the last offered
     * @param remove whether to remove them (a poll) or only read them (a peek)
     * @return the delayed elements at that end of the offer order
     */
    public List<byte[]> delayedEnd(int limit, boolean tail, boolean remove) {
        List<Object> r = run(remove ? "poll" : "peek", Script.FACE_DELAYED, NO_MAX_ATTEMPTS,
                ScriptArgs.arg(limit), tail ? TAIL : HEAD, remove ? YES : NO);
        return payloads(r, 0);
    }

    /**
     * Counts (and removes) copies from the head of the scope's order.
     *
     * @param scope    where to look
     * @param limit    the most copies of each payload to count, 0 for all
     * @param remove   whether to remove the copies counted
     * @param payloads the values looked for, encoded
     * @return for each payload, how many copies were counted (and removed)
     */
    public long[] find(Scope scope, int limit, boolean remove, List<byte[]> payloads) {
        return find(scope, limit, remove, false, payloads);
    }

    /**
     * @param scope    where to look
     * @param limit    the most copies of each payload to count, 0 for all
     * @param remove   whether to remove the copies counted
     * @param tail     whether to count from the tail of the scope's order (offer order for delayed elements, due
     *                 order for due ones) instead of its head
     * @param payloads the values looked for, encoded
     * @return for each payload, how many copies were counted (and removed)
     */
    public long[] find(Scope scope, int limit, boolean remove, boolean tail, List<byte[]> payloads) {
        byte[][] args = new byte[5 + payloads.size()][];
        args[0] = NO_MAX_ATTEMPTS;
        args[1] = scope.arg;
        args[2] = ScriptArgs.arg(limit);
        args[3] = remove ? YES : NO;
        args[4] = tail ? TAIL : HEAD;
        for (int i = 0; i < payloads.size(); i++) {
            args[5 + i] = payloads.get(i);
        }
        List<Object> r = run(remove ? "remove" : "contains", Script.FACE_FIND, args);
        long[] counts = new long[r.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = (Long) r.get(i);
        }
        return counts;
    }

    /**
     * @param scope which elements
     * @return every element of the scope, in its order (offer order for delayed ones, due order for due ones)
     */
    public List<byte[]> read(Scope scope) {
        return payloads(run("readAll", Script.FACE_READ, NO_MAX_ATTEMPTS, scope.arg), 0);
    }

    /**
     * @param scope which elements
     * @return how many elements the scope holds now
     */
    public long count(Scope scope) {
        List<Object> r = run("size", Script.FACE_COUNT, NO_MAX_ATTEMPTS);
        return (Long) r.get(scope == Scope.DELAYED ? 0 : 1);
    }

    /**
     * @param scope which elements
     * @return how many were removed
     */
    public long clear(Scope scope) {
        List<Object> r = run("clear", Script.FACE_CLEAR, NO_MAX_ATTEMPTS, scope.arg);
        return (Long) r.get(0);
    }

    /**
     * Moves the tail element of a scope to the head of another face queue, in one script.
     *
     * @param scope  where the element is taken from
     * @param target the queue it goes to
     * @return its payload, or null if the scope was empty
     */
    public byte[] moveLastToFront(Scope scope, FaceStore target) {
        byte[][] own = keys.keys(Script.FACE_MOVE, 0);
        byte[][] k = Arrays.copyOf(own, own.length + 5);
        k[own.length] = target.keys.key(Key.PENDING, 0);
        k[own.length + 1] = target.keys.key(Key.META, 0);
        k[own.length + 2] = target.keys.key(Key.SEQ, 0);
        k[own.length + 3] = target.keys.key(Key.SIGNAL, 0);
        k[own.length + 4] = target.keys.key(Key.VALUES, 0);
        List<Object> r = runner.run("pollLastAndOfferFirstTo", Script.FACE_MOVE, k, NO_MAX_ATTEMPTS, scope.arg);
        return r.isEmpty() ? null : (byte[]) r.get(0);
    }

    /**
     * Moves one batch of a Redisson delayed queue's elements into this queue (see {@code migrate_redisson.lua}).
     *
     * @param redissonKeys Redisson's timeout set, delayed list and destination list
     * @param batch        the most elements to move, at least 1
     * @return {movedDue, movedDelayed, skipped, remaining}
     */
    public long[] migrateBatch(byte[][] redissonKeys, int batch) {
        byte[][] own = keys.keys(Script.MIGRATE_REDISSON, 0);
        byte[][] k = Arrays.copyOf(own, own.length + redissonKeys.length);
        System.arraycopy(redissonKeys, 0, k, own.length, redissonKeys.length);
        List<Object> r = runner.run("migrate", Script.MIGRATE_REDISSON, k, NO_MAX_ATTEMPTS, ScriptArgs.arg(batch));
        return new long[] {(Long) r.get(0), (Long) r.get(1), (Long) r.get(2), (Long) r.get(3)};
    }

    /** Runs a script with the keys it takes. */
    private <T> T run(String operation, Script script, byte[]... args) {
        return runner.run(operation, script, keys.keys(script, 0), args);
    }

    private static List<byte[]> payloads(List<Object> reply, int from) {
        List<byte[]> out = new ArrayList<>(reply.size() - from);
        for (int i = from; i < reply.size(); i++) {
            out.add((byte[]) reply.get(i));
        }
        return out;
    }


    @Override
    public void close() {
        signals.close();
    }
}
