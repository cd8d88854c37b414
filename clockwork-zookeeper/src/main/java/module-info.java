/**
 * The ZooKeeper face: ZooKeeper's expiry ({@code org.apache.zookeeper.server}): {@code ExpiryQueue} and {@code SessionTrackerImpl} with
 * ZooKeeper's names and semantics, and the compact {@code SessionTracker}, on Clockwork's engine.
 */
module io.clockwork.zookeeper {
    requires transitive io.clockwork.core;

    exports io.clockwork.zookeeper;
}
