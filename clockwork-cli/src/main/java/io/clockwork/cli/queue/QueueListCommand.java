package io.clockwork.cli.queue;

import io.clockwork.queue.DeadLetter;
import io.clockwork.queue.DelayedQueue;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code clockwork queue list}: the dead letters, oldest first. Not thread-safe: one per command line. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = {"Lists dead letters, oldest first: id, deliveries, why it died, and the payload (as text if it "
                + "is UTF-8, else hex; long payloads are cut).",
            "Live messages are not listed: the queue API reaches them by id only (see cancel)."})
public final class QueueListCommand implements Callable<Integer> {

    private static final int PREVIEW = 48;

    @Mixin
    QueueTarget target;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "List at most N, 1 to 10,000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (limit < 1 || limit > 10_000) {
            throw new ParameterException(spec.commandLine(), "--limit must be 1 to 10,000, was " + limit);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (DelayedQueue<byte[]> q = target.open()) {
            long dead = target.stats(q).dead();
            if (dead == 0) {
                out.println(target.describe() + ": no dead letters");
            } else {
                List<DeadLetter> letters = q.deadLetters(limit);
                out.println(String.format(Locale.ROOT, "%s: %,d dead letter%s%s", target.describe(), dead,
                        dead == 1 ? "" : "s", dead > letters.size() ? ", oldest " + letters.size() + " shown" : ""));
                out.println(String.format(Locale.ROOT, "%-36s %8s  %-32s %s", "ID", "ATTEMPTS", "REASON", "PAYLOAD"));
                for (DeadLetter d : letters) {
                    out.println(String.format(Locale.ROOT, "%-36s %8d  %-32s %s", d.id(), d.attempts(),
                            cut(d.reason(), 32), preview(d.payload())));
                }
            }
        }
        out.flush();
        return 0;
    }

    static String preview(byte[] payload) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
            if (text.codePoints().noneMatch(Character::isISOControl)) {
                return "\"" + cut(text, PREVIEW) + "\"";
            }
        } catch (CharacterCodingException notText) {
            // shown as hex below
        }
        int n = Math.min(payload.length, PREVIEW / 2);
        return "0x" + HexFormat.of().formatHex(payload, 0, n) + (n < payload.length ? "..." : "")
                + " (" + payload.length + " bytes)";
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 3) + "...";
    }
}
