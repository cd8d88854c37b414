package io.clockwork.cli.queue;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code clockwork queue peek}: what the queue will do next, in one line. Not thread-safe: one per command line. */
@Command(name = "peek", mixinStandardHelpOptions = true,
        description = {"Prints one line: how many messages a consumer would get right now, when the next delayed "
                + "one falls due, and the oldest dead letter.",
            "Nothing is taken: taking a message would put it in flight, so peek never polls."})
public final class QueuePeekCommand implements Callable<Integer> {

    @Mixin
    QueueTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (DelayedQueue<byte[]> q = target.open()) {
            QueueStats st = target.stats(q);
            List<DeadLetter> oldest = st.dead() > 0 ? q.deadLetters(1) : List.of();
            out.println(String.format(Locale.ROOT, "%s: %,d ready now; next due in %s; %,d delayed, %,d in flight, "
                    + "%,d dead%s", target.describe(), st.ready(), QueueTarget.dueIn(st), st.delayed(), st.inFlight(),
                    st.dead(), oldest.isEmpty() ? ""
                            : "; oldest dead letter " + oldest.get(0).id() + " (" + oldest.get(0).reason() + ")"));
        }
        out.flush();
        return 0;
    }
}
