package io.clockwork.queue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Turns message values into bytes and back. Implementations must be thread-safe and stateless.
 *
 * <p>A codec signals failure by throwing; the queue wraps the error in a {@link CodecException}. An encode
 * failure rejects the offer and stores nothing; a decode failure moves that one message to the dead letters, with
 * the error as its reason, and the queue goes on.
 *
 * @param <V> the value type
 */
public interface Codec<V> {

    /**
     * @param value a non-null value
     * @return its bytes
     */
    byte[] encode(V value);

    /**
     * @param bytes what {@link #encode} produced
     * @return the value
     */
    V decode(byte[] bytes);

    /**
     * The strict UTF-8 codec: a string with an unpaired surrogate fails to encode, and malformed bytes fail to decode,
     * each with a {@link CodecException}, rather than turning into '?' or U+FFFD. So every value it accepts comes
     * back equal, and no two different values share a payload.
     *
     * @return the codec
     */
    static Codec<String> string() {
        return StringCodec.INSTANCE;
    }

    /** @return the identity codec for byte arrays (it copies, so callers may reuse their arrays) */
    static Codec<byte[]> bytes() {
        return BytesCodec.INSTANCE;
    }

    /** Strict UTF-8. */
    enum StringCodec implements Codec<String> {
        INSTANCE;

        @Override
        public byte[] encode(String value) {
            Objects.requireNonNull(value, "value");
            // The JDK's encoder is the fast path; it writes '?' for an unpaired surrogate, so bytes without a '?'
            // prove the string well-formed, and only strings with a '?' pay for the walk over their chars.
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            if (Utf8.containsQuestionMark(bytes)) {
                int checked = Utf8.encodedLength(value);
                if (checked < 0) {
                    throw new CodecException("Codec.string(): value is not well-formed Unicode, so UTF-8 cannot encode"
                            + " it: " + Utf8.describeUnpaired(value, checked), null);
                }
            }
            return bytes;
        }

        @Override
        public String decode(byte[] bytes) {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw new CodecException("Codec.string(): payload is not valid UTF-8 (" + e + ")", e);
            }
        }

        @Override
        public String toString() {
            return "Codec.string()";
        }
    }

    /** Byte arrays, copied. */
    enum BytesCodec implements Codec<byte[]> {
        INSTANCE;

        @Override
        public byte[] encode(byte[] value) {
            return Objects.requireNonNull(value, "value").clone();
        }

        @Override
        public byte[] decode(byte[] bytes) {
            return bytes.clone();
        }

        @Override
        public String toString() {
            return "Codec.bytes()";
        }
    }
}
