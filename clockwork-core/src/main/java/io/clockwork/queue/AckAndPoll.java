package io.clockwork.queue;

/**
 * What {@link DelayedQueue#ackAndPoll(Delivery)} did: whether the finished delivery's ack removed its message, and
 * the next delivery it took, if one was ready. Immutable and thread-safe (the delivery is as thread-safe as its
 * backend makes it).
 *
 * @param acked whether the ack removed the message (false: the delivery no longer held it)
 * @param next  the next delivery, in flight under its own visibility timeout from when it was taken; null if none was
 *              ready
 * @param <V>   the value type
 */
public record AckAndPoll<V>(boolean acked, Delivery<V> next) {
}
