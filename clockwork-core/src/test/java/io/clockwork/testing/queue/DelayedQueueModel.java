package io.clockwork.testing.queue;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Offered;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The reference model of a {@link DelayedQueue}: what the contract says each call does, in the plainest code that
 * says it (a map of id to message, and full scans). Not thread-safe: owned by one property run. Public for the
 * backends' own model checks of their stores (the in-process {@code QueueStoreProperties}).
 *
 * <p>Time is a {@code long} of milliseconds that moves only through {@link #advance(long)}: in-process the queue's
 * {@code ManualTicker} moves with it; on Redis it never moves, and the tests use only delays that are due at once or
 * an hour away, and visibility timeouts that do not pass during a test, so that the server's clock never matters.
 * A delivery is named by a token: the model's count of deliveries when it was made.
 */
public final class DelayedQueueModel {

    /** Where a message is. */
    public enum State { DELAYED, READY, IN_FLIGHT, DEAD }

    /** One message the queue holds. */
    public static final class Message {
        public final String id;
        public String value;
        /** Its headers: those of the offer that added or last replaced it. */
        public Map<String, String> headers = Map.of();
        public State state;
        /** When it is (or was) due, and its place among messages due at the same time. */
        long due;
        long sequence;
        public int attempts;
        /** The delivery that may still ack or nack it; 0 if none. */
        public long token;
        /** When its visibility timeout passes, while in flight. */
        long visibleAgainAt;
        /** When its lease was last set (a poll or an extend), in the order of such calls. */
        long leaseOrder;

        Message(String id, String value) {
            this.id = id;
            this.value = value;
        }

        @Override
        public String toString() {
            return id + "=" + value + "[" + state + ", due " + due + ", attempts " + attempts + "]";
        }
    }

    private static final Comparator<Message> DELIVERY_ORDER =
            Comparator.<Message>comparingLong(m -> m.due).thenComparingLong(m -> m.sequence);

    private final long visibilityTimeoutMs;
    private final int maxAttempts;
    private final Map<String, Message> byId = new HashMap<>();
    /** Dead letters, oldest death first. */
    private final List<Message> dead = new ArrayList<>();
    /** Every id ever offered, in first-offer order: the ids the actions address. */
    private final Set<String> everOffered = new LinkedHashSet<>();
    private long now;
    private long sequence;
    private long tokens;
    private long leases;

    /**
     * @param visibilityTimeoutMs how long a delivery holds its message
     * @param maxAttempts         the deliveries a message gets before it dies
     */
    public DelayedQueueModel(long visibilityTimeoutMs, int maxAttempts) {
        this.visibilityTimeoutMs = visibilityTimeoutMs;
        this.maxAttempts = maxAttempts;
    }

    /** Adds a message under an id the queue generated (so never pending). */
    public void offerGenerated(String id, String value, long delayMs) {
        if (byId.containsKey(id)) {
            throw new AssertionError("the queue generated id " + id + ", which is still pending");
        }
        add(id, value, delayMs);
    }

    /** @return true if added; false if the id is delayed, ready, in flight or dead */
    public boolean offer(String id, String value, long delayMs) {
        if (byId.containsKey(id)) {
            return false;
        }
        add(id, value, delayMs);
        return true;
    }

    /**
     * Offers a message with a caller's id under a conflict policy.
     *
     * @return what happened, as {@link DelayedQueue#offer(io.clockwork.queue.Message)} says
     */
    public Offered.Outcome offer(String id, String value, Map<String, String> headers, long delayMs,
                          io.clockwork.queue.Message.Conflict policy) {
        Message m = byId.get(id);
        if (m == null) {
            add(id, value, delayMs);
            byId.get(id).headers = headers;
            return Offered.Outcome.ADDED;
        }
        if (policy == io.clockwork.queue.Message.Conflict.KEEP) {
            return Offered.Outcome.KEPT;
        }
        if (m.state == State.IN_FLIGHT || m.state == State.DEAD) {
            return m.state == State.DEAD ? Offered.Outcome.DEAD : Offered.Outcome.IN_FLIGHT;
        }
        m.token = 0; // as for reschedule
        if (policy == io.clockwork.queue.Message.Conflict.REPLACE) {
            m.value = value;
            m.headers = headers;
        }
        schedule(m, delayMs);
        return policy == io.clockwork.queue.Message.Conflict.REPLACE ? Offered.Outcome.REPLACED
                : Offered.Outcome.EXTENDED;
    }

    private void add(String id, String value, long delayMs) {
        Message m = new Message(id, value);
        byId.put(id, m);
        everOffered.add(id);
        schedule(m, delayMs);
    }

    private void schedule(Message m, long delayMs) {
        m.due = now + Math.max(0L, delayMs);
        m.sequence = ++sequence;
        m.state = m.due <= now ? State.READY : State.DELAYED;
    }

    /** @return true if a delayed, ready or in-flight message was removed */
    public boolean cancel(String id) {
        Message m = byId.get(id);
        if (m == null || m.state == State.DEAD) {
            return false;
        }
        byId.remove(id);
        return true;
    }

    /** @return true if a delayed or ready message got a new due time */
    public boolean reschedule(String id, long delayMs) {
        Message m = byId.get(id);
        if (m == null || (m.state != State.DELAYED && m.state != State.READY)) {
            return false;
        }
        m.token = 0; // an earlier delivery whose visibility timeout passed no longer holds it
        schedule(m, delayMs);
        return true;
    }

    /**
     * Takes up to {@code max} ready messages, by due time and then offer order.
     *
     * @return the taken messages, each stamped with its new delivery's token
     */
    public List<Message> poll(int max) {
        List<Message> taken = byId.values().stream().filter(m -> m.state == State.READY).sorted(DELIVERY_ORDER)
                .limit(max).toList();
        for (Message m : taken) {
            m.state = State.IN_FLIGHT;
            m.attempts++;
            m.token = ++tokens;
            m.visibleAgainAt = now + visibilityTimeoutMs;
            m.leaseOrder = ++leases;
        }
        return taken;
    }

    /** @return true if the delivery still held its message, which is now gone */
    public boolean ack(String id, long token) {
        Message m = holder(id, token);
        if (m == null) {
            return false;
        }
        byId.remove(id);
        return true;
    }

    /** @return true if the delivery still held its message, which is now due again after the delay, or dead */
    public boolean nack(String id, long token, long retryDelayMs) {
        Message m = holder(id, token);
        if (m == null) {
            return false;
        }
        m.token = 0;
        if (m.attempts >= maxAttempts) {
            kill(m);
        } else {
            schedule(m, retryDelayMs);
        }
        return true;
    }

    /** @return true if the delivery still held its message, which is now ready again with its attempts unchanged */
    public boolean release(String id, long token) {
        Message m = holder(id, token);
        if (m == null) {
            return false;
        }
        m.token = 0;
        m.attempts--;
        schedule(m, 0L);
        return true;
    }

    /** @return true if the delivery still held its message, which is now dead */
    public boolean deadLetter(String id, long token) {
        Message m = holder(id, token);
        if (m == null) {
            return false;
        }
        kill(m);
        return true;
    }

    /** @return true if the delivery still held its message, which is now in flight until now + visibility */
    public boolean extend(String id, long token, long visibilityMs) {
        Message m = holder(id, token);
        if (m == null) {
            return false;
        }
        m.state = State.IN_FLIGHT;
        m.visibleAgainAt = now + visibilityMs;
        m.leaseOrder = ++leases;
        return true;
    }

    /** The message a delivery still holds: in flight for it, or timed out and not yet taken by anyone else. */
    private Message holder(String id, long token) {
        Message m = byId.get(id);
        boolean holds = m != null && m.token == token && (m.state == State.IN_FLIGHT || m.state == State.READY);
        return holds ? m : null;
    }

    private void kill(Message m) {
        m.state = State.DEAD;
        m.token = 0;
        dead.add(m);
    }

    /**
     * Lets time pass: delayed messages that fall due become ready (keeping their place), and in-flight messages
     * whose visibility timeout passes become ready again behind what is already ready, or dead after their last
     * attempt; those that time out together do so in the order their leases were set (delivered or extended).
     */
    public void advance(long ms) {
        now += ms;
        for (Message m : byId.values()) {
            if (m.state == State.DELAYED && m.due <= now) {
                m.state = State.READY;
            }
        }
        List<Message> timedOut = byId.values().stream()
                .filter(m -> m.state == State.IN_FLIGHT && m.visibleAgainAt <= now)
                .sorted(Comparator.<Message>comparingLong(m -> m.visibleAgainAt).thenComparingLong(m -> m.leaseOrder))
                .toList();
        for (Message m : timedOut) {
            if (m.attempts >= maxAttempts) {
                kill(m);
            } else {
                m.state = State.READY;
                m.due = m.visibleAgainAt;
                m.sequence = ++sequence;
            }
        }
    }

    /** @return true if a dead letter of this id is now due at once, its attempts reset */
    public boolean deadRequeue(String id) {
        Message m = byId.get(id);
        if (m == null || m.state != State.DEAD) {
            return false;
        }
        dead.remove(m);
        m.attempts = 0;
        schedule(m, 0L);
        return true;
    }

    /** @return how many dead letters were deleted: all of them, their ids free again */
    public long deadPurge() {
        long purged = dead.size();
        dead.forEach(m -> byId.remove(m.id));
        dead.clear();
        return purged;
    }

    /** @return how many messages are in this state */
    public long count(State state) {
        return byId.values().stream().filter(m -> m.state == state).count();
    }

    /** @return milliseconds until the earliest delayed message is due; empty if none is delayed */
    public Optional<Long> nextDueInMs() {
        return byId.values().stream().filter(m -> m.state == State.DELAYED).map(m -> m.due - now)
                .min(Long::compare);
    }

    public List<Message> deadLetters() {
        return List.copyOf(dead);
    }

    /** Every id ever offered, held or not, in first-offer order. */
    public List<String> everOffered() {
        return new ArrayList<>(everOffered);
    }

    @Override
    public String toString() {
        return "model at " + now + " ms: " + byId.values();
    }
}
