package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Operators' delays, payload previews, escaping and loopback checks. */
class TextsTest {

    @Test
    void delaysReadAsOperatorsTypeThem() {
        assertThat(Texts.delay("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Texts.delay(" 5m ")).isEqualTo(Duration.ofMinutes(5));
        assertThat(Texts.delay("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Texts.delay("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThat(Texts.delay("0")).isZero();
        assertThatThrownBy(() -> Texts.delay("soon")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay must be");
        assertThatThrownBy(() -> Texts.delay("-5s")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void payloadsPreviewAsTextOrHexAndAreCut() {
        assertThat(Preview.of("order 42".getBytes(), 80)).isEqualTo("order 42");
        assertThat(Preview.of(new byte[] {0, (byte) 0xff, 1}, 80)).isEqualTo("0x00ff01 (3 bytes)");
        assertThat(Preview.of("x".repeat(100).getBytes(), 10)).isEqualTo("xxxxxxxxxx... (100 bytes)");
    }

    @Test
    void markupIsEscaped() {
        assertThat(Html.esc("<script>\"'&")).isEqualTo("&lt;script&gt;&quot;&#39;&amp;");
    }

    @Test
    void onlyLoopbackAddressesAreLoopback() {
        assertThat(Dashboard.loopbackAddress("127.0.0.1")).isTrue();
        assertThat(Dashboard.loopbackAddress("::1")).isTrue();
        assertThat(Dashboard.loopbackAddress("[::1]")).isTrue();
        assertThat(Dashboard.loopbackAddress("localhost")).isTrue();
        assertThat(Dashboard.loopbackAddress("0.0.0.0")).isFalse();
        assertThat(Dashboard.loopbackAddress("10.1.2.3")).isFalse();
        assertThat(Dashboard.loopbackAddress("evil.example")).isFalse();
    }
}
