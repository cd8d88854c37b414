package io.clockwork.cli.queue;

import io.clockwork.cli.Arguments;
import io.clockwork.cli.Backend;
import io.clockwork.cli.ServerOptions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clockwork queue delete NAME --yes}: deletes a queue and everything stored for it. Not thread-safe: one per
 * command line.
 *
 * <p>On Redis it runs {@code RedisDelayedQueue.delete()} on the queue opened as an existing one: every partition's
 * messages (delayed, ready, in flight, dead, in the compact store), its schedules, counters, wake-up signal and stored
 * partition count, and its name in the registry of queues, so that the dashboard no longer lists it. On PostgreSQL
 * it deletes the queue's rows of {@code clockwork_messages} and {@code clockwork_counters} and its row of
 * {@code clockwork_queues}, in one transaction.
 */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = {"Deletes a queue and everything stored for it on Redis or PostgreSQL: its messages in every "
                + "state (and partition), dead letters, schedules and counters, and its entry in the list of queues "
                + "(so the dashboard no longer shows it). Needs --yes, because it cannot be undone.",
            "A client that still uses the queue creates it again when it next offers (on PostgreSQL, when it is "
                    + "next built)."})
public final class QueueDeleteCommand implements Callable<Integer> {

    @Mixin
    ServerOptions server;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", converter = Arguments.QueueName.class,
            description = "The queue's name.")
    String name;

    @Option(names = "--queue", paramLabel = "NAME", converter = Arguments.QueueName.class, description = "The queue's name, as the other queue commands "
            + "take it (instead of NAME).")
    String queueOption;

    @Option(names = "--yes", description = "Confirm the deletion.")
    boolean yes;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (name != null && queueOption != null) {
            throw usage("give the queue's name once: as NAME or as --queue, not both");
        }
        String queue = name != null ? name : queueOption;
        if (queue == null) {
            throw usage("missing the queue's name: clockwork queue delete [--redis URI | --postgres JDBC-URL] NAME "
                    + "--yes");
        }
        if (!yes) {
            throw usage("delete removes queue '" + queue + "' and all its messages for good; add --yes");
        }
        Backend backend = server.required();
        PrintWriter out = spec.commandLine().getOut();
        out.println(backend.delete(queue));
        out.flush();
        return 0;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
