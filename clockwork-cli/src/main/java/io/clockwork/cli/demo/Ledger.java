package io.clockwork.cli.demo;

import io.clockwork.queue.QueueStats;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The producer's books: what happened to each order of one demo run, by order number, so that "lost" is counted by
 * reconciling ids rather than assumed from totals. Thread-safe.
 *
 * <p>Each order ends exactly one way: cancelled (the payment's {@code cancel} returned true) or delivered (a worker's
 * {@code ack} returned true). An order with neither is unsettled: not delivered yet while the queue still holds it,
 * lost only when it does not (see {@link Reconciliation#outcome}). One with both would mean the queue broke its
 * contract, and is reported as "both".
 */
final class Ledger {

    private static final int SCHEDULED = 1;
    private static final int CANCELLED = 2;
    private static final int DELIVERED = 4;

    private final String runId;
    private final AtomicIntegerArray states;
    private final LongAdder scheduled = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder duplicateReceipts = new LongAdder();
    private final LongAdder foreign = new LongAdder();
    private final LongAdder latePayments = new LongAdder();
    private final Lateness lateness = new Lateness();

    /**
     * @param runId  prefix of this run's order ids, so ids of other runs on a shared Redis never count
     * @param orders how many orders the run has
     */
    Ledger(String runId, int orders) {
        this.runId = runId;
        this.states = new AtomicIntegerArray(orders);
    }

    /** @return the run's id */
    String runId() {
        return runId;
    }

    /** @return the number of orders */
    int orders() {
        return states.length();
    }

    /**
     * @param order an order number
     * @return its message id
     */
    String id(int order) {
        return runId + "-" + order;
    }

    /**
     * @param runId an id's run prefix
     * @param id    a message id
     * @return the order number, or -1 if the id is not of that run
     */
    static int orderOf(String runId, String id) {
        int dash = id.lastIndexOf('-');
        if (dash != runId.length() || !id.startsWith(runId)) {
            return -1;
        }
        try {
            return Integer.parseInt(id, dash + 1, id.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** @param order an order just offered */
    void scheduled(int order) {
        set(order, SCHEDULED);
        scheduled.increment();
    }

    /** @param order an order whose payment cancelled its deadline */
    void cancelled(int order) {
        if (set(order, CANCELLED)) {
            cancelled.increment();
        }
    }

    /** Counts a payment that came after its order was already delivered (its cancel returned false). */
    void latePayment() {
        latePayments.increment();
    }

    /**
     * Books a receipt: a worker acked the order's delivery.
     *
     * @param id            the message id
     * @param latenessMicros how late the first delivery was
     */
    void delivered(String id, long latenessMicros) {
        int order = orderOf(runId, id);
        if (order < 0 || order >= states.length()) {
            foreign.increment();
            return;
        }
        if (set(order, DELIVERED)) {
            delivered.increment();
            lateness.record(latenessMicros);
        } else {
            duplicateReceipts.increment();
        }
    }

    /** @return true if this call set the flag */
    private boolean set(int order, int flag) {
        while (true) {
            int s = states.get(order);
            if ((s & flag) != 0) {
                return false;
            }
            if (states.compareAndSet(order, s, s | flag)) {
                return true;
            }
        }
    }

    long scheduled() {
        return scheduled.sum();
    }

    long cancelled() {
        return cancelled.sum();
    }

    long delivered() {
        return delivered.sum();
    }

    long latePayments() {
        return latePayments.sum();
    }

    long foreign() {
        return foreign.sum();
    }

    long duplicateReceipts() {
        return duplicateReceipts.sum();
    }

    Lateness lateness() {
        return lateness;
    }

    /** @return true when every scheduled order is cancelled or delivered (the cheap check for the wait loop) */
    boolean settled(long expected) {
        return scheduled() == expected && cancelled() + delivered() >= expected;
    }

    /**
     * Reconciles by id.
     *
     * @return orders scheduled but neither cancelled nor delivered, and orders both cancelled and delivered
     */
    Reconciliation reconcile() {
        long unsettled = 0;
        long both = 0;
        String firstUnsettled = null;
        for (int i = 0; i < states.length(); i++) {
            int s = states.get(i);
            if ((s & SCHEDULED) == 0) {
                continue;
            }
            boolean c = (s & CANCELLED) != 0;
            boolean d = (s & DELIVERED) != 0;
            if (!c && !d) {
                unsettled++;
                if (firstUnsettled == null) {
                    firstUnsettled = id(i);
                }
            } else if (c && d) {
                both++;
            }
        }
        return new Reconciliation(unsettled, both, firstUnsettled);
    }

    /**
     * The outcome of reconciling ids.
     *
     * @param unsettled      orders neither cancelled nor delivered
     * @param both           orders cancelled and delivered
     * @param firstUnsettled the id of one unsettled order, or null
     */
    record Reconciliation(long unsettled, long both, String firstUnsettled) {

        /**
         * Splits the unsettled orders by what the queue still holds: an order is not delivered yet while the queue
         * holds it (delayed, ready or in flight), dead while it is a dead letter, and lost only when it is neither.
         * The queue is read by its counts, not by id, so this assumes the run is the queue's only producer: another
         * run's messages in it would hide a loss.
         *
         * @param left the queue's counts at the end of the run, or null if they could not be read
         * @return the split
         */
        Outcome outcome(QueueStats left) {
            if (left == null) {
                return new Outcome(0, 0, unsettled, false);
            }
            long pending = Math.min(unsettled, left.delayed() + left.ready() + left.inFlight());
            long dead = Math.min(unsettled - pending, left.dead());
            return new Outcome(pending, dead, unsettled - pending - dead, true);
        }
    }

    /**
     * What became of the unsettled orders.
     *
     * @param notDeliveredYet still in the queue: delayed, ready or in flight
     * @param dead            dead letters of the queue
     * @param lost            neither cancelled, delivered nor in the queue
     * @param known           whether the queue's counts were read; if not, every unsettled order counts as lost
     */
    record Outcome(long notDeliveredYet, long dead, long lost, boolean known) {
    }
}
