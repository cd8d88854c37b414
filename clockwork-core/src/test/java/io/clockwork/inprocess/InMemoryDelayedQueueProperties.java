package io.clockwork.inprocess;

import io.clockwork.queue.Codec;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.DelayedQueueBuilder;
import io.clockwork.testing.queue.DelayedQueueModelCheck;
import io.clockwork.time.ManualTicker;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;

import java.util.function.Consumer;

/** {@link DelayedQueueModelCheck} on {@link InMemoryDelayedQueue}, with time on a {@link ManualTicker}. */
class InMemoryDelayedQueueProperties extends DelayedQueueModelCheck {

    InMemoryDelayedQueueProperties() {
        super(true);
    }

    @Override
    protected DelayedQueue<String> newQueue(Consumer<DelayedQueueBuilder<String, ?>> options, ManualTicker ticker) {
        InMemoryDelayedQueue.Builder<String> builder =
                InMemoryDelayedQueue.<String>builder().codec(Codec.string()).ticker(ticker);
        options.accept(builder);
        return builder.build();
    }

    @Property(tries = 500)
    void inMemoryQueueAgreesWithTheModelAfterEveryCall(@ForAll("inMemoryChains") ActionChain<Run> chain) {
        check(chain);
    }

    @Provide
    Arbitrary<ActionChain<Run>> inMemoryChains() {
        return chains(60);
    }
}
