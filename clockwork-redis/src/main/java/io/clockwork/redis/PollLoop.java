package io.clockwork.redis;

import io.clockwork.time.Nanos;
import io.clockwork.queue.CodecException;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.spi.QueueSupport;
import io.clockwork.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A consumer's poll: visits the partitions in turn until it takes something or its wait is over, sleeping on the
 * wake-up signal between passes. Thread-safe (one instance serves every polling thread of a queue).
 *
 * <p>One pass visits each partition once, starting at the next in turn ({@link PartitionSelector#nextStart()}),
 * skipping those that failed or answered "nothing due" a moment ago ({@link Partitions}). A single poll goes through
 * the partition's group commit; a batch poll takes what is still missing in one call per partition. If a pass took
 * nothing, the poll waits for a wake-up signal for at most the caller's remaining wait, the recheck interval, and the
 * earliest next event any partition reported. It fails only when no partition has answered for longer than
 * {@code retryOnConnectionLoss} allows; a partitioned queue goes on with the partitions that answer.
 *
 * <p>Under a rate limit ({@link QueueScripts#pollLimited}) every poll goes in a call of its own, taking at most the
 * permits free; a pass the limit kept from due messages sleeps until the next permit frees (or a wake-up), and the
 * first such call of a poll counts it as held back, once however many calls the poll makes.
 *
 * <p>The caller's wait is measured on the client's {@link Ticker}; due times never are (they come from the server's
 * {@code TIME}).
 *
 * @param <V> the value type
 */
final class PollLoop<V> {

    /** The queue's logger, so that one logging rule covers every part of it. */
    private static final System.Logger LOG = System.getLogger(RedisDelayedQueue.class.getName());

    private final RedisDelayedQueue<V> queue;
    private final QueueSupport<V> support;
    private final QueueScripts scripts;
    private final Partitions partitions;
    private final Signals signals;
    private final Ticker ticker;
    private final long recheckMillis;
    private final String where;
    private final boolean rateLimited;

    /** @param rateLimited whether the queue has a rate limit: polls then go through {@link QueueScripts#pollLimited} */
    PollLoop(RedisDelayedQueue<V> queue, QueueSupport<V> support, QueueScripts scripts, Partitions partitions,
             Signals signals, Ticker ticker, Duration recheckInterval, String where, boolean rateLimited) {
        this.rateLimited = rateLimited;
        this.queue = queue;
        this.support = support;
        this.scripts = scripts;
        this.partitions = partitions;
        this.signals = signals;
        this.ticker = ticker;
        this.recheckMillis = recheckInterval.toMillis();
        this.where = where;
    }

    /**
     * Polls the partitions until something is taken or {@code wait} passed.
     *
     * @param max 0: one message through the group commit; else up to max, in calls of this poll's own
     * @return what was taken, empty if nothing was due within the wait or the queue closed
     */
    List<Delivery<V>> poll(Duration wait, int max) throws InterruptedException {
        List<Delivery<V>> out = new ArrayList<>(max == 0 ? 1 : Math.min(max, 64));
        long deadline = ticker.read() + Nanos.waitOf(wait);
        long unreachableSince = 0;
        boolean unreachable = false;
        boolean held = false; // the rate limit kept this poll from due messages: counted once
        while (true) {
            long nextEventMs = -1;
            boolean answered = false;
            RedisQueueException failure = null;
            int start = max == 0 ? partitions.nextStart() : partitions.nextBatchStart();
            for (int i = 0; i < partitions.count(); i++) {
                if (queue.isClosed()) {
                    return out;
                }
                int p = (start + i) % partitions.count();
                if (partitions.isDown(p)) {
                    continue; // failed a moment ago: probed again after PROBE_INTERVAL, the others go on
                }
                long emptyMs = partitions.emptyForMs(p);
                if (emptyMs > 0) {
                    // Nothing due there a moment ago: costs no round trip until then (or a wake-up). It answered,
                    // so another master being down does not make this poll fail.
                    answered = true;
                    nextEventMs = earliest(nextEventMs, emptyMs);
                    continue;
                }
                long next;
                try {
                    if (rateLimited) {
                        int n = max == 0 ? 1 : max - out.size();
                        long sent = System.nanoTime();
                        ScriptReplies.Polled r = scripts.pollLimited(p, n, held ? 0 : 1, !partitions.many());
                        held |= r.limited();
                        next = took(p, n, r, sent, out);
                    } else {
                        next = max == 0 ? pollOne(p, out) : pollMany(p, max - out.size(), out);
                    }
                } catch (RedisQueueException e) {
                    if (queue.isClosed() || !out.isEmpty()) {
                        // Closed meanwhile (its connection went away under this call), or what this batch already
                        // holds is in flight for the caller: hand it over rather than leave it to time out.
                        return out;
                    }
                    if (!partitions.many() || !ScriptRunner.isTransient(e)) {
                        throw e;
                    }
                    // One master of a Cluster down must not stop the partitions on the others.
                    partitions.markDown(p);
                    failure = e;
                    continue;
                } catch (RuntimeException e) {
                    if (queue.isClosed()) {
                        return out;
                    }
                    throw e;
                }
                answered = true;
                partitions.markUp(p);
                if (max == 0 ? !out.isEmpty() : out.size() == max) {
                    return out;
                }
                if (next >= 0) {
                    nextEventMs = earliest(nextEventMs, next);
                }
                partitions.polled(p, next);
            }
            if (!out.isEmpty()) {
                return out; // a batch poll took fewer than it may: it never waits to fill the batch
            }
            long now = ticker.read();
            if (answered) {
                unreachable = false;
            } else if (failure != null || unreachable) {
                // No partition answered: fail once that has lasted longer than retryOnConnectionLoss allows.
                if (!unreachable) {
                    unreachable = true;
                    unreachableSince = now;
                }
                if (failure != null && now - unreachableSince >= scripts.retryNanos()) {
                    throw failure;
                }
            }
            long remainingNanos = deadline - now;
            if (queue.isClosed() || remainingNanos <= 0) {
                return out;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("poll of queue '" + support.name() + "' interrupted");
            }
            long waitMs = Math.min(Partitions.ceilMillis(remainingNanos), recheckMillis);
            if (nextEventMs >= 0) {
                waitMs = Math.min(waitMs, nextEventMs);
            }
            waitMs = Math.max(1, Math.min(waitMs, partitions.untilProbeMs(now)));
            if (signals.await(waitMs)) {
                partitions.woken(); // someone made a message due: every partition may hold it
            }
        }
    }

    private static long earliest(long current, long ms) {
        return current < 0 || ms < current ? ms : current;
    }

    /**
     * Takes one message from partition p through its group commit.
     *
     * @return -1 or the ms until the partition's next event if it had nothing due; 0 once a delivery is in out
     */
    private long pollOne(int p, List<Delivery<V>> out) {
        while (true) {
            // Partitioned: one attempt, then the poll moves on (a down partition is retried on the next pass).
            long sent = System.nanoTime();
            ScriptReplies.Polled r = scripts.pollOne(p, !partitions.many());
            if (r.taken().isEmpty()) {
                reportLost(r.lost());
                return r.nextEventMs();
            }
            RedisDelivery<V> d = delivered(p, r, sent);
            if (d != null) {
                out.add(d);
                return 0;
            }
        }
    }

    /**
     * The delivery of a one-message share of a poll reply (a group commit's, see {@link QueueScripts#pollOne} and
     * {@link QueueScripts#ackPoll}): lost messages reported, a wake-up passed on, the message turned into a delivery.
     *
     * @param sent when the call was sent ({@link System#nanoTime}), before the script gave the message its lease
     * @return the delivery, or null if the share took nothing or its message was buried (see {@link #take})
     */
    RedisDelivery<V> delivered(int p, ScriptReplies.Polled r, long sent) {
        reportLost(r.lost());
        if (r.taken().isEmpty()) {
            return null;
        }
        if (r.mustSignal()) {
            signals.push();
        }
        return take(p, r.taken().get(0), sent);
    }

    /**
     * Takes up to {@code n} messages from partition p in one script call (no group commit), adding them to out.
     *
     * @return the ms until the partition's next event (-1: none) if it had fewer than n due; 0 if it may have more
     */
    private long pollMany(int p, int n, List<Delivery<V>> out) {
        // Partitioned: one attempt, then the poll moves on (a down partition is retried on the next pass).
        long sent = System.nanoTime();
        return took(p, n, scripts.pollMany(p, n, !partitions.many()), sent, out);
    }

    /**
     * Adds what a poll of up to n messages took to out.
     *
     * @return the ms until the partition's next event (-1: none) if it took fewer than n; 0 if it may have more
     */
    private long took(int p, int n, ScriptReplies.Polled r, long sent, List<Delivery<V>> out) {
        reportLost(r.lost());
        if (r.mustSignal()) {
            signals.push();
        }
        for (ScriptReplies.InFlight m : r.taken()) {
            RedisDelivery<V> d = take(p, m, sent);
            if (d != null) {
                out.add(d);
            }
        }
        return r.taken().size() < n ? r.nextEventMs() : 0L;
    }

    /**
     * Turns a message poll.lua put in flight into a delivery, or buries it with kill.lua: a member whose META value
     * carries another sequence is stale (its id was offered again after Redis evicted its state; kill.lua counts it
     * lost), and a payload the codec cannot decode is that message's problem, not the queue's (it dies with the
     * codec's error as its reason).
     *
     * @param sent when the poll was sent ({@link System#nanoTime}): the lease began later
     * @return the delivery, or null if the message was buried
     */
    private RedisDelivery<V> take(int p, ScriptReplies.InFlight m, long sent) {
        byte[] member = m.member();
        String id = new String(member, 16, member.length - 16, StandardCharsets.UTF_8);
        ScriptReplies.Taken t = ScriptReplies.Taken.parse(m.meta());
        long receipt = ScriptReplies.Taken.hex(member, 0, 16); // the member's own sequence: what kill.lua must find
        String reason;
        if (t.receipt() != receipt) {
            reason = "stale";
            LOG.log(System.Logger.Level.WARNING, () -> "queue '" + support.name() + "' on " + where
                    + ": message '" + id + "' was offered again after Redis evicted its state; its old entry was "
                    + "dropped (counted in stats().lost()); set maxmemory-policy noeviction to keep every message");
        } else {
            try {
                return new RedisDelivery<>(queue, p, id, support.decode(t.payload()), t.attempt(), receipt,
                        t.headers(), sent + support.options().visibilityTimeout().toNanos());
            } catch (CodecException e) {
                reason = e.getMessage();
            }
        }
        scripts.kill("poll", p, id, receipt, reason);
        return null;
    }

    /**
     * Logs the messages a poll says were lost: found with part of their state evicted by Redis, dropped and counted
     * (see {@link RedisQueueBuilder#allowEvictingServer()}). Rare, so each occurrence is a warning.
     */
    private void reportLost(long lost) {
        if (lost > 0) {
            LOG.log(System.Logger.Level.WARNING, () -> "queue '" + support.name() + "' on " + where + ": " + lost
                    + " message(s) found with part of their state evicted by Redis were dropped "
                    + "(counted in stats().lost()); set maxmemory-policy noeviction to keep every message");
        }
    }
}
