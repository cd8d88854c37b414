package io.clockwork.redis;

import io.clockwork.queue.Message;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tail of a message's META value, {@code [!<n>!<error>][#<h>#<headers>]:<payload>} (see
 * {@code include/meta.lua}): the client writes it on offer and reads headers and payload back from polls and dead
 * letters. Stateless and thread-safe.
 *
 * <p>The header block is {@code #<h>#} followed by h bytes, each header {@code <name>=<value bytes>:<value>} in the
 * message's order, except that a priority ({@link Message#PRIORITY_HEADER}) comes first and a group ({@link
 * Message#GROUP_HEADER}) right after it (or first, without a priority), so that a script reads them without walking
 * the block ({@code include/priority.lua}, {@code include/group_tail.lua}). Names are tokens (letters, digits, {@code -_.}), so
 * {@code '='} ends one; a value is counted, so it may hold any byte. A message without headers has no block: its tail
 * is {@code :<payload>}.
 */
final class Tail {

    private Tail() {
    }

    /**
     * @param headers the headers, checked by {@link io.clockwork.queue.Message}; empty: no block
     * @param payload the encoded value
     * @return {@code [#<h>#<headers>]:<payload>}
     */
    static byte[] of(Map<String, String> headers, byte[] payload) {
        if (headers.isEmpty()) {
            byte[] tail = new byte[1 + payload.length];
            tail[0] = ':';
            System.arraycopy(payload, 0, tail, 1, payload.length);
            return tail;
        }
        StringBuilder block = new StringBuilder();
        String priority = headers.get(Message.PRIORITY_HEADER);
        if (priority != null) {
            header(block, Message.PRIORITY_HEADER, priority); // first: where include/priority.lua looks for it
        }
        String group = headers.get(Message.GROUP_HEADER);
        if (group != null) {
            header(block, Message.GROUP_HEADER, group); // next: where include/group_tail.lua looks for it
        }
        for (Map.Entry<String, String> e : headers.entrySet()) {
            if (!e.getKey().equals(Message.PRIORITY_HEADER) && !e.getKey().equals(Message.GROUP_HEADER)) {
                header(block, e.getKey(), e.getValue());
            }
        }
        byte[] b = block.toString().getBytes(StandardCharsets.UTF_8);
        byte[] prefix = ("#" + b.length + "#").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = new byte[prefix.length + b.length + 1 + payload.length];
        System.arraycopy(prefix, 0, tail, 0, prefix.length);
        System.arraycopy(b, 0, tail, prefix.length, b.length);
        tail[prefix.length + b.length] = ':';
        System.arraycopy(payload, 0, tail, prefix.length + b.length + 1, payload.length);
        return tail;
    }

    private static void header(StringBuilder block, String name, String value) {
        block.append(name).append('=').append(value.getBytes(StandardCharsets.UTF_8).length).append(':').append(value);
    }

    /**
     * A tail read: its headers and where its payload starts.
     *
     * @param headers      unmodifiable, in order; empty if the tail has no block
     * @param payloadStart the index of the payload's first byte (one past the {@code ':'})
     */
    record Parsed(Map<String, String> headers, int payloadStart) {
    }

    /**
     * Reads a tail that starts at {@code from}: skips a last error, reads a header block.
     *
     * @param v    the bytes holding the tail (a META value, or a dead letter's tail)
     * @param from where the tail starts
     * @return its headers and the payload's start
     * @throws IllegalStateException if the bytes are not a tail
     */
    static Parsed parse(byte[] v, int from) {
        int i = from;
        if (i < v.length && v[i] == '!') {
            int[] n = number(v, i + 1, '!');
            i = n[1] + 1 + n[0]; // past the second '!' and the error
        }
        Map<String, String> headers = Map.of();
        if (i < v.length && v[i] == '#') {
            int[] n = number(v, i + 1, '#');
            int start = n[1] + 1;
            int end = start + n[0];
            if (end > v.length) {
                throw notTail(v);
            }
            headers = headers(v, start, end);
            i = end;
        }
        if (i >= v.length || v[i] != ':') {
            throw notTail(v);
        }
        return new Parsed(headers, i + 1);
    }

    private static Map<String, String> headers(byte[] v, int start, int end) {
        Map<String, String> headers = new LinkedHashMap<>();
        int i = start;
        while (i < end) {
            int eq = i;
            while (eq < end && v[eq] != '=') {
                eq++;
            }
            int[] n = number(v, eq + 1, ':');
            int valueStart = n[1] + 1;
            int valueEnd = valueStart + n[0];
            if (eq >= end || valueEnd > end) {
                throw notTail(v);
            }
            headers.put(new String(v, i, eq - i, StandardCharsets.US_ASCII),
                    new String(v, valueStart, n[0], StandardCharsets.UTF_8));
            i = valueEnd;
        }
        return Collections.unmodifiableMap(headers);
    }

    /** @return {the decimal number at {@code from}, the index of the {@code end} byte after it} */
    private static int[] number(byte[] v, int from, char end) {
        int n = 0;
        int i = from;
        for (; i < v.length && v[i] != end; i++) {
            int d = Character.digit(v[i], 10);
            if (d < 0) {
                throw notTail(v);
            }
            n = Math.addExact(Math.multiplyExact(n, 10), d);
        }
        if (i == from || i >= v.length) {
            throw notTail(v);
        }
        return new int[] {n, i};
    }

    private static IllegalStateException notTail(byte[] v) {
        return new IllegalStateException("not a META value: "
                + new String(v, 0, Math.min(v.length, 40), StandardCharsets.UTF_8));
    }
}
