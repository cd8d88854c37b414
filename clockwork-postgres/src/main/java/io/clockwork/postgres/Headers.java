package io.clockwork.postgres;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message's headers as the {@code headers bytea} column holds them: a count, then each name and value in Java's
 * modified UTF-8 ({@link DataOutputStream#writeUTF}), in order; no headers is SQL NULL. Bytes rather than
 * {@code jsonb}: a header value may hold U+0000, which {@code jsonb} and {@code text} refuse, and the bytes are
 * smaller (no keys' quoting, no jsonb header). Stateless and thread-safe.
 */
final class Headers {

    private Headers() {
    }

    /**
     * @param headers the headers, checked by {@link io.clockwork.queue.Message}
     * @return their bytes; null if there are none
     */
    static byte[] encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 * headers.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(headers.size());
            for (Map.Entry<String, String> e : headers.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * @param bytes what {@link #encode} made, or null
     * @return the headers, unmodifiable, in their order; empty for null
     */
    static Map<String, String> decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return Map.of();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readUnsignedShort();
            Map<String, String> headers = new LinkedHashMap<>(n * 2);
            for (int i = 0; i < n; i++) {
                headers.put(in.readUTF(), in.readUTF());
            }
            return Collections.unmodifiableMap(headers);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt headers column (" + bytes.length + " bytes)", e);
        }
    }
}
