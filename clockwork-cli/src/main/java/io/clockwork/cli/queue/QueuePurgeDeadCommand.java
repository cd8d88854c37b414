package io.clockwork.cli.queue;

import io.clockwork.queue.DelayedQueue;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code clockwork queue purge-dead}: deletes every dead letter. Not thread-safe: one per command line. */
@Command(name = "purge-dead", mixinStandardHelpOptions = true,
        description = "Deletes every dead letter of the queue, for good. Needs --yes, because it cannot be undone "
                + "(see list first).")
public final class QueuePurgeDeadCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Option(names = "--yes", description = "Confirm the deletion.")
    boolean yes;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!yes) {
            throw new ParameterException(spec.commandLine(), "purge-dead deletes dead letters for good; add --yes");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (DelayedQueue<byte[]> q = target.open()) {
            long purged = q.purgeDead();
            out.println(String.format(Locale.ROOT, "purged %,d dead letter%s of %s", purged, purged == 1 ? "" : "s",
                    target.describe()));
        }
        out.flush();
        return 0;
    }
}
