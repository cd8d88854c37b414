package io.clockwork.benchmarks.expiry;

import java.util.List;

/**
 * The names of the expiry rivals, as used in {@code -p queue=...}, {@code -p tracker=...}, {@code -p map=...} and
 * in the result tables. Thread-safe (constants only).
 */
public final class ExpiryRivals {

    /**
     * Our ZooKeeper and Storm faces ({@code io.clockwork.zookeeper}, {@code io.clockwork.storm}), through their (boxed)
     * methods.
     */
    public static final String CLOCKWORK = "clockwork";
    /** Our {@code ExpiryQueue} through its allocation-free primitives ({@code updateExpiry}, {@code removeExpiry}). */
    public static final String CLOCKWORK_PRIMITIVE = "clockwork-primitive";
    /** ZooKeeper's {@code org.apache.zookeeper.server.ExpiryQueue} or {@code SessionTrackerImpl}. */
    public static final String ZOOKEEPER = "zookeeper";
    /**
     * ZooKeeper's {@code SessionTrackerImpl} as {@code ZooKeeperServer} fills it: {@code createSession} followed by
     * {@code commitSession}, which also records the timeout in {@code sessionsWithTimeout}.
     */
    public static final String ZOOKEEPER_SERVER = "zookeeper-server";
    /** Storm's {@code org.apache.storm.utils.TimeCacheMap} or {@code RotatingMap}. */
    public static final String STORM = "storm";
    /** Caffeine's {@code Cache} built with {@code expireAfterWrite} and the system scheduler. */
    public static final String CAFFEINE = "caffeine";
    /** A plain {@code ConcurrentHashMap}: the same gets and puts with no expiry at all, the physical limit. */
    public static final String CHM = "chm";

    /** ExpiryQueue rivals, ours first. */
    public static final List<String> QUEUES = List.of(CLOCKWORK, CLOCKWORK_PRIMITIVE, ZOOKEEPER);
    /** SessionTracker rivals, ours first. */
    public static final List<String> TRACKERS = List.of(CLOCKWORK, ZOOKEEPER);
    /** TimeCacheMap rivals, ours first. */
    public static final List<String> TIME_CACHE_MAPS = List.of(CLOCKWORK, STORM, CAFFEINE, CHM);
    /** RotatingMap rivals, ours first. */
    public static final List<String> ROTATING_MAPS = List.of(CLOCKWORK, STORM);

    private ExpiryRivals() {
    }

    static IllegalArgumentException unknown(String kind, String name, List<String> known) {
        return new IllegalArgumentException("unknown " + kind + " '" + name + "', expected one of " + known);
    }
}
