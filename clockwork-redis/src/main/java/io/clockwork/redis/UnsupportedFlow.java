package io.clockwork.redis;

import java.util.Map;

/**
 * The flow control the Redis backend refuses rather than ignores: a message group (the header {@value #GROUP_HEADER})
 * would be stored and delivered without the round robin it asks for, so an offer carrying one fails before anything
 * is sent. Stateless and thread-safe.
 */
final class UnsupportedFlow {

    /** The header naming a message's group. */
    static final String GROUP_HEADER = "clockwork-group";

    private UnsupportedFlow() {
    }

    /**
     * @param headers a message's headers
     * @throws UnsupportedOperationException if they ask for what the Redis backend does not do
     */
    static void check(Map<String, String> headers) {
        if (headers.containsKey(GROUP_HEADER)) {
            throw new UnsupportedOperationException("message groups (header " + GROUP_HEADER
                    + ") are not supported by the Redis backend; offer the message without a group, or use the"
                    + " in-process queue");
        }
    }
}
