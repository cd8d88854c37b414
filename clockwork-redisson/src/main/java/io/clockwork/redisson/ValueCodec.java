package io.clockwork.redisson;

import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * The Redisson face's default codec: strings, the boxed primitives and byte arrays, each as a one-byte type tag and
 * its bytes (big-endian numbers, strict UTF-8 strings). Thread-safe and stateless.
 *
 * <p>Equal values encode to equal bytes, which the face's {@code contains} and {@code remove(Object)} rely on, and
 * every value decodes to its own type ({@code 1} stays an {@code Integer}, {@code 1L} a {@code Long}). Any other
 * type is refused with a {@link CodecException} naming it: pass a {@link Codec} for it to
 * {@link RedissonClient#getBlockingQueue(String, Codec)} (Clockwork does not use Java serialization, whose
 * deserialization runs code chosen by whoever wrote the bytes).
 */
public final class ValueCodec implements Codec<Object> {

    /** The one instance. */
    public static final ValueCodec INSTANCE = new ValueCodec();

    private ValueCodec() {
    }

    @Override
    public byte[] encode(Object value) {
        Objects.requireNonNull(value, "value");
        if (value instanceof String s) {
            return tagged('S', Codec.string().encode(s));
        } else if (value instanceof Integer i) {
            return ByteBuffer.allocate(5).put((byte) 'I').putInt(i).array();
        } else if (value instanceof Long l) {
            return ByteBuffer.allocate(9).put((byte) 'J').putLong(l).array();
        } else if (value instanceof Double d) {
            return ByteBuffer.allocate(9).put((byte) 'D').putDouble(d).array();
        } else if (value instanceof Float f) {
            return ByteBuffer.allocate(5).put((byte) 'F').putFloat(f).array();
        } else if (value instanceof Short s) {
            return ByteBuffer.allocate(3).put((byte) 'H').putShort(s).array();
        } else if (value instanceof Character c) {
            return ByteBuffer.allocate(3).put((byte) 'C').putChar(c).array();
        } else if (value instanceof Byte b) {
            return new byte[] {'B', b};
        } else if (value instanceof Boolean b) {
            return new byte[] {'Z', (byte) (b ? 1 : 0)};
        } else if (value instanceof byte[] bytes) {
            return tagged('b', bytes);
        }
        throw new CodecException("ValueCodec: cannot encode a " + value.getClass().getName()
                + " (it encodes String, the boxed primitives and byte[]); pass a Codec for it", null);
    }

    @Override
    public Object decode(byte[] bytes) {
        if (bytes.length == 0) {
            throw new CodecException("ValueCodec: empty payload (no type tag)", null);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
        char tag = (char) bytes[0];
        int size = bytes.length - 1;
        switch (tag) {
            case 'S':
                return Codec.string().decode(Arrays.copyOfRange(bytes, 1, bytes.length));
            case 'b':
                return Arrays.copyOfRange(bytes, 1, bytes.length);
            case 'I':
                return size == 4 ? (Object) b.getInt() : bad(tag, size);
            case 'J':
                return size == 8 ? (Object) b.getLong() : bad(tag, size);
            case 'D':
                return size == 8 ? (Object) b.getDouble() : bad(tag, size);
            case 'F':
                return size == 4 ? (Object) b.getFloat() : bad(tag, size);
            case 'H':
                return size == 2 ? (Object) b.getShort() : bad(tag, size);
            case 'C':
                return size == 2 ? (Object) b.getChar() : bad(tag, size);
            case 'B':
                return size == 1 ? (Object) bytes[1] : bad(tag, size);
            case 'Z':
                return size == 1 && (bytes[1] & ~1) == 0 ? (Object) (bytes[1] == 1) : bad(tag, size);
            default:
                throw new CodecException("ValueCodec: unknown type tag 0x" + Integer.toHexString(bytes[0] & 0xff)
                        + " (not written by ValueCodec)", null);
        }
    }

    private static Object bad(char tag, int size) {
        throw new CodecException("ValueCodec: a '" + tag + "' value cannot be " + size + " bytes long", null);
    }

    private static byte[] tagged(char tag, byte[] body) {
        byte[] out = new byte[body.length + 1];
        out[0] = (byte) tag;
        System.arraycopy(body, 0, out, 1, body.length);
        return out;
    }

    @Override
    public String toString() {
        return "ValueCodec";
    }
}
