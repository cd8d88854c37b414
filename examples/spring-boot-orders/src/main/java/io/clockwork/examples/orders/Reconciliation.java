package io.clockwork.examples.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's ledger of orders: the intent of each (paid in time by its customer, or never paid), what each payment's
 * cancel of the deadline answered, and the outcome by order id set against the intent. Thread-safe: the customers'
 * timer records payments while the demo's thread reads.
 *
 * <p>The outcome is what the {@code @ClockworkListener} did, not what a cancel answered: a cancel that threw may have
 * run on the server before its reply was lost, and a retried cancel whose first attempt took the deadline answers
 * false. So a paid order is right when it never expired, and an unpaid one when it expired exactly once; read once
 * no deadline is left in the queue and every payment has finished.
 */
final class Reconciliation {

    /**
     * Orders whose outcome differs from their intent, by kind.
     *
     * @param paidButExpired   paid in time by their customer, yet expired
     * @param unpaidNotExpired never paid, yet never expired
     * @param expiredTwice     expired more than once
     */
    record Mismatches(List<String> paidButExpired, List<String> unpaidNotExpired, List<String> expiredTwice) {

        /** @return how many orders differ from their intent */
        int count() {
            return paidButExpired.size() + unpaidNotExpired.size() + expiredTwice.size();
        }
    }

    private final int count;
    private final Set<String> toPay = ConcurrentHashMap.newKeySet();
    private final Set<String> cancelled = ConcurrentHashMap.newKeySet();
    private final Set<String> foundGone = ConcurrentHashMap.newKeySet();
    private final Map<String, String> failed = new ConcurrentHashMap<>();
    private final AtomicLong slowestNanos = new AtomicLong();

    /** @param count the orders, {@code order-0} to {@code order-(count-1)} */
    Reconciliation(int count) {
        this.count = count;
    }

    /** @param id an order its customer pays in time */
    void intendToPay(String id) {
        toPay.add(id);
    }

    /**
     * Records a payment whose cancel answered.
     *
     * @param id        the order
     * @param cancelled what the cancel answered: false if the deadline was gone already
     * @param tookNanos how long the cancel took
     */
    void paid(String id, boolean cancelled, long tookNanos) {
        (cancelled ? this.cancelled : foundGone).add(id);
        slowestNanos.accumulateAndGet(tookNanos, Math::max);
    }

    /**
     * Records a payment whose cancel threw: the deadline may still be pending, and then the order expires although
     * its customer paid.
     *
     * @param id        the order
     * @param failure   what the cancel threw
     * @param tookNanos how long the cancel took
     */
    void cancelFailed(String id, RuntimeException failure, long tookNanos) {
        failed.put(id, String.valueOf(failure.getMessage()));
        slowestNanos.accumulateAndGet(tookNanos, Math::max);
    }

    /** @return whether every payment's cancel has answered or thrown */
    boolean paymentsDone() {
        return cancelled.size() + foundGone.size() + failed.size() >= toPay.size();
    }

    /** @return the orders their customers pay in time */
    Set<String> toPay() {
        return toPay;
    }

    /** @return the payments whose cancel answered true */
    Set<String> cancelled() {
        return cancelled;
    }

    /** @return the payments whose cancel answered false: the deadline was gone already */
    Set<String> foundGone() {
        return foundGone;
    }

    /** @return the payments whose cancel threw, with what it threw */
    Map<String, String> failed() {
        return failed;
    }

    /** @return the longest a payment's cancel took, in nanoseconds */
    long slowestNanos() {
        return slowestNanos.get();
    }

    /**
     * @param deadlines the listener, which knows which orders expired and how often
     * @return the orders whose outcome differs from their intent
     */
    Mismatches mismatches(PaymentDeadlines deadlines) {
        List<String> paidButExpired = new ArrayList<>();
        List<String> unpaidNotExpired = new ArrayList<>();
        List<String> expiredTwice = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = "order-" + i;
            int expired = deadlines.timesExpired(id);
            if (toPay.contains(id) && expired > 0) {
                paidButExpired.add(id);
            } else if (!toPay.contains(id) && expired == 0) {
                unpaidNotExpired.add(id);
            } else if (expired > 1) {
                expiredTwice.add(id);
            }
        }
        return new Mismatches(paidButExpired, unpaidNotExpired, expiredTwice);
    }
}
