package io.clockwork.dashboard;

import java.util.List;
import java.util.Optional;

/**
 * One page of a queue's messages in one state. Immutable and thread-safe.
 *
 * @param rows     the messages, in the order the backend keeps them (by due time, deadline or time of death)
 * @param total    how many messages the queue has in the state
 * @param next     the cursor of the next page, or empty if there is none
 * @param complete false if the backend can list only the first page (then {@code next} is empty even when
 *                 {@code total} exceeds the rows)
 */
public record MessagePage(List<MessageRow> rows, long total, Optional<String> next, boolean complete) {

    /** Copies the rows. */
    public MessagePage {
        rows = List.copyOf(rows);
    }
}
