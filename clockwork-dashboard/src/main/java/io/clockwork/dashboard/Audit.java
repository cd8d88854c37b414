package io.clockwork.dashboard;

import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one audit line per action and login to the logger {@value #LOGGER}: who, what, on which queue and
 * message, the outcome and when. Thread-safe. Values are quoted with control characters escaped, so a crafted id
 * cannot forge a line; payloads and secrets are never logged.
 */
final class Audit {

    /** The logger's name, for routing audit lines to a file of their own. */
    static final String LOGGER = "io.clockwork.dashboard.audit";

    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private Audit() {
    }

    /**
     * @param who     the user
     * @param from    the client's address
     * @param action  e.g. {@code requeue-dead}
     * @param queue   the queue, or empty
     * @param id      the message id, or empty
     * @param outcome e.g. {@code requeued} or {@code refused: read-only}
     */
    static void log(String who, String from, String action, String queue, String id, String outcome) {
        LOG.info("audit at={} who={} from={} action={} queue={} id={} outcome={}", Instant.now(), quote(who),
                quote(from), action, quote(queue), quote(id), quote(outcome));
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length() && i < 256; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append(s.length() > 256 ? "...\"" : "\"").toString();
    }
}
