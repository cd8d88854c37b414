package io.clockwork.redis;

import io.clockwork.queue.RateLimit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The queue-wide rate limit stored with a Redis queue: field {@code rate} of its config hash (partition 0's slot),
 * {@code "<permits> <interval ms>"}, which the limiter's scripts read on every call ({@code include/rate.lua}).
 * Stateless and thread-safe.
 *
 * <p>One stored limit, not one per client: every client of a queue obeys the same limit, whatever it was built with,
 * and a change reaches every client at its next poll. A client built with {@code rateLimit(..)} stores its limit,
 * replacing another one with a warning naming both (the way to change a live queue's limit: build a client with the
 * new one); a client built without one follows the stored limit, if any, so no consumer of a limited queue slips past
 * it. The interval is kept in whole milliseconds, rounded up.
 */
final class StoredRateLimit {

    private static final System.Logger LOG = System.getLogger(StoredRateLimit.class.getName());
    static final byte[] FIELD = "rate".getBytes(StandardCharsets.US_ASCII);

    private StoredRateLimit() {
    }

    /**
     * @param requested the client's limit, if it was built with one
     * @return the limit the queue has now: the requested one (stored), else the stored one, else none
     * @throws RuntimeException Lettuce's error if Redis fails
     */
    static Optional<RateLimit> resolve(ScriptRunner runner, Connections connections, String name,
                                       Optional<RateLimit> requested) {
        Optional<RateLimit> stored = read(runner, connections, name);
        if (requested.isEmpty()) {
            return stored;
        }
        RateLimit want = requested.get();
        String value = format(want);
        if (stored.isEmpty() || !format(stored.get()).equals(value)) {
            runner.await(connections.commands().hset(KeyLayout.configKey(name), FIELD,
                    value.getBytes(StandardCharsets.US_ASCII)));
            stored.ifPresent(old -> LOG.log(System.Logger.Level.WARNING, "queue '" + name + "' on "
                    + connections.where() + ": rate limit " + describe(old) + " replaced by this client's "
                    + describe(want) + "; every client of the queue now obeys it"));
        }
        return requested;
    }

    /**
     * @return the limit stored with the queue now, if any
     * @throws RuntimeException Lettuce's error if Redis fails
     */
    static Optional<RateLimit> read(ScriptRunner runner, Connections connections, String name) {
        byte[] v = runner.await(connections.commands().hget(KeyLayout.configKey(name), FIELD));
        return v == null ? Optional.empty() : Optional.of(parse(new String(v, StandardCharsets.US_ASCII)));
    }

    /**
     * {@link #read} for a caller of the queue's API.
     *
     * @throws RedisQueueException if Redis fails
     */
    static Optional<RateLimit> readForCaller(ScriptRunner runner, Connections connections, String name) {
        try {
            return read(runner, connections, name);
        } catch (RuntimeException e) {
            throw new RedisQueueException("queue '" + name + "' on " + connections.where()
                    + ": reading the rate limit failed: " + e.getMessage(), e);
        }
    }

    /** @return the stored form, {@code "<permits> <interval ms>"}, the interval rounded up to whole ms */
    static String format(RateLimit limit) {
        long ms = limit.interval().toMillis();
        if (Duration.ofMillis(ms).compareTo(limit.interval()) < 0) {
            ms++;
        }
        return limit.permits() + " " + ms;
    }

    private static RateLimit parse(String v) {
        int space = v.indexOf(' ');
        return new RateLimit(Integer.parseInt(v.substring(0, space)),
                Duration.ofMillis(Long.parseLong(v.substring(space + 1))));
    }

    private static String describe(RateLimit limit) {
        return limit.permits() + " per " + limit.interval().toMillis() + " ms";
    }
}
