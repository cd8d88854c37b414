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

/** {@code clockwork queue promote}: makes delayed messages due now. Not thread-safe: one per command line. */
@Command(name = "promote", mixinStandardHelpOptions = true,
        description = "Makes delayed messages due now, keeping their ids, values, headers and attempts. Exit 1 if "
                + "any id was not promoted (unknown, in flight, dead or gone).")
public final class QueuePromoteCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Parameters(paramLabel = "ID", arity = "1..*", converter = Arguments.MessageId.class,
            description = "Message ids.")
    List<String> ids;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return IdAction.run(target, spec, ids, "promoted", "unknown, in flight, dead or gone", DelayedQueue::promote);
    }
}
