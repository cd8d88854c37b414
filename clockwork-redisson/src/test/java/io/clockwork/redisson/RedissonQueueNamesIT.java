package io.clockwork.redisson;

import io.clockwork.redis.fixture.RedisExtension;
import io.clockwork.redis.fixture.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Queue names become part of Redis keys as UTF-8 bytes, where an encoder writes '?' for a lone surrogate: the
 * Redisson face on Redis and the migration refuse a name that does not round-trip, before they write anything.
 */
@ExtendWith(RedisExtension.class)
class RedissonQueueNamesIT {

    /** Each would be the key bytes of {@code "sur?"}. */
    private static final List<String> MALFORMED = List.of("sur\uD800", "sur\uDBFF", "sur\uDC00", "\uDFFFsur");

    private final RedisServerProcess redis;

    RedissonQueueNamesIT(RedisServerProcess redis) {
        this.redis = redis;
    }

    @Test
    void theRedissonFaceAndItsMigrationRefuseSuchNamesToo() {
        try (RedisRedisson client = RedisRedisson.create(redis.uri())) {
            client.getBlockingQueue("sur?").offer("only in sur?");
            long keys = dbsize();
            for (String bad : MALFORMED) {
                assertThatThrownBy(() -> client.getBlockingQueue(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("name must be well-formed Unicode");
                assertThatThrownBy(() -> RedissonMigration.run(client, "redisson-queue", bad, 10))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("name ");
                assertThatThrownBy(() -> RedissonMigration.run(client, bad, "target", 10))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("from must be well-formed Unicode");
                assertThatThrownBy(() -> RedissonMigration.dryRun(client, bad))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("well-formed Unicode");
            }
            assertThat(dbsize()).as("nothing written").isEqualTo(keys);
            assertThat(client.getBlockingQueue("sur?").readAll()).containsExactly("only in sur?");
        }
    }

    private long dbsize() {
        return (Long) redis.call("DBSIZE");
    }
}
