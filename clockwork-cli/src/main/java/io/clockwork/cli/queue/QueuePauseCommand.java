package io.clockwork.cli.queue;

import io.clockwork.queue.DelayedQueue;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code clockwork queue pause}: pauses delivery for every consumer. Not thread-safe: one per command line. */
@Command(name = "pause", mixinStandardHelpOptions = true,
        description = "Pauses the queue for every consumer, until 'queue resume': polls take nothing (within one "
                + "poll wait), while offers, schedules and the acks of deliveries already made go on. The pause is "
                + "stored with the queue.")
public final class QueuePauseCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return target.apply(spec, DelayedQueue::pause, "paused");
    }
}
