package io.clockwork.zookeeper;

/**
 * Told when a tracker can no longer do its work, as ZooKeeper's
 * {@code org.apache.zookeeper.server.ZooKeeperServerListener} is told when a critical thread stops. Implementations
 * must be thread-safe: {@link SessionTrackerImpl} calls it from the engine's driver thread.
 */
@FunctionalInterface
public interface ZooKeeperServerListener {

    /**
     * Called once when the component stops because of an error it cannot recover from.
     *
     * @param threadName the name of the component that stopped ({@code "SessionTracker"})
     * @param errorCode  ZooKeeper's exit code for the error ({@code 1}, {@code UNEXPECTED_ERROR})
     */
    void notifyStopping(String threadName, int errorCode);
}
