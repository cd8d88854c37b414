package io.clockwork.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Agrees on a queue's partition count with the one stored in Redis. Stateless; used once per
 * {@link RedisQueueBuilder#build()}.
 *
 * <p>An id's partition is a hash of the id modulo the count, so a client with another count files messages where the
 * others never look (a producer with 4 partitions and a consumer with 1 leave three quarters of the messages stranded).
 * The first client to create a queue therefore stores the count in the queue's config hash ({@code open.lua}); every
 * later client reads it: a client that asked for the same count, or for none, uses it; one that asked for another fails
 * at build. A queue whose stored count is gone (its config hash deleted or evicted) while its data remains has none: a
 * client that names a count stores it, and one that does not gets 1 if partition 1 never held a message, else an error
 * asking for the count (guessing wrong would strand messages). Every build also adds the queue's name to the registry
 * of queues.
 */
final class StoredPartitions {

    private static final System.Logger LOG = System.getLogger(StoredPartitions.class.getName());

    private StoredPartitions() {
    }

    /**
     * @param scripts      runs {@code open.lua}
     * @param connections  for the probe of a queue whose stored count is gone
     * @param name         the queue's name
     * @param requested    the count the client asked for, or 0 if it did not set one
     * @param openExisting whether to fail, writing nothing, if the queue does not exist
     * @return the count to use
     * @throws QueueNotFoundException if {@code openExisting} and no client ever created the queue
     * @throws IllegalStateException  if the stored count differs from the requested one, or cannot be inferred
     */
    static int resolve(ScriptRunner scripts, Connections connections, String name, int requested,
                       boolean openExisting) {
        int count = resolveCount(scripts, connections, name, requested, openExisting);
        register(scripts, connections, name);
        return count;
    }

    /**
     * Adds the queue's name to the registry ({@link KeyLayout#REGISTRY_KEY}), through which operators' tools find
     * every queue. Best effort: a user whose ACL does not grant the registry key still gets its queue, with a
     * warning, since the queue works without it.
     */
    private static void register(ScriptRunner scripts, Connections connections, String name) {
        try {
            scripts.await(connections.commands().sadd(KeyLayout.REGISTRY_KEY, name.getBytes(StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "queue '" + name + "' on " + connections.where() + " is not listed "
                    + "in the registry " + string(KeyLayout.REGISTRY_KEY) + " (dashboards will not find it): "
                    + e.getMessage());
        }
    }

    /**
     * Removes the queue's name from the registry, after {@link RedisDelayedQueue#delete()}. Best effort, as
     * {@link #register}.
     */
    static void unregister(ScriptRunner scripts, Connections connections, String name) {
        try {
            scripts.await(connections.commands().srem(KeyLayout.REGISTRY_KEY, name.getBytes(StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "queue '" + name + "' on " + connections.where() + " is deleted but "
                    + "still listed in the registry " + string(KeyLayout.REGISTRY_KEY) + ": " + e.getMessage());
        }
    }

    private static int resolveCount(ScriptRunner scripts, Connections connections, String name, int requested,
                                    boolean openExisting) {
        byte[][] keys = {KeyLayout.seqKey(name, 0), KeyLayout.configKey(name)};
        Stored read = open(scripts, keys, 0);
        if (read.partitions() > 0) {
            return agree(connections, name, requested, read.partitions());
        }
        if (!read.existed() && openExisting) {
            throw new QueueNotFoundException("no queue '" + name + "' on " + connections.where()
                    + ": no client has created it (no key " + string(keys[1]) + ")");
        }
        int want = requested;
        if (want == 0) {
            if (read.existed() && scripts.<Long>await(connections.commands().exists(KeyLayout.seqKey(name, 1))) > 0) {
                throw new IllegalStateException("queue '" + name + "' on " + connections.where() + " has no stored "
                        + "partition count (its key " + string(keys[1]) + " is gone) and has more than one partition: "
                        + "build it once with partitions(n), n the count its clients use, to store it");
            }
            want = 1;
        }
        if (openExisting) {
            return want; // writes nothing: the next client built without openExisting() stores the count
        }
        return agree(connections, name, requested, open(scripts, keys, want).partitions());
    }

    private static int agree(Connections connections, String name, int requested, int stored) {
        if (requested != 0 && requested != stored) {
            throw new IllegalStateException("queue '" + name + "' on " + connections.where() + " has " + stored
                    + " partition(s), stored when it was created, but this client asks for " + requested + ": every "
                    + "client of a queue must use the same count. Leave partitions(..) unset to use the stored count; "
                    + "changing the count of a live queue is a migration (docs/redis-queue.md, \"Changing the "
                    + "partition count\")");
        }
        return stored;
    }

    /** {@code open.lua}'s reply. */
    private record Stored(int partitions, boolean existed) {
    }

    private static Stored open(ScriptRunner scripts, byte[][] keys, int want) {
        List<Object> r = scripts.run("open", Script.OPEN, keys,
                Integer.toString(want).getBytes(StandardCharsets.US_ASCII));
        return new Stored(Math.toIntExact((Long) r.get(0)), (Long) r.get(1) == 1L);
    }

    private static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
