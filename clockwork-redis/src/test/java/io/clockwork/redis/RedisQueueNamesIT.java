package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Queue names become part of Redis keys as UTF-8 bytes, where an encoder writes '?' for a lone surrogate: every entry
 * point that turns a name into keys refuses a name that does not round-trip, before it writes anything.
 */
@ExtendWith(RedisExtension.class)
class RedisQueueNamesIT {

    /** Each would be the key bytes of {@code "sur?"}. */
    private static final List<String> MALFORMED = List.of("sur\uD800", "sur\uDBFF", "sur\uDC00", "\uDFFFsur");

    private final RedisServerProcess redis;

    RedisQueueNamesIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void aQueueNameThatDoesNotRoundTripThroughUtf8IsRefusedAtBuildNamingTheNameAndWritesNothing() {
        try (RedisDelayedQueue<String> plain = RedisDelayedQueue.builder(redis.uri(), "sur?", Codec.string())
                .build()) {
            plain.offer("in-sur?", "v", Duration.ofHours(1));
            long keys = dbsize();
            for (String bad : MALFORMED) {
                assertThatThrownBy(() -> RedisDelayedQueue.builder(redis.uri(), bad, Codec.string()).build())
                        .as("builder(%s)", codePoints(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("name must be well-formed Unicode, which round-trips through UTF-8")
                        .hasMessageContaining("unpaired surrogate");
                assertThatThrownBy(() -> RedisDelayedQueue.builder(redis.uri(), bad, Codec.string()).openExisting()
                        .build()).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("name ");
            }
            assertThat(dbsize()).as("nothing written").isEqualTo(keys);
            assertThat(plain.stats().delayed()).isEqualTo(1);
        }
        try (RedisQueueRegistry registry = RedisQueueRegistry.connect(redis.uri())) {
            assertThat(registry.names()).containsExactly("sur?");
            for (String bad : MALFORMED) {
                assertThatThrownBy(() -> registry.forget(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("name must be well-formed Unicode");
            }
            assertThat(registry.names()).as("the registry entry of sur? stays").containsExactly("sur?");
        }
    }

    private long dbsize() {
        return (Long) redis.call("DBSIZE");
    }

    private static List<String> codePoints(String s) {
        return s.chars().mapToObj(Integer::toHexString).toList();
    }
}
