package io.clockwork.spring;

import io.clockwork.json.JsonCodec;
import io.clockwork.queue.Codec;
import java.util.Objects;

/**
 * Chooses the {@link Codec} of a queue's value type. Implementations must be thread-safe. The default encodes
 * {@code String} as UTF-8, {@code byte[]} as is and everything else (records, POJOs) as JSON through
 * clockwork-json's {@link JsonCodec}; define a bean of this type to choose otherwise.
 */
@FunctionalInterface
public interface ClockworkCodecs {

    /**
     * @param type the value type
     * @param <V>  the value type
     * @return its codec
     */
    <V> Codec<V> codecFor(Class<V> type);

    /** @return the default: strings as UTF-8, bytes as they are, anything else as JSON */
    static ClockworkCodecs defaults() {
        return new ClockworkCodecs() {
            @Override
            @SuppressWarnings("unchecked")
            public <V> Codec<V> codecFor(Class<V> type) {
                Objects.requireNonNull(type, "type");
                if (type == String.class) {
                    return (Codec<V>) Codec.string();
                }
                if (type == byte[].class) {
                    return (Codec<V>) Codec.bytes();
                }
                return JsonCodec.of(type);
            }
        };
    }
}
