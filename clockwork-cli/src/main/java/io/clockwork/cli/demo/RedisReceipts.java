package io.clockwork.cli.demo;

import io.clockwork.queue.DelayedQueue;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Receipts sent through Redis: each acked order becomes a message, under the order's own id, on the receipts queue
 * of the run that produced it, so that a producer can reconcile orders acked by worker processes anywhere.
 * Thread-safe.
 *
 * <p>The receipt reuses the order id as its message id, so a receipt sent twice is stored once (the queue's
 * deduplication), and each run has its own receipts queue, so two demos sharing a Redis never take each other's.
 * The opener opens existing queues only: a receipt for a run whose producer has finished (and deleted its receipts
 * queue) fails and is counted, rather than leaving a queue behind that nobody reads.
 */
final class RedisReceipts implements Receipts {

    private static final int ATTEMPTS = 3;

    private final Function<String, DelayedQueue<String>> opener;
    private final Map<String, DelayedQueue<String>> byRun = new ConcurrentHashMap<>();
    private final LongAdder failures = new LongAdder();

    /** @param opener opens a queue by name on the demo's Redis */
    RedisReceipts(Function<String, DelayedQueue<String>> opener) {
        this.opener = opener;
    }

    /**
     * @param ordersQueue the orders queue's name
     * @param runId       a run's id
     * @return the name of that run's receipts queue
     */
    static String queueName(String ordersQueue, String runId) {
        return ordersQueue + ":receipts:" + runId;
    }

    /**
     * @param ordersQueue the orders queue's name
     * @return a sender for workers of that queue
     */
    static RedisReceipts sender(String ordersQueue, Function<String, DelayedQueue<String>> opener) {
        return new RedisReceipts(run -> opener.apply(queueName(ordersQueue, run)));
    }

    @Override
    public void delivered(String id, long latenessMicros) {
        int dash = id.lastIndexOf('-');
        String run = dash > 0 ? id.substring(0, dash) : id;
        DelayedQueue<String> receipts;
        try {
            receipts = byRun.computeIfAbsent(run, opener);
        } catch (RuntimeException e) {
            failures.increment(); // e.g. its producer has finished and deleted the receipts queue
            return;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                receipts.offer(id, Long.toString(latenessMicros), Duration.ZERO);
                return;
            } catch (RuntimeException e) {
                if (attempt == ATTEMPTS) {
                    failures.increment(); // the producer will count this order as lost: the honest outcome
                    return;
                }
            }
        }
    }

    /** @return receipts that could not be sent */
    long failures() {
        return failures.sum();
    }

    @Override
    public void close() {
        byRun.values().forEach(DelayedQueue::close);
        byRun.clear();
    }
}
