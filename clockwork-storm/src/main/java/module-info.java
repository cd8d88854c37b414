/**
 * The Storm face: Storm's expiring maps ({@code org.apache.storm.utils}): {@code TimeCacheMap} and {@code RotatingMap} with Storm's names
 * and semantics, on Clockwork's engine (O(1) lookups, no thread per map).
 */
module io.clockwork.storm {
    requires transitive io.clockwork.core;

    exports io.clockwork.storm;
}
