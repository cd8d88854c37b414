package io.clockwork.cli.queue;

import io.clockwork.queue.DelayedQueue;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code clockwork queue resume}: ends a pause. Not thread-safe: one per command line. */
@Command(name = "resume", mixinStandardHelpOptions = true,
        description = "Ends a pause: waiting consumers wake and take what is due.")
public final class QueueResumeCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return target.apply(spec, DelayedQueue::resume, "resumed");
    }
}
