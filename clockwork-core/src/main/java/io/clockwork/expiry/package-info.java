/**
 * Bucketed expiry: ZooKeeper's {@link io.clockwork.expiry.ExpiryQueue} and {@link io.clockwork.expiry.SessionTracker},
 * and Storm's {@link io.clockwork.expiry.TimeCacheMap} and {@link io.clockwork.expiry.RotatingMap}, with their
 * names and semantics, made thread-safe without a global lock and O(1) per operation.
 *
 * <p>Two ideas carry the package. Touches are <i>lazy</i>: moving a deadline later only writes the element's own
 * state word; the element is re-filed when the bucket it sits in comes due, so a hot element costs one hash lookup
 * and one compare-and-set per touch, never a move between buckets. Expiry is a <i>compare-and-set</i> on the same
 * word, so a touch racing an expiry either wins (the element lives on) or loses (it is expired), never both. And
 * nodes are <i>intrusive</i>: an element's node is at once its timing-wheel entry and its entry in a concurrent hash
 * table with lock-free lookups ({@code NodeTable}), so tracking an element costs one object and a table slot.
 */
package io.clockwork.expiry;
