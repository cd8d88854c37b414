package io.clockwork.redis;

import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code offer.lua}'s argument forms, run directly: a delay shared by the call or one per message, and the fresh
 * flags that let the client's first attempt of ids it just generated skip the dedup read while every other id is
 * still checked (against stored ids and within the call); and that a call's event counts cost one command whatever
 * the number of messages.
 */
@ExtendWith(RedisExtension.class)
class OfferScriptIT {

    private final RedisServerProcess redis;
    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;

    OfferScriptIT(RedisServerProcess redis) {
        this.redis = redis;
        this.client = RedisClient.create(redis.uri());
        this.connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterEach
    void cleanUp() {
        connection.close();
        client.shutdown();
    }

    /** @return offer.lua's reply: added 0/1 per message, then the must-signal flag */
    private List<Object> offer(String name, String... args) {
        return run(Script.OFFER, name, args);
    }

    private List<Object> run(Script script, String name, String... args) {
        byte[][] bytes = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        RedisCommands<byte[], byte[]> sync = connection.sync();
        return sync.eval(script.body(), ScriptOutputType.MULTI, new KeyLayout(name, 1, false).keys(script, 0), bytes);
    }

    /** @return how many HINCRBY commands the server ran since its statistics were reset */
    private long hincrbyCalls() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_hincrby:calls=(\\d+)")
                .matcher(redis.call("INFO", "commandstats").toString());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void aCallCountsItsMessagesWithOneHincrbyWhateverTheirNumber() {
        redis.call("CONFIG", "RESETSTAT");
        // a and b are stored, the second a is kept (not stored): offered grows by 2, in one command.
        assertThat(offer("counted", "5", "0", "", "a", "1", "b", "2", "a", "3")).startsWith(1L, 1L, 0L);
        assertThat(redis.call("HGET", KeyLayout.prefix("counted", 0) + "counters", "offered")).isEqualTo("2");
        assertThat(hincrbyCalls()).isEqualTo(1);
        // A poll that takes both: delivered grows by 2, in one command.
        assertThat(run(Script.POLL, "counted", "5", "100", "30000", "2").get(0)).isEqualTo(2L);
        assertThat(redis.call("HGET", KeyLayout.prefix("counted", 0) + "counters", "delivered")).isEqualTo("2");
        assertThat(hincrbyCalls()).isEqualTo(2);
        // Nothing due: nothing taken, no command.
        assertThat(run(Script.POLL, "counted", "5", "100", "30000", "2").get(0)).isEqualTo(0L);
        assertThat(hincrbyCalls()).isEqualTo(2);
    }

    @Test
    void idsToCheckAreDeduplicatedAgainstStoredIdsAndWithinTheCall() {
        assertThat(offer("check", "5", "0", "", "a", "1", "b", "2", "a", "3")).startsWith(1L, 1L, 0L);
        assertThat(offer("check", "5", "0", "", "b", "4", "c", "5")).startsWith(0L, 1L);
        assertThat(redis.call("ZCOUNT", KeyLayout.prefix("check", 0) + "pending", "-inf", "(+inf")).isEqualTo(3L);
    }

    @Test
    void perMessageFlagsCheckOnlyTheIdsMarkedForIt() {
        assertThat(offer("flags", "5", "0", "*", "a", "1")).startsWith(1L);
        // 'a' is marked for the check (0) and is known: deduplicated; 'b' is fresh (1): added without a read.
        assertThat(offer("flags", "5", "0", "01", "a", "2", "b", "3")).startsWith(0L, 1L);
        assertThat(offer("flags", "5", "0", "10", "c", "4", "b", "5")).startsWith(1L, 0L);
        assertThat(redis.call("ZCOUNT", KeyLayout.prefix("flags", 0) + "pending", "-inf", "(+inf")).isEqualTo(3L);
    }

    @Test
    void eachMessageMayCarryItsOwnDelay() {
        long now = Long.parseLong(((List<?>) redis.call("TIME")).get(0).toString()) * 1000;
        // '' shared delay: each (id, payload, delay); one due now, one in an hour.
        assertThat(offer("delays", "5", "", "", "now", "x", "0", "later", "y", "3600000")).startsWith(1L, 1L);
        String pending = KeyLayout.prefix("delays", 0) + "pending";
        long dueNow = (long) Double.parseDouble((String) redis.call("ZSCORE", pending, "0000000000000001now"));
        long dueLater = (long) Double.parseDouble((String) redis.call("ZSCORE", pending, "0000000000000002later"));
        assertThat(dueNow).isBetween(now - 1000, now + 60_000);
        assertThat(dueLater - dueNow).isBetween(3_600_000L, 3_600_001L);
    }

    /**
     * Fresh messages with one delay (the usual call, which offer.lua runs without its general path): each stored
     * under its own sequence in due order, counted, and a poller woken only by a message due now or earlier than
     * the head a blocked poller may be waiting for.
     */
    @Test
    void freshMessagesWithOneDelayAreStoredAndWakeOnlyWhenEarlierThanTheHead() {
        String prefix = KeyLayout.prefix("fresh", 0);
        String never = "5 1209600000 100000 -1 0"; // compactAfter -1: the per-message layout only
        assertThat(offer("fresh", never, "60000", "*", "a", ":x", "b", ":y")).containsExactly(1L, 1L, 0L);
        assertThat(redis.call("LPOP", prefix + "signal")).as("the first messages wake").isEqualTo("1");
        assertThat(offer("fresh", never, "120000", "*", "c", ":z")).containsExactly(1L, 0L);
        assertThat(redis.call("LLEN", prefix + "signal")).as("later than the head: no wake").isEqualTo(0L);
        assertThat(offer("fresh", never, "1000", "*", "d", ":w")).containsExactly(1L, 0L);
        assertThat(redis.call("LPOP", prefix + "signal")).as("earlier than the head").isEqualTo("1");
        assertThat(offer("fresh", never, "0", "*", "e", ":v")).containsExactly(1L, 0L);
        assertThat(redis.call("LPOP", prefix + "signal")).as("due now").isEqualTo("1");
        assertThat(redis.call("ZRANGEBYSCORE", prefix + "pending", "-inf", "(+inf")).isEqualTo(List.of(
                "0000000000000005e", "0000000000000004d", "0000000000000001a", "0000000000000002b",
                "0000000000000003c"));
        assertThat(redis.call("HGET", prefix + "meta", "b")).isEqualTo("D 0 0000000000000002:y");
        assertThat(redis.call("HGET", prefix + "counters", "offered")).isEqualTo("5");
        assertThat(redis.call("GET", prefix + "seq")).isEqualTo("5");
    }
}
