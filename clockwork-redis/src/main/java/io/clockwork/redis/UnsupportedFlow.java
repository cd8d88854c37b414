package io.clockwork.redis;

import io.clockwork.queue.Message;
import io.clockwork.queue.QueueOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The flow control the Redis backend refuses rather than ignores: message groups (the header {@value
 * Message#GROUP_HEADER}), a per-group rate limit, a per-group in-flight limit and group weights would be stored or set
 * and then not kept, so an offer carrying a group fails before anything is sent, and {@link RedisQueueBuilder#build()}
 * fails before it connects. Priorities ({@link Priorities}) and the queue-wide rate limit ({@link StoredRateLimit})
 * are supported. Stateless and thread-safe.
 */
final class UnsupportedFlow {

    private UnsupportedFlow() {
    }

    /**
     * @param headers a message's headers
     * @throws UnsupportedOperationException if they name a group
     */
    static void check(Map<String, String> headers) {
        if (headers.containsKey(Message.GROUP_HEADER)) {
            throw new UnsupportedOperationException("message groups (header " + Message.GROUP_HEADER
                    + ") are not supported by the Redis backend; offer the message without a group, or use the"
                    + " in-process queue");
        }
    }

    /**
     * @param options a queue's options
     * @throws UnsupportedOperationException naming each flow-control option set that the backend does not keep
     */
    static void check(QueueOptions<?> options) {
        List<String> set = new ArrayList<>();
        options.groupRateLimit().ifPresent(r -> set.add("groupRateLimit"));
        options.maxInFlightPerGroup().ifPresent(n -> set.add("maxInFlightPerGroup"));
        if (!options.groupWeights().isEmpty()) {
            set.add("groupWeight");
        }
        if (set.isEmpty()) {
            return;
        }
        throw new UnsupportedOperationException("queue '" + options.name() + "': " + String.join(", ", set)
                + (set.size() == 1 ? " is" : " are") + " not supported by the Redis backend; build the queue without"
                + " it, or use the in-process queue");
    }
}
