package io.clockwork.inprocess;

import io.clockwork.engine.NodeTable;

import java.util.Map;

/**
 * The in-process queue's identity: its messages by id, in an intrusive hash table (the item is its own node, with its
 * hash and bucket link), so an id costs no map node beside the item. Thread-safe: offers register and cancels remove
 * without the queue's lock (the table's stripe locks order them), everything else writes under it. An item is removed
 * once, when the queue forgets it, and never inserted again.
 */
final class ItemsById extends NodeTable<Item> {

    private final GeneratedIds generatedIds = new GeneratedIds();

    /** @return the item of this id, live, leaving or dead; null if none */
    Item find(String id) {
        return get(id, NodeTable.hash(id.hashCode()));
    }

    /**
     * The live message of an id. A message whose life ended but whose id is not yet freed (an ack or cancel on its
     * way) has its id freed here, so that no caller sees that moment. Any thread.
     *
     * @return the delayed, ready or in-flight message of this id (or one being offered), null if none
     */
    Item findLive(String id) {
        while (true) {
            Item m = find(id);
            if (m == null) {
                return null;
            }
            int claim = m.claim();
            if (claim == Item.LIVE) {
                return m;
            }
            if (claim == Item.BURIED) {
                return null;
            }
            remove(m);
        }
    }

    /**
     * The first half of a cancel, which needs no lock: ends the live message's claim ({@link Item#end}, so that of an
     * ack, a kill and this cancel exactly one wins) and frees its id. The second half is the store's
     * {@link QueueStore#cancel}, which unlinks it. Any thread.
     *
     * @return the message this call ended, null if the id has no live message
     */
    Item cancel(String id) {
        while (true) {
            Item m = findLive(id);
            if (m == null) {
                return null;
            }
            if (m.end(Item.LEAVING)) {
                remove(m);
                return m;
            }
            // it ended meanwhile (acked, dead or cancelled by someone else): look again
        }
    }

    /**
     * Registers a new message under its id, so that it is known to every id operation from now on; it is filed
     * separately ({@link QueueStore#offer(Item, long)}). Any thread.
     *
     * @param id  the caller's id, or null for a generated one
     * @param due its due time in wheel time
     * @return the message, or null if the id is taken
     */
    Item register(String id, Object payload, Map<String, String> headers, long due) {
        boolean generated = id == null;
        while (true) {
            // A caller's own id may look like a generated one; skip those instead of failing the offer.
            Item m = new Item(generated ? generatedIds.next() : id, payload, headers);
            m.due = due;
            Item holder = putIfAbsent(m);
            if (holder == null) {
                return m;
            }
            if (holder.claim() == Item.LEAVING) {
                remove(holder); // acked or cancelled, its id not yet freed: free it and try again
            } else if (!generated) {
                return null;
            }
        }
    }

    @Override
    protected int hashOf(Item m) {
        return m.hash;
    }

    @Override
    protected Item chainOf(Item m) {
        return (Item) Item.CHAIN.getAcquire(m);
    }

    @Override
    protected void chain(Item m, Item next) {
        Item.CHAIN.setRelease(m, next);
    }

    @Override
    protected boolean hasKey(Item m, Object key) {
        return m.id.equals(key);
    }

    @Override
    protected boolean sameKey(Item m, Item other) {
        return m.id.equals(other.id);
    }
}
