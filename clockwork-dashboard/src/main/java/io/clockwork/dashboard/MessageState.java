package io.clockwork.dashboard;

import java.util.Locale;
import java.util.Optional;

/** Where a message is, as the dashboard lists it. Immutable and thread-safe. */
public enum MessageState {
    /** scheduled and due, waiting for a consumer */
    READY("Ready"),
    /** scheduled, not due yet */
    DELAYED("Delayed"),
    /** delivered, waiting for its ack */
    IN_FLIGHT("In flight"),
    /** dead letter */
    DEAD("Dead");

    private final String label;

    MessageState(String label) {
        this.label = label;
    }

    /** @return the name shown on pages */
    public String label() {
        return label;
    }

    /** @return the name in URLs, e.g. {@code in-flight} */
    public String slug() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @param slug a {@link #slug()}
     * @return the state, or empty if none has this slug
     */
    public static Optional<MessageState> ofSlug(String slug) {
        for (MessageState s : values()) {
            if (s.slug().equals(slug)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
