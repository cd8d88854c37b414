package io.clockwork.inprocess;

import io.clockwork.engine.NodeTable;
import io.clockwork.engine.WheelEntry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;

/**
 * A message of the in-process queue: its own wheel entry (for its due time while delayed and its visibility deadline
 * in flight) and its own node in the id table ({@link ItemsById}). Not thread-safe, but for its claim word: every
 * field belongs to the owner of the {@link QueueStore}, except {@link #claim()}, which a cancel without the lock
 * changes with one CAS.
 */
final class Item extends WheelEntry {

    /** {@link #claim()}: delayed, ready or in flight (or new). */
    static final int LIVE = 0;
    /** {@link #claim()}: acked or cancelled; its id is freed by whoever ended it, or helped by whoever meets it. */
    static final int LEAVING = 1;
    /** {@link #claim()}: a dead letter; it keeps its id until purged, trimmed or requeued (back to live). */
    static final int BURIED = 2;
    private static final VarHandle CLAIM;
    static final VarHandle CHAIN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CLAIM = lookup.findVarHandle(Item.class, "claim", int.class);
            CHAIN = lookup.findVarHandle(Item.class, "chain", Item.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final String id;
    /** The value itself without a codec, its encoded bytes with one; replaced by a REPLACE offer. */
    Object payload;
    /** Its headers, unmodifiable; replaced by a REPLACE offer. */
    Map<String, String> headers;
    /** A {@link State} constant. */
    byte state = State.NEW;
    /** {@link #LIVE}, {@link #LEAVING} or {@link #BURIED}, through {@link #CLAIM}. */
    @SuppressWarnings("unused")
    private int claim;
    /**
     * While delayed or ready: its due time in wheel time, the key of the ordered sets (fixed while it is in one of
     * them). While dead: when it died, a ticker reading, for the retention. (One field for both saves 8 bytes a
     * message.)
     */
    long due;
    long sequence;
    int attempts;
    /**
     * Its priority while filed (delayed, ready or in flight), read from its headers ({@link FlowGate#resolve});
     * {@link FlowGate#UNRESOLVED} before and after. Its group is looked up from its headers when needed
     * ({@link FlowGate#groupOf}): a field for it would cost every message 8 bytes.
     */
    short priority = FlowGate.UNRESOLVED;
    /** The delivery that may still ack or nack this message; 0 if none. */
    long token;
    /**
     * While live: the last error a consumer recorded with a nack, reported as the reason if it dies of its attempts;
     * null if none. While dead: why it died.
     */
    String error;
    /** {@link NodeTable#hash(int)} of the id's hash code, for {@link ItemsById}. */
    final int hash;
    /** The next item of its bucket in {@link ItemsById}, through {@link #CHAIN}. */
    @SuppressWarnings("unused")
    private Item chain;

    Item(String id, Object payload, Map<String, String> headers) {
        this.id = id;
        this.hash = NodeTable.hash(id.hashCode());
        this.payload = payload;
        this.headers = headers;
    }

    /** @return {@link #LIVE}, {@link #LEAVING} or {@link #BURIED}, read with volatile semantics; any thread */
    int claim() {
        return (int) CLAIM.getVolatile(this);
    }

    /** @return whether the claim is {@link #LIVE}; any thread */
    boolean isLive() {
        return claim() == LIVE;
    }

    /**
     * Ends a live message's life, if nobody else did first: one CAS of its claim word, so that of an ack, a kill and
     * a cancel racing (the cancel possibly without the lock) exactly one wins. Any thread.
     *
     * @param to {@link #LEAVING} (acked or cancelled: its id is to be freed) or {@link #BURIED} (a dead letter)
     * @return whether this call ended it
     */
    boolean end(int to) {
        return CLAIM.compareAndSet(this, LIVE, to);
    }

    /** Makes a dead letter live again. The store's owner only: no one else writes a buried claim. */
    void revive() {
        CLAIM.setVolatile(this, LIVE);
    }

    @Override
    public String toString() {
        return "Item[" + id + ", " + State.name(state) + "]";
    }
}
