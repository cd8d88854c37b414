/**
 * Bucketed expiry: ZooKeeper's {@link io.clockwork.expiry.ExpiryQueue} and {@link io.clockwork.expiry.SessionTracker},
 * and Storm's {@link io.clockwork.expiry.TimeCacheMap} and {@link io.clockwork.expiry.RotatingMap}, with their
 * names and semantics, made thread-safe without a global lock and O(1) per operation.
 *
 * <p>Two ideas carry the package. Touches are <i>lazy</i>: moving a deadline later only writes the element's own
 * state word; the element is re-filed when the bucket it sits in comes due, so a hot element costs one hash lookup
 * and one compare-and-set per touch, never a move between buckets. Expiry is a <i>compare-and-set</i> on the same
 * word, so a touch racing an expiry either wins (the element lives on) or loses (it is expired), never both. And
 * nothing is kept twice: in {@code SessionTracker} and the maps, an element's node is at once its bucket entry and its
 * entry in a concurrent hash table with lock-free lookups ({@code NodeTable}), so tracking an element costs one
 * object and a table slot; {@code ExpiryQueue} keeps no object at all, only the element and its state word side by
 * side in a table's arrays ({@code KeyStateTable}) and a 12-byte filing in its poller's ring ({@code KeyRing}).
 */
package io.clockwork.expiry;
