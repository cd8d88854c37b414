package io.clockwork.cli.queue;

import io.clockwork.cli.Arguments;
import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code clockwork queue requeue-dead}: gives dead letters another chance. Not thread-safe: one per command line. */
@Command(name = "requeue-dead", mixinStandardHelpOptions = true,
        description = "Makes dead letters deliverable again, due now, with their attempt count reset: the given ids, "
                + "or every dead letter with --all. Exit 1 if a given id was not dead.")
public final class QueueRequeueDeadCommand implements Callable<Integer> {

    private static final int BATCH = 1000;

    @Mixin
    QueueTarget target;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    @Spec
    CommandSpec spec;

    /** Ids or --all, exactly one of them. */
    static final class Which {
        @Parameters(paramLabel = "ID", arity = "1..*", converter = Arguments.MessageId.class,
                description = "Dead letters' ids.")
        List<String> ids;

        @Option(names = "--all", required = true, description = "Requeue every dead letter.")
        boolean all;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int missed = 0;
        try (DelayedQueue<byte[]> q = target.open()) {
            long dead = target.stats(q).dead();
            if (which.all) {
                long requeued = 0;
                // Each pass requeues what it lists, so the next pass lists the next batch; stop when one finds none.
                for (List<DeadLetter> batch = q.deadLetters(BATCH); !batch.isEmpty() && requeued < dead;
                        batch = q.deadLetters(BATCH)) {
                    long before = requeued;
                    for (DeadLetter d : batch) {
                        if (q.requeueDead(d.id())) {
                            requeued++;
                        }
                    }
                    if (requeued == before) {
                        break;
                    }
                }
                out.println(String.format(Locale.ROOT, "requeued %,d dead letter%s of %s", requeued,
                        requeued == 1 ? "" : "s", target.describe()));
            } else {
                for (String id : which.ids) {
                    if (q.requeueDead(id)) {
                        out.println("requeued " + id);
                    } else {
                        missed++;
                        err.println("not requeued " + id + ": not a dead letter of " + target.describe());
                    }
                }
            }
        }
        out.flush();
        err.flush();
        return missed == 0 ? 0 : 1;
    }
}
