package io.clockwork.queue;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CodecTest {

    @Test
    void stringCodecFailsToEncodeUnpairedSurrogatesInsteadOfWritingQuestionMarks() {
        Codec<String> codec = Codec.string();
        String longPrefix = "x".repeat(37); // puts the bad char past the first eight-byte words of the payload
        List<String> malformed = List.of("\uD800", "\uDC00", "a\uD800b", "a\uDC00b", "ab\uDBFF",
                "\uDC00\uD800", "why?\uD800", longPrefix + "\uDFFF" + longPrefix, "é€\uD83D");
        for (String bad : malformed) {
            assertThatThrownBy(() -> codec.encode(bad))
                    .as("%s", bad.chars().mapToObj(Integer::toHexString).toList())
                    .isInstanceOf(CodecException.class)
                    .hasMessageContaining("Codec.string()").hasMessageContaining("unpaired surrogate")
                    .hasMessageContaining("index " + firstLoneSurrogate(bad));
        }

        // Well-formed text, '?' included, encodes to exactly the UTF-8 bytes and back.
        List<String> wellFormed = List.of("", "?", "a?b", "plain ascii " + longPrefix, "é€\uD83D\uDE00?",
                longPrefix + "?" + longPrefix + "\uDBFF\uDFFF");
        for (String good : wellFormed) {
            byte[] bytes = codec.encode(good);
            assertThat(bytes).isEqualTo(good.getBytes(StandardCharsets.UTF_8));
            assertThat(codec.decode(bytes)).isEqualTo(good);
        }
    }

    private static int firstLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}
