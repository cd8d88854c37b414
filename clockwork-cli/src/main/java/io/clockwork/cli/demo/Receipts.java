package io.clockwork.cli.demo;

/**
 * Where a worker reports an order it delivered and acked: straight into the {@link Ledger} when producer and workers
 * share a process, or through a Redis queue to whichever process produced the order. Implementations are
 * thread-safe.
 */
interface Receipts extends AutoCloseable {

    /**
     * Reports one acked delivery.
     *
     * @param id             the order's message id
     * @param latenessMicros how late its first delivery was
     */
    void delivered(String id, long latenessMicros);

    @Override
    default void close() {
    }
}
