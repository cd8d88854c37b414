package io.clockwork.queue;

import java.util.Arrays;
import java.util.Objects;

/**
 * A message in the dead-letter set, kept as raw bytes so that even a value the codec cannot decode can be
 * inspected and requeued. Immutable.
 *
 * @param id       the message id
 * @param payload  the encoded value (a copy)
 * @param attempts how many times it was delivered
 * @param reason   why it died, e.g. "maxAttempts (5) reached" or the codec's error
 */
public record DeadLetter(String id, byte[] payload, int attempts, String reason) {

    /** Validates and copies. */
    public DeadLetter {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(reason, "reason");
        payload = Objects.requireNonNull(payload, "payload").clone();
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d && id.equals(d.id) && Arrays.equals(payload, d.payload)
                && attempts == d.attempts && reason.equals(d.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, Arrays.hashCode(payload), attempts, reason);
    }

    @Override
    public String toString() {
        return "DeadLetter[" + id + ", " + payload.length + " bytes, attempts=" + attempts + ", " + reason + "]";
    }
}
