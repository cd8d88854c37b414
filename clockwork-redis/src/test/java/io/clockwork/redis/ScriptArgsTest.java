package io.clockwork.redis;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The arguments the client builds for the scripts, byte for byte as the scripts build them. */
class ScriptArgsTest {

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aMemberIsTheSequenceAsSixteenLowercaseHexDigitsThenTheId() {
        // string.format('%016x', seq) .. id in common.lua
        assertThat(s(ScriptArgs.member(0, "a"))).isEqualTo("0000000000000000a");
        assertThat(s(ScriptArgs.member(0xbeefL, "id-1"))).isEqualTo("000000000000beefid-1");
        assertThat(s(ScriptArgs.member(1L << 52, "x"))).isEqualTo("0010000000000000x");
        assertThat(s(ScriptArgs.member(7, "ü\u0000z"))).isEqualTo("0000000000000007ü\u0000z");
    }

    @Test
    void aTakenMessageIsReadFromItsMetaValue() {
        ScriptReplies.Taken t = ScriptReplies.Taken.parse(
                "D 0 00000000000000ff:payload: with colons".getBytes(StandardCharsets.UTF_8));
        assertThat(t.attempt()).as("attempts counts the deliveries before this one").isEqualTo(1);
        assertThat(t.receipt()).isEqualTo(255L);
        assertThat(s(t.payload())).isEqualTo("payload: with colons");

        byte[] binary = {'D', ' ', '4', '2', ' ', '1', '0', ':', 0, (byte) 0xff, ':'};
        t = ScriptReplies.Taken.parse(binary);
        assertThat(t.attempt()).isEqualTo(43);
        assertThat(t.receipt()).isEqualTo(16L);
        assertThat(t.payload()).containsExactly(0, 0xff, ':');

        assertThat(ScriptReplies.Taken.parse("D 0 1:".getBytes(StandardCharsets.UTF_8)).payload()).isEmpty();
    }

    @Test
    void aValueThatIsNoMetaValueIsRejected() {
        for (String bad : new String[] {"", "D", "D 0 12", "D x 1:p", "D 0 1g:p"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> ScriptReplies.Taken.parse(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aTailCarriesHeadersInOrderAndReadsBackWhateverTheirBytes() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-abc-01");
        headers.put("empty", "");
        headers.put("tricky", "a=1:b#2!c\u0000\u00e9\uD83D\uDE00");
        byte[] tail = Tail.of(headers, new byte[] {':', '#', 0});
        Tail.Parsed parsed = Tail.parse(tail, 0);
        assertThat(parsed.headers()).containsExactlyEntriesOf(headers);
        assertThat(Arrays.copyOfRange(tail, parsed.payloadStart(), tail.length)).containsExactly(':', '#', 0);
        assertThat(s(Tail.of(Map.of(), "p".getBytes(StandardCharsets.UTF_8)))).as("no headers: no block")
                .isEqualTo(":p");
        assertThat(s(Tail.of(Map.of("a", "xy"), new byte[0]))).isEqualTo("#6#a=2:xy:");
    }

    @Test
    void aTakenMessageReadsItsHeadersAfterALastError() {
        ScriptReplies.Taken t = ScriptReplies.Taken.parse(
                "D 2 000000000000000a!3!e:##8#k=4:v:#!:p:q".getBytes(StandardCharsets.UTF_8));
        assertThat(t.attempt()).isEqualTo(3);
        assertThat(t.receipt()).isEqualTo(10L);
        assertThat(t.headers()).containsExactly(Map.entry("k", "v:#!"));
        assertThat(s(t.payload())).isEqualTo("p:q");
        assertThat(ScriptReplies.Taken.parse("D 0 1:p".getBytes(StandardCharsets.UTF_8)).headers()).isEmpty();
        for (String bad : new String[] {"D 0 1#", "D 0 1#9#k=1:v:p", "D 0 1#4#k=9:v:p", "D 0 1#x#:p"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> ScriptReplies.Taken.parse(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad).isInstanceOf(IllegalStateException.class);
        }
    }
}
