package io.clockwork.cli.queue;

import io.clockwork.cli.Arguments;
import io.clockwork.queue.DelayedQueue;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code clockwork queue cancel}: removes live messages by id. Not thread-safe: one per command line. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Cancels messages by id: removes them if delayed, ready or in flight (the consumer's ack then "
                + "fails). Exit 1 if any id was not cancelled (unknown, dead, acked or already cancelled).")
public final class QueueCancelCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Parameters(paramLabel = "ID", arity = "1..*", converter = Arguments.MessageId.class,
            description = "Message ids.")
    List<String> ids;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return IdAction.run(target, spec, ids, "cancelled", "unknown, dead, acked or already cancelled", DelayedQueue::cancel);
    }
}
