package io.clockwork.redis;

import io.clockwork.queue.Message;
import io.clockwork.queue.QueueOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The flow control the Redis backend refuses rather than ignores: message groups (the header {@value
 * Message#GROUP_HEADER}), rate limits, a per-group in-flight limit and group weights would be stored or set and then
 * not kept, so an offer carrying a group fails before anything is sent, and {@link RedisQueueBuilder#build()} fails
 * before it connects. Priorities are supported ({@link Priorities}). Stateless and thread-safe.
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
     * @throws UnsupportedOperationException naming each flow-control option set, if any
     */
    static void check(QueueOptions<?> options) {
        if (!options.hasFlowControl()) {
            return;
        }
        List<String> set = new ArrayList<>();
        options.rateLimit().ifPresent(r -> set.add("rateLimit"));
        options.groupRateLimit().ifPresent(r -> set.add("groupRateLimit"));
        options.maxInFlightPerGroup().ifPresent(n -> set.add("maxInFlightPerGroup"));
        if (!options.groupWeights().isEmpty()) {
            set.add("groupWeight");
        }
        throw new UnsupportedOperationException("queue '" + options.name() + "': " + String.join(", ", set)
                + (set.size() == 1 ? " is" : " are") + " not supported by the Redis backend; build the queue without"
                + " it, or use the in-process queue");
    }
}
