package io.clockwork.inprocess;

import io.clockwork.engine.MpscInbox;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * What producers hand to the holder of an {@link InMemoryDelayedQueue}'s lock when they find it taken: messages
 * offered and registered without the lock, to file, and messages cancelled without it, to unlink. Thread-safe for
 * {@link #offer}, {@link #cancel} and {@link #hasOffers}; the rest belongs to the lock holder.
 *
 * <p>Offers travel through a lock-free inbox ({@link MpscInbox}, one stripe, so messages are filed in the order their
 * offers took effect, and a batch in one step); cancels through a queue of their own. {@link #takeIn} files and
 * unlinks at most a given number of each, oldest first: offers taken from the inbox beyond that wait in a queue of
 * their own, filed before anything the inbox still holds.
 */
final class HandOvers {

    /** Messages offered without the lock, in the order their offers took effect. */
    private final MpscInbox<Item> offers = new MpscInbox<>(1);
    /** Messages cancelled without the lock (their claim already ended). */
    private final ConcurrentLinkedQueue<Item> cancels = new ConcurrentLinkedQueue<>();
    /** Offers taken from the inbox but not yet filed, in the order their offers took effect. Lock holder only. */
    private final ArrayDeque<Item> taken = new ArrayDeque<>();
    private final Consumer<Item> keep = taken::add;
    private final Consumer<Item> file = this::file;
    private final QueueStore store;
    /** The reading of the current {@link #takeIn}, for {@link #file}. */
    private long fileNow;

    HandOvers(QueueStore store) {
        this.store = store;
    }

    /** Hands over a message registered without the lock. Any thread; a CAS, so a full fence. */
    void offer(Item m) {
        offers.offer(m);
    }

    /** Hands over the first {@code count} of {@code items} in one step. Any thread; a CAS, so a full fence. */
    void offerAll(Item[] items, int count) {
        offers.offerAll(items, count);
    }

    /** @return whether the inbox holds offers; any thread (a sleeping poll's look after publishing itself) */
    boolean hasOffers() {
        return !offers.isEmpty();
    }

    /** Hands over a message cancelled without the lock (claim ended, id freed). Any thread. */
    void cancel(Item m) {
        cancels.add(m);
    }

    /** @return whether offers wait, taken from the inbox but not filed; lock holder only */
    boolean hasTaken() {
        return !taken.isEmpty();
    }

    /** Puts a message behind the offers taken but not filed, so that it is filed after them. Lock holder only. */
    void queueBehind(Item m) {
        taken.add(m);
    }

    /**
     * Files the offers and unlinks the cancels that producers handed over, at most {@code limit} of each, oldest
     * first. Lock holder only.
     */
    void takeIn(long now, int limit) {
        if (!offers.isEmpty()) {
            if (taken.isEmpty() && limit == Integer.MAX_VALUE) {
                fileNow = now;
                offers.drain(file);
            } else {
                offers.drain(keep);
            }
        }
        for (int n = 0; n < limit && !taken.isEmpty(); n++) {
            store.offer(taken.poll(), now);
        }
        Item m;
        for (int n = 0; n < limit && (m = cancels.poll()) != null; n++) {
            store.cancel(m);
        }
    }

    /** The inbox drain's sink: files a message offered without the lock, unless it was cancelled meanwhile. */
    private void file(Item m) {
        store.offer(m, fileNow);
    }
}
