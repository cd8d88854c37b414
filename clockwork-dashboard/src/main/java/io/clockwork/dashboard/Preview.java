package io.clockwork.dashboard;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** A payload's preview: its text if it is printable UTF-8, else hex, cut to a bound. Stateless. */
final class Preview {

    private Preview() {
    }

    /**
     * @param payload  the bytes
     * @param maxChars at most this many characters of text (hex shows maxChars / 2 bytes)
     * @return e.g. {@code "order 42"} or {@code 0x00ff... (300 bytes)}
     */
    static String of(byte[] payload, int maxChars) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
            if (text.codePoints().noneMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\t')) {
                return text.length() <= maxChars ? text
                        : text.substring(0, maxChars) + "... (" + payload.length + " bytes)";
            }
        } catch (CharacterCodingException notText) {
            // hex below
        }
        int n = Math.min(payload.length, maxChars / 2);
        return "0x" + HexFormat.of().formatHex(payload, 0, n) + (n < payload.length ? "..." : "")
                + " (" + payload.length + " bytes)";
    }
}
