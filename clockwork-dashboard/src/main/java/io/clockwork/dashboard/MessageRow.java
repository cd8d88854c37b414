package io.clockwork.dashboard;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One message as the dashboard shows it. Immutable and thread-safe (the payload array is copied in and out).
 *
 * @param id       its id
 * @param state    where it is
 * @param at       its due time (ready, delayed), visibility deadline (in flight) or time of death (dead), if known
 * @param attempts deliveries before its current scheduling
 * @param headers  its headers
 * @param payload  its payload bytes
 * @param error    the last error recorded, or why it died; empty if none
 */
public record MessageRow(String id, MessageState state, Optional<Instant> at, int attempts,
                         Map<String, String> headers, byte[] payload, String error) {

    /** Checks and copies the arguments. */
    public MessageRow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(at, "at");
        headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
        payload = Objects.requireNonNull(payload, "payload").clone();
        error = error == null ? "" : error;
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }
}
