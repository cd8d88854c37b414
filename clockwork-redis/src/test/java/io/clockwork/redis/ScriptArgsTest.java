package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The arguments the client builds for the scripts, byte for byte as the scripts build them. */
class ScriptArgsTest {

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aMemberIsTheSequenceAsSixteenLowercaseHexDigitsThenTheId() {
        // string.format('%016x', seq) .. id in common.lua
        assertThat(s(RedisDelayedQueue.member(0, "a"))).isEqualTo("0000000000000000a");
        assertThat(s(RedisDelayedQueue.member(0xbeefL, "id-1"))).isEqualTo("000000000000beefid-1");
        assertThat(s(RedisDelayedQueue.member(1L << 52, "x"))).isEqualTo("0010000000000000x");
        assertThat(s(RedisDelayedQueue.member(7, "ü\u0000z"))).isEqualTo("0000000000000007ü\u0000z");
    }
}
