package io.clockwork.queue;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The message builder: defaults, immutability, and every check with the argument and limit it names. */
class MessageTest {

    @Test
    void defaultsAreAGeneratedIdNoDelayNoHeadersAndKeep() {
        Message<String> m = Message.of("v");
        assertThat(m.value()).isEqualTo("v");
        assertThat(m.id()).isEmpty();
        assertThat(m.delay()).isZero();
        assertThat(m.headers()).isEmpty();
        assertThat(m.onConflict()).isEqualTo(Message.Conflict.KEEP);
    }

    @Test
    void everyWithMethodReturnsACopyAndLeavesTheOriginalAlone() {
        Message<String> base = Message.of("v");
        Message<String> full = base.id("a").delay(Duration.ofSeconds(5)).header("tenant", "acme")
                .onConflict(Message.Conflict.REPLACE);
        assertThat(base).isEqualTo(Message.of("v"));
        assertThat(full.id()).hasValue("a");
        assertThat(full.delay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(full.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(full.onConflict()).isEqualTo(Message.Conflict.REPLACE);
        assertThat(full).isEqualTo(Message.of("v").onConflict(Message.Conflict.REPLACE).header("tenant", "acme")
                .delay(Duration.ofSeconds(5)).id("a"));
        assertThat(full.toString()).contains("a", "REPLACE", "1 header");
    }

    @Test
    void headersKeepTheOrderOfFirstSettingAndAreUnmodifiable() {
        Map<String, String> more = new LinkedHashMap<>();
        more.put("b", "2");
        more.put("a", "3");
        Message<String> m = Message.of("v").header("a", "1").headers(more).header("c", "4");
        assertThat(m.headers()).containsExactly(Map.entry("a", "3"), Map.entry("b", "2"), Map.entry("c", "4"));
        assertThatThrownBy(() -> m.headers().put("d", "5")).isInstanceOf(UnsupportedOperationException.class);
        more.put("z", "9");
        assertThat(m.headers()).as("a copy of the map given").doesNotContainKey("z");
    }

    @Test
    void nullsAreRejectedByName() {
        Message<String> m = Message.of("v");
        assertThatThrownBy(() -> Message.of(null)).isInstanceOf(NullPointerException.class).hasMessage("value");
        assertThatThrownBy(() -> m.id(null)).isInstanceOf(NullPointerException.class).hasMessage("id");
        assertThatThrownBy(() -> m.delay(null)).isInstanceOf(NullPointerException.class).hasMessage("delay");
        assertThatThrownBy(() -> m.header(null, "v")).isInstanceOf(NullPointerException.class)
                .hasMessage("header name");
        assertThatThrownBy(() -> m.header("tenant", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("header 'tenant' value");
        assertThatThrownBy(() -> m.headers(null)).isInstanceOf(NullPointerException.class).hasMessage("headers");
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("tenant", null);
        assertThatThrownBy(() -> m.headers(nullValue)).isInstanceOf(NullPointerException.class)
                .hasMessage("header 'tenant' value");
        assertThatThrownBy(() -> m.onConflict(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("conflict");
    }

    @Test
    void idsAndDelaysAreCheckedAsTheQueueChecksThem() {
        Message<String> m = Message.of("v");
        assertThatThrownBy(() -> m.id("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> m.id("x".repeat(DelayedQueue.MAX_ID_BYTES + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id").hasMessageContaining(String.valueOf(DelayedQueue.MAX_ID_BYTES));
        assertThatThrownBy(() -> m.id("a\uD800b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id").hasMessageContaining("U+D800");
        assertThatThrownBy(() -> m.delay(DelayedQueue.MAX_DELAY.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay")
                .hasMessageContaining("MAX_DELAY");
        assertThat(m.delay(Duration.ofMillis(-5)).delay()).as("negative: due now, kept as given")
                .isEqualTo(Duration.ofMillis(-5));
    }

    @Test
    void headerNamesAreTokensOfAtMostTheLimit() {
        Message<String> m = Message.of("v");
        assertThat(m.header("Content-Type", "x").header("a.b_c-9", "y").headers()).hasSize(2);
        String longest = "n".repeat(Message.MAX_HEADER_NAME_BYTES);
        assertThat(m.header(longest, "x").headers()).containsKey(longest);
        assertThatThrownBy(() -> m.header("", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name").hasMessageContaining("MAX_HEADER_NAME_BYTES");
        assertThatThrownBy(() -> m.header(longest + "n", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name").hasMessageContaining("MAX_HEADER_NAME_BYTES")
                .hasMessageContaining(String.valueOf(Message.MAX_HEADER_NAME_BYTES));
        for (String bad : new String[] {"with space", "colon:", "eq=", "hash#", "caf\u00e9", "tab\t", "slash/"}) {
            assertThatThrownBy(() -> m.header(bad, "x")).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("header name '" + bad + "'");
        }
    }

    @Test
    void headerValuesAreWellFormedUnicodeOfAtMostTheLimit() {
        Message<String> m = Message.of("v");
        String longest = "\u20ac".repeat(Message.MAX_HEADER_VALUE_BYTES / 3) + "x"; // 4,096 UTF-8 bytes
        assertThat(m.header("h", longest).headers()).containsEntry("h", longest);
        assertThat(m.header("h", "").headers()).containsEntry("h", "");
        assertThatThrownBy(() -> m.header("h", longest + "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header 'h' value").hasMessageContaining("MAX_HEADER_VALUE_BYTES")
                .hasMessageContaining("4097");
        assertThatThrownBy(() -> m.header("h", "a\uDC00")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header 'h' value").hasMessageContaining("U+DC00");
    }

    @Test
    void countAndTotalSizeOfHeadersAreLimited() {
        Message<String> m = Message.of("v");
        for (int i = 0; i < Message.MAX_HEADERS; i++) {
            m = m.header("h" + i, "");
        }
        Message<String> full = m;
        assertThat(full.header("h0", "replaced").headers()).as("setting a name again adds none")
                .hasSize(Message.MAX_HEADERS);
        assertThatThrownBy(() -> full.header("one-more", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("headers").hasMessageContaining("MAX_HEADERS")
                .hasMessageContaining(String.valueOf(Message.MAX_HEADERS));

        String value = "x".repeat(Message.MAX_HEADER_VALUE_BYTES - 2); // with a 2-byte name: 4,096 per header
        Message<String> twoFull = Message.of("v").header("h1", value).header("h2", value);
        assertThatThrownBy(() -> twoFull.header("h3", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MAX_HEADERS_BYTES").hasMessageContaining("8194");
        assertThat(twoFull.header("h2", "").header("h3", "x").headers()).as("a shorter value frees its bytes")
                .hasSize(3);
    }

    @Test
    void priorityIsAReservedHeaderInItsRange() {
        Message<String> m = Message.of("v");
        assertThat(m.priority()).isEqualTo(Message.DEFAULT_PRIORITY);
        Message<String> high = m.priority(Message.MAX_PRIORITY);
        assertThat(high.priority()).isEqualTo(1000);
        assertThat(high.headers()).containsEntry(Message.PRIORITY_HEADER, "1000");
        assertThat(m.priority(Message.MIN_PRIORITY).headers()).containsEntry("clockwork-priority", "-1000");
        assertThat(high.priority(0).headers()).as("the default priority needs no header").isEmpty();
        assertThat(high.priority(0)).isEqualTo(m);
        assertThat(m).as("a copy").extracting(Message::priority).isEqualTo(0);
        assertThatThrownBy(() -> m.priority(1001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priority must be in [-1000, 1000], was 1001");
        assertThatThrownBy(() -> m.priority(-1001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priority must be in [-1000, 1000], was -1001");
    }

    @Test
    void aPriorityHeaderSetDirectlyIsCheckedAsPriorityChecksIt() {
        Message<String> m = Message.of("v");
        assertThat(m.header(Message.PRIORITY_HEADER, "-7").priority()).isEqualTo(-7);
        assertThat(m.headers(Map.of(Message.PRIORITY_HEADER, "12")).priority()).isEqualTo(12);
        assertThatThrownBy(() -> m.header(Message.PRIORITY_HEADER, "high"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header clockwork-priority must be a decimal integer in [-1000, 1000]");
        assertThatThrownBy(() -> m.header(Message.PRIORITY_HEADER, "+5"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("canonical form");
        assertThatThrownBy(() -> m.header(Message.PRIORITY_HEADER, "2000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header clockwork-priority must be in [-1000, 1000], was 2000");
    }

    @Test
    void groupIsAReservedHeaderOfBoundedWellFormedText() {
        Message<String> m = Message.of("v");
        assertThat(m.group()).isEmpty();
        Message<String> g = m.group("tenant-42");
        assertThat(g.group()).contains("tenant-42");
        assertThat(g.headers()).containsEntry(Message.GROUP_HEADER, "tenant-42");
        assertThat(m.group("é".repeat(64)).group()).as("128 UTF-8 bytes").contains("é".repeat(64));
        assertThatThrownBy(() -> m.group("é".repeat(64) + "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group must be 1 to 128 UTF-8 bytes (Message.MAX_GROUP_BYTES), was 129");
        assertThatThrownBy(() -> m.group("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group must be 1 to 128 UTF-8 bytes");
        assertThatThrownBy(() -> m.group(null)).isInstanceOf(NullPointerException.class).hasMessage("group");
        assertThatThrownBy(() -> m.group("a\nb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group must not hold control characters; it has U+000A at index 1");
        assertThatThrownBy(() -> m.group("a\u0085")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("U+0085");
        assertThatThrownBy(() -> m.group("a\uD800b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group must be well-formed Unicode");
        assertThatThrownBy(() -> m.header(Message.GROUP_HEADER, "x\u0000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header clockwork-group must not hold control characters");
    }
}
