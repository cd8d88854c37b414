package io.clockwork.zookeeper;

import io.clockwork.time.Ticker;
import io.clockwork.engine.MpscInbox;
import io.clockwork.engine.WheelEntry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Elements in time-sorted, fixed-width expiry buckets, with the API and semantics of ZooKeeper's
 * {@code org.apache.zookeeper.server.ExpiryQueue}. Thread-safe.
 *
 * <p>An element updated at time {@code t} with timeout {@code timeout} expires at
 * {@code ((t + timeout) / interval + 1) * interval}; {@link #poll()} returns it once, at the first call at or after
 * that time. Times are the ticker's, in milliseconds ({@code floor(reading / 1,000,000)}, which on the system ticker
 * is ZooKeeper's {@code Time.currentElapsedTime()}), so the bucket boundaries are process-wide, as in ZooKeeper: an
 * element added just after the queue is created expires anywhere in {@code (timeout, timeout + interval]}. The
 * times stay continuous when the ticker wraps around. As in ZooKeeper, a polled element stays known to the queue (so
 * {@link #remove} still reports its expiry time) until it is removed or updated again, which re-tracks it.
 *
 * <h2>Design</h2>
 * Each element's state (its expiry time, whether it has expired, and a filing number) is one {@code long} stored
 * inline beside the element in a lock-free-read hash table ({@link KeyStateTable}), so an update that keeps the
 * element in its bucket is one lookup whose two loads (the key and the state) go to memory together, and an update
 * that moves it later is that plus a CAS on the state. No node per element, no bucket set to add to or remove from,
 * no lock shared with other updates.
 * <ul>
 *   <li><b>Lazy filing.</b> The poller keeps a ring of buckets ({@link KeyRing}) holding, for each element, one
 *       filing (the element and a tag) at a time no later than its expiry. A touch that moves the expiry later only
 *       CASes the state; when the poller meets the filing, it files it again at the current expiry. A touch that
 *       moves it <i>earlier</i>, and one that revives an expired element, take a new filing number in the same CAS
 *       and send a new filing to the poller through the engine's lock-free {@link MpscInbox}; the old filing, whose
 *       number no longer matches, is dropped when met. So each live element has one valid filing (two, rarely, when
 *       a new element moves earlier before the next poll: harmless, as expiry is a CAS). A filing travels with the
 *       expiry it was sent with, so the poller files it without a lookup. New elements send nothing: the table
 *       logs them, 4 bytes each, and the poller files them from the log.</li>
 *   <li><b>Storms are one pass.</b> When the filings due or waiting number at least half the elements, the poll
 *       drops the waiting ones unread and walks the table in memory order instead, expiring what is due and
 *       filing every other element afresh: 100,000 elements due at once cost one sequential pass, not 100,000
 *       lookups at random places.</li>
 *   <li><b>Expiry is a CAS</b> of the state from live to expired, so a concurrent update either keeps the element
 *       alive or fails and sees it expired.</li>
 *   <li><b>Removal</b> takes the element out of the table at once; its filing is dropped when met.</li>
 * </ul>
 * An element costs its table slots (16 bytes each, 1.33 to 8 per element) and a 12-byte filing in the ring, and no
 * object of its own (ZooKeeper's keeps a map node, a boxed {@code Long} and a set node per element). Unlike
 * ZooKeeper's:
 * <ul>
 *   <li>{@link #updateExpiry} and {@link #removeExpiry} return primitives, so the hot path allocates nothing;</li>
 *   <li>no empty bucket is ever kept, and the number of buckets is fixed whatever the timeouts (an element whose
 *       timeout spans more than {@value KeyRing#SLOTS} intervals is looked at once per {@value KeyRing#SLOTS});</li>
 *   <li>a caller late by several intervals gets every due element from one {@code poll()}, and then waits for the
 *       next boundary after now, instead of draining one (possibly empty) bucket per call;</li>
 *   <li>times are read from a {@link Ticker} ({@link #currentTime()} reads it) and round towards negative infinity,
 *       where ZooKeeper's division rounds a negative {@code nanoTime} towards zero;</li>
 *   <li>{@link #getExpiryMap()} is a sorted snapshot, not a live view.</li>
 * </ul>
 *
 * @param <E> the element type; elements are compared with {@code equals} and {@code hashCode}
 */
public final class ExpiryQueue<E> {

    /**
     * Returned by {@link #updateExpiry} when the expiry did not change, and by {@link #removeExpiry} when absent;
     * never a time, as times are the ticker's milliseconds and those stay far above it.
     */
    public static final long NONE = Long.MIN_VALUE;

    /** State bits: the expiry (or expired-at) time in milliseconds elapsed since the clock's origin. */
    private static final int TIME_BITS = 44;
    private static final long TIME_MASK = (1L << TIME_BITS) - 1;
    /** Then the filing number, which tells the valid filing of an element from stale ones. */
    private static final int FILING_BITS = 18;
    private static final int FILING_MASK = (1 << FILING_BITS) - 1;
    /** Then the expired flag; the sign bit stays clear, as {@link KeyStateTable} requires. */
    private static final long EXPIRED = 1L << 62;

    private final KeyStateTable elements = new KeyStateTable();
    private final IntervalClock clock;
    private final MpscInbox<Filing> inbox = MpscInbox.counting(Filing.SEQUENCER);
    private final ReentrantLock pollLock = new ReentrantLock();
    private final KeyRing ring = new KeyRing(); // guarded by pollLock
    private long reachedMs;                     // guarded by pollLock: every boundary up to it has been polled
    private long taken;                         // guarded by pollLock: filings taken from the inbox
    private volatile long expiredCount;         // written under pollLock: elements poll() has returned
    /** The share of elements with a due filing from which a poll re-files them all; see {@link #refileAll}. */
    private double stormShare = 0.5;            // guarded by pollLock

    /**
     * Creates a queue on the system ticker.
     *
     * @param expirationInterval the bucket width in milliseconds, at least 1
     * @throws IllegalArgumentException if {@code expirationInterval} is less than 1
     */
    public ExpiryQueue(int expirationInterval) {
        this(expirationInterval, Ticker.system());
    }

    /**
     * Creates a queue that reads time from the given ticker.
     *
     * @param expirationInterval the bucket width in milliseconds, at least 1
     * @param ticker             the time source
     * @throws IllegalArgumentException if {@code expirationInterval} is less than 1
     */
    public ExpiryQueue(int expirationInterval, Ticker ticker) {
        this.clock = new IntervalClock(expirationInterval, ticker);
    }

    /**
     * Adds the element or moves its expiry to {@code timeout} from now, rounded up to the next bucket boundary.
     *
     * @param elem    the element
     * @param timeout the timeout in milliseconds, at least 1
     * @return the new expiry time, or {@code null} if the element stays in the bucket it was in
     */
    public Long update(E elem, int timeout) {
        long expiry = updateExpiry(elem, timeout);
        return expiry == NONE ? null : expiry;
    }

    /**
     * Like {@link #update} without boxing.
     *
     * @param elem    the element
     * @param timeout the timeout in milliseconds, at least 1
     * @return the new expiry time, or {@link #NONE} if the element stays in the bucket it was in
     */
    public long updateExpiry(E elem, int timeout) {
        Objects.requireNonNull(elem, "elem");
        checkTimeout(timeout);
        long expiry = clock.expiryAfter(timeout);
        int hash = KeyStateTable.hash(elem);
        KeyStateTable.Slots a = elements.slots(hash);
        while (true) {
            int i = KeyStateTable.indexOf(a, elem, hash);
            if (i < 0) {
                // A random filing number, so that a filing left over from an earlier life of an equal element (removed
                // and added again) does not look valid; one that does by chance (1 in 2^18) is harmless: two valid
                // filings of one element cost a second look at it, and its expiry is a CAS that happens once.
                int filing = ThreadLocalRandom.current().nextInt() & FILING_MASK;
                if (elements.insert(elem, hash, live(filing, expiry))) {
                    return clock.timeAt(expiry); // the table logs it for the poller: see KeyStateTable.drainFresh
                }
                a = elements.slots(hash); // inserted meanwhile by another thread
                continue;
            }
            long s = KeyStateTable.state(a, i);
            if (s == KeyStateTable.MOVING) {
                a = elements.awaitRebuilt(a, hash);
                continue;
            }
            if (s == KeyStateTable.REMOVED) {
                continue; // removed meanwhile: look again, and add it afresh
            }
            boolean isLive = (s & EXPIRED) == 0;
            long current = s & TIME_MASK;
            if (isLive && current == expiry) {
                return NONE;
            }
            if (isLive && expiry > current) {
                if (KeyStateTable.cas(a, i, s, (s & ~TIME_MASK) | expiry)) {
                    // Its filing stays where it is, and is moved when the poller meets it.
                    return clock.timeAt(expiry);
                }
                continue;
            }
            // Moved earlier than its filing, or revived after expiring: a new filing with a new number.
            int filing = (filingOf(s) + 1) & FILING_MASK;
            if (KeyStateTable.cas(a, i, s, live(filing, expiry))) {
                inbox.offer(new Filing(elem, tag(hash, filing), expiry));
                return clock.timeAt(expiry);
            }
        }
    }

    /**
     * Removes the element.
     *
     * @param elem the element
     * @return the time at which it was set to expire, or {@code null} if it was not present
     */
    public Long remove(E elem) {
        long expiry = removeExpiry(elem);
        return expiry == NONE ? null : expiry;
    }

    /**
     * Like {@link #remove} without boxing.
     *
     * @param elem the element
     * @return the time at which it was set to expire, or {@link #NONE} if it was not present
     */
    public long removeExpiry(E elem) {
        Objects.requireNonNull(elem, "elem");
        long s = elements.remove(elem, KeyStateTable.hash(elem));
        return s == KeyStateTable.REMOVED ? NONE : clock.timeAt(s & TIME_MASK);
    }

    /**
     * Returns how long until the next bucket boundary.
     *
     * @return milliseconds until the next expiration time, or 0 if it has already passed
     */
    public long getWaitTime() {
        return clock.waitTimeMillis();
    }

    /**
     * Counts the elements tracked, for metrics. Any thread.
     *
     * @return elements updated and not removed; as in ZooKeeper, an expired element counts until it is removed
     */
    public int size() {
        return elements.size();
    }

    /**
     * Counts the expirations, for metrics. Any thread.
     *
     * @return elements {@link #poll()} has returned since the queue was created
     */
    public long expiredCount() {
        return expiredCount;
    }

    /**
     * Returns the elements that have expired since the last poll, each once. A caller late by several intervals
     * gets all of them in one set.
     *
     * @return the expired elements (a new set the caller owns), or an empty set if the next boundary is not due
     */
    public Set<E> poll() {
        pollLock.lock();
        try {
            long nowMs = clock.nowMillis();
            if (nowMs < clock.nextExpirationTime()) {
                return Collections.emptySet();
            }
            List<Object> expired = new ArrayList<>();
            long interval = clock.intervalMillis();
            long last = nowMs - nowMs % interval;
            int boundaries = (int) Math.min(KeyRing.SLOTS, (last - reachedMs) / interval);
            int first = KeyRing.slotOf(reachedMs + interval, interval);
            // As if every waiting filing and every new element were due:
            long due = Math.max(0L, inbox.offeredCount() - taken) + elements.freshCount();
            for (int n = 0; n < boundaries; n++) {
                due += ring.size((first + n) & (KeyRing.SLOTS - 1));
            }
            if (due > 0 && due >= elements.size() * stormShare) {
                taken += inbox.discard(); // refileAll finds what they carried, and every new element, in the table
                refileAll(nowMs, expired);
            } else {
                // A filing goes to the slot of the expiry it was sent with: no lookup, as that is no later than the
                // element's expiry now (a touch that moves it earlier sends a new filing). Due ones are expired here
                // rather than filed and met again at once.
                taken += inbox.drain(f -> fileArrival(f.key, f.tag, f.expiry, nowMs));
                elements.drainFresh((a, i, key, hash) -> {
                    long s = KeyStateTable.state(a, i);
                    if ((s & EXPIRED) == 0) { // a new element gets the filing its number says it has
                        fileArrival(key, tag(hash, filingOf(s)), s & TIME_MASK, nowMs);
                    }
                });
                ring.sort(KeyRing.ARRIVALS, sorter(KeyRing.ARRIVALS, nowMs, expired));
                for (int n = 0; n < boundaries; n++) {
                    int slot = (first + n) & (KeyRing.SLOTS - 1);
                    ring.sort(slot, sorter(slot, nowMs, expired));
                }
            }
            reachedMs = last;
            clock.reached(nowMs);
            if (expired.isEmpty()) {
                return Collections.emptySet();
            }
            expiredCount += expired.size(); // one writer: pollLock
            return new PolledSet<>(expired.toArray());
        } finally {
            pollLock.unlock();
        }
    }

    /** Files an arriving filing in the slot of its expiry, or with the due arrivals. Poller only. */
    private void fileArrival(Object key, long tag, long expiry, long nowMs) {
        ring.add(expiry > nowMs ? KeyRing.slotOf(expiry, clock.intervalMillis()) : KeyRing.ARRIVALS, key, tag);
    }

    /**
     * What to do with the filings met in a ring slot (or arriving due): expire the due ones, drop stale ones, keep the
     * ones due in a later lap of this slot and move the others to their slot. Poller only.
     */
    private KeyRing.Sorter sorter(int slot, long nowMs, List<Object> expired) {
        return (key, tag) -> {
            long expiry = check(key, tag, nowMs, expired);
            if (expiry <= 0) {
                return false;
            }
            int target = KeyRing.slotOf(expiry, clock.intervalMillis());
            if (target == slot) {
                return true; // due in a later lap of the ring
            }
            ring.add(target, key, tag);
            return false;
        };
    }

    /**
     * Expires every due element and files every other one afresh, in one pass over the table instead of one lookup
     * per filing, after the caller dropped the filings waiting in the inbox unread. Each filing costs a lookup at a
     * random place of a table larger than the caches; when filings due or waiting number at least half the elements
     * (an expiry storm: a network partition drops every client at once), reading the table in memory order is
     * cheaper. Every element gets a new filing number, so every filing sent before is stale. Nothing is lost to a
     * racing update: an element is in the table before its filing is sent, and its state is set before it is.
     * Poller only.
     */
    private void refileAll(long nowMs, List<Object> expired) {
        ring.clear();
        long interval = clock.intervalMillis();
        elements.scan((a, i, key, hash) -> {
            while (true) {
                long s = KeyStateTable.state(a, i);
                if ((s & EXPIRED) != 0) {
                    return; // expired before, and not revived: it has no valid filing
                }
                long expiry = s & TIME_MASK;
                if (expiry <= nowMs) {
                    if (KeyStateTable.cas(a, i, s, s | EXPIRED)) {
                        expired.add(key);
                        return;
                    }
                } else {
                    int filing = (filingOf(s) + 1) & FILING_MASK;
                    if (KeyStateTable.cas(a, i, s, live(filing, expiry))) {
                        ring.add(KeyRing.slotOf(expiry, interval), key, tag(hash, filing));
                        return;
                    }
                }
            }
        }, true);
    }

    /**
     * Checks a filing against its element's state: expires the element if the filing is its valid one and it is due.
     *
     * @return the element's expiry time if the filing is valid and not due, else 0 (expired now, or stale)
     */
    private long check(Object key, long tag, long nowMs, List<Object> expired) {
        int hash = (int) (tag >>> 32);
        int filing = (int) tag;
        KeyStateTable.Slots a = elements.slots(hash);
        while (true) {
            int i = KeyStateTable.indexOf(a, key, hash);
            if (i < 0) {
                return 0L; // removed
            }
            long s = KeyStateTable.state(a, i);
            if (s == KeyStateTable.MOVING) {
                a = elements.awaitRebuilt(a, hash);
                continue;
            }
            if (s == KeyStateTable.REMOVED) {
                continue;
            }
            if ((s & EXPIRED) != 0 || filingOf(s) != filing) {
                return 0L; // a stale filing: the element expired, or was filed again
            }
            long expiry = s & TIME_MASK;
            if (expiry > nowMs) {
                return expiry;
            }
            if (KeyStateTable.cas(a, i, s, s | EXPIRED)) {
                expired.add(key);
                return 0L;
            }
        }
    }

    /**
     * Sets the share of elements with a due filing from which a poll re-files them all instead of looking at each
     * filing: 0 to re-file on every poll, infinity never to. For tests of both paths.
     */
    void stormShare(double share) {
        pollLock.lock();
        try {
            stormShare = share;
        } finally {
            pollLock.unlock();
        }
    }

    /** @return the filings in the poller's ring, stale ones included; for tests */
    long filings() {
        pollLock.lock();
        try {
            return ring.size();
        } finally {
            pollLock.unlock();
        }
    }

    private static long tag(int hash, int filing) {
        return ((long) hash << 32) | filing;
    }

    /** The state of a live element with this filing number and expiry. */
    private static long live(int filing, long expiry) {
        return ((long) filing << TIME_BITS) | expiry;
    }

    private static int filingOf(long state) {
        return (int) (state >>> TIME_BITS) & FILING_MASK;
    }

    /**
     * Returns the current time in the unit expiry times are expressed in.
     *
     * @return the ticker's time in milliseconds
     */
    public long currentTime() {
        return clock.currentTime();
    }

    /**
     * Returns a snapshot of expiry time to the elements due then, sorted by time; elements already polled are not
     * in it. O(n): for diagnostics.
     *
     * @return an unmodifiable snapshot
     */
    public Map<Long, Set<E>> getExpiryMap() {
        Map<Long, Set<E>> map = new TreeMap<>();
        elements.forEach((key, state) -> {
            if ((state & EXPIRED) == 0) {
                @SuppressWarnings("unchecked")
                E elem = (E) key;
                map.computeIfAbsent(clock.timeAt(state & TIME_MASK), t -> new HashSet<>()).add(elem);
            }
        });
        return Collections.unmodifiableMap(map);
    }

    /**
     * Prints the buckets and their elements in ZooKeeper's format, with times as milliseconds (ZooKeeper prints dates).
     *
     * @param pwriter where to print
     */
    public void dump(PrintWriter pwriter) {
        Objects.requireNonNull(pwriter, "pwriter");
        dump(pwriter, getExpiryMap(), elements.size());
    }

    static <X> void dump(PrintWriter pwriter, Map<Long, Set<X>> buckets, int elementCount) {
        pwriter.print("Sets (");
        pwriter.print(buckets.size());
        pwriter.print(")/(");
        pwriter.print(elementCount);
        pwriter.println("):");
        for (Map.Entry<Long, Set<X>> bucket : buckets.entrySet()) {
            pwriter.print(bucket.getValue().size());
            pwriter.print(" expire at ");
            pwriter.print(bucket.getKey());
            pwriter.println(" ms:");
            for (X elem : bucket.getValue()) {
                pwriter.print("\t");
                pwriter.println(elem);
            }
        }
    }

    static void checkTimeout(int timeout) {
        if (timeout < 1) {
            throw new IllegalArgumentException("timeout must be at least 1 ms, was " + timeout);
        }
    }

    @Override
    public String toString() {
        return "ExpiryQueue[interval=" + clock.intervalMillis() + "ms, elements=" + elements.size() + "]";
    }

    /** A filing on its way to the poller, with the expiry its element had when it was sent; garbage once filed. */
    private static final class Filing extends WheelEntry {
        /** The inbox counts filings in their {@link #seq}, so a poll knows how many wait without taking them. */
        static final MpscInbox.Sequencer<Filing> SEQUENCER = new MpscInbox.Sequencer<>() {
            @Override
            public int sequence(Filing f) {
                return f.seq;
            }

            @Override
            public void sequence(Filing f, int sequence) {
                f.seq = sequence;
            }
        };

        final Object key;
        final long tag;
        final long expiry;
        int seq;

        Filing(Object key, long tag, long expiry) {
            this.key = key;
            this.tag = tag;
            this.expiry = expiry;
        }
    }
}
