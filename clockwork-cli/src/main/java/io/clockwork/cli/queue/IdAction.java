package io.clockwork.cli.queue;

import io.clockwork.queue.DelayedQueue;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What {@code queue cancel} and {@code queue promote} share: one queue call per id, a line per id on stdout
 * ({@code "<done> <id>"}) or on stderr ({@code "not <done> <id>: <why not>"}), exit 1 if any id was missed. Not
 * thread-safe: one per command line.
 */
final class IdAction {

    /** The queue call for one id. */
    interface Op {
        /** @return whether it changed the message */
        boolean apply(DelayedQueue<byte[]> queue, String id);
    }

    private IdAction() {
    }

    /**
     * @param target the queue to open
     * @param spec   the command, for its output streams
     * @param ids    the ids, in order
     * @param done   the past participle that says it worked, e.g. {@code cancelled}
     * @param whyNot what a miss may mean, e.g. {@code unknown, dead, acked or already cancelled}
     * @param op     the call
     * @return the exit code: 0 if every id was done, else 1
     */
    static int run(QueueTarget target, CommandSpec spec, List<String> ids, String done, String whyNot, Op op) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int missed = 0;
        try (DelayedQueue<byte[]> q = target.open()) {
            for (String id : ids) {
                if (op.apply(q, id)) {
                    out.println(done + " " + id);
                } else {
                    missed++;
                    err.println("not " + done + " " + id + ": " + whyNot);
                }
            }
        }
        out.flush();
        err.flush();
        return missed == 0 ? 0 : 1;
    }
}
