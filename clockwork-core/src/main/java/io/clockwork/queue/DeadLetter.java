package io.clockwork.queue;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message in the dead-letter set, kept as raw bytes so that even a value the codec cannot decode can be
 * inspected and requeued. Immutable.
 *
 * @param id       the message id
 * @param payload  the encoded value (a copy)
 * @param attempts how many times it was delivered
 * @param reason   why it died, e.g. "maxAttempts (5) reached" or the codec's error
 * @param headers  the message's headers ({@link Message#headers()}), unmodifiable; empty if none
 */
public record DeadLetter(String id, byte[] payload, int attempts, String reason, Map<String, String> headers) {

    /**
     * The longest reason a consumer can give ({@link Delivery#deadLetter(String)},
     * {@link Delivery#nack(java.time.Duration, String)}), in chars: a longer one is cut to this length, its end
     * replaced by {@link #TRUNCATED}, so that a stack trace or a huge message cannot bloat the dead letters.
     */
    public static final int MAX_REASON_LENGTH = 1024;

    /** What ends a reason cut to {@link #MAX_REASON_LENGTH}. */
    public static final String TRUNCATED = "... [truncated]";

    /** Validates and copies. */
    public DeadLetter {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(reason, "reason");
        payload = Objects.requireNonNull(payload, "payload").clone();
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(headers, "headers")));
    }

    /**
     * A dead letter without headers.
     *
     * @param id       the message id
     * @param payload  the encoded value (a copy)
     * @param attempts how many times it was delivered
     * @param reason   why it died
     */
    public DeadLetter(String id, byte[] payload, int attempts, String reason) {
        this(id, payload, attempts, reason, Map.of());
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d && id.equals(d.id) && Arrays.equals(payload, d.payload)
                && attempts == d.attempts && reason.equals(d.reason) && headers.equals(d.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, Arrays.hashCode(payload), attempts, reason, headers);
    }

    @Override
    public String toString() {
        return "DeadLetter[" + id + ", " + payload.length + " bytes, attempts=" + attempts + ", " + reason
                + (headers.isEmpty() ? "" : ", " + headers.size() + " header(s)") + "]";
    }
}
