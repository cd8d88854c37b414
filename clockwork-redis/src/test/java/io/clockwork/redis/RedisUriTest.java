package io.clockwork.redis;

import io.clockwork.queue.Codec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A URI's password never appears in an error or a description. */
class RedisUriTest {

    @Test
    void aBadUriIsRejectedWithoutItsPassword() {
        assertThatThrownBy(() -> RedisDelayedQueue.builder("redix://ops:s3cret@127.0.0.1:6379", "q",
                Codec.string()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redisUri is not a Redis URI: 'redix://***@127.0.0.1:6379'")
                .hasMessageNotContaining("s3cret")
                .hasNoCause();
    }

    @Test
    void redactionCoversPasswordsWithAtSignsAndQuotedUrisInMessages() {
        assertThat(Connections.redact("rediss://ops:hunter@22@redis.example:6380/2"))
                .isEqualTo("rediss://***@redis.example:6380/2");
        assertThat(Connections.redact("cannot parse 'redis://:pw@h:1' here, nor \"redis://u:p@h\""))
                .isEqualTo("cannot parse 'redis://***@h:1' here, nor \"redis://***@h\"");
        assertThat(Connections.redact("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
    }
}
