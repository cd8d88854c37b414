package io.clockwork.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Refuses a Redis that may evict the queue's keys. Stateless; used once per {@link RedisQueueBuilder#build()}.
 *
 * <p>Under memory pressure a server whose {@code maxmemory-policy} is anything but {@code noeviction} deletes whole
 * keys ({@code allkeys-*} any key, {@code volatile-*} keys with a TTL, which may include a queue's keys if anyone sets
 * one): a queue loses its schedule, its message states or both, and every client keeps running as if nothing
 * happened. {@code noeviction} makes writes fail instead, which the queue reports as errors. The policy is read
 * from {@code INFO memory} ({@code maxmemory_policy}), which users without {@code CONFIG} rights may still run, on
 * every master of a Cluster. The policy is checked whatever {@code maxmemory} is now: it can be set at runtime.
 */
final class EvictionCheck {

    private static final String FIELD = "maxmemory_policy:";
    private static final String SAFE = "noeviction";

    private EvictionCheck() {
    }

    /**
     * @param connections the queue's connections
     * @param scripts     for its reply deadline
     * @param queueName   for the error
     * @throws RedisQueueException naming each master and its policy if one may evict, or if a policy cannot be read
     */
    static void requireNoEviction(Connections connections, ScriptRunner scripts, String queueName) {
        List<String> evicting = new ArrayList<>();
        for (Connections.Master m : connections.masters()) {
            String info;
            try {
                info = scripts.await(m.commands().info("memory"));
            } catch (RuntimeException e) {
                throw new RedisQueueException("queue '" + queueName + "' on " + connections.where()
                        + ": cannot read the eviction policy of " + m.where() + " (INFO memory failed: "
                        + e.getMessage() + "). Grant the user INFO (ACL +info), or build the queue with "
                        + "allowEvictingServer() to accept that Redis may delete its keys", e);
            }
            String policy = policy(info);
            if (policy == null) {
                throw new RedisQueueException("queue '" + queueName + "' on " + connections.where() + ": "
                        + m.where() + " does not report maxmemory_policy in INFO memory, so whether it evicts keys "
                        + "is unknown; build the queue with allowEvictingServer() to accept that risk", null);
            }
            if (!SAFE.equals(policy)) {
                evicting.add(m.where() + " has maxmemory-policy " + policy);
            }
        }
        if (!evicting.isEmpty()) {
            throw new RedisQueueException("queue '" + queueName + "' on " + connections.where() + ": "
                    + String.join(", ", evicting) + ": under memory pressure Redis deletes keys, and the queue's "
                    + "messages with them. Set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, "
                    + "and in redis.conf), or build the queue with allowEvictingServer() to accept the loss", null);
        }
    }

    /** @return the {@code maxmemory_policy} of an {@code INFO} reply, or null if it has none */
    static String policy(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(FIELD)) {
                return line.substring(FIELD.length()).trim().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }
}
