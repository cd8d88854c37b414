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

    /** @return the strict UTF-8 codec: malformed input fails to decode rather than turning into U+FFFD */
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
            return value.getBytes(StandardCharsets.UTF_8);
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
