package io.clockwork.postgres;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Headers as the {@code headers bytea} column holds them. */
class HeadersTest {

    @Test
    void headersRoundTripInOrderWithCharactersTextColumnsRefuse() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("z", "last set first");
        h.put("nul", "before\u0000after");
        h.put("unicode", "caf\u00e9 \uD83D\uDE00");
        h.put("empty", "");
        assertThat(Headers.decode(Headers.encode(h))).containsExactlyEntriesOf(h);
    }

    @Test
    void noHeadersIsNull() {
        assertThat(Headers.encode(Map.of())).isNull();
        assertThat(Headers.decode(null)).isEmpty();
    }
}
