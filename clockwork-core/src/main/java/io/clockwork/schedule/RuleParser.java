package io.clockwork.schedule;

/**
 * A kind of {@link ScheduleRule} that a module adds (found with {@link java.util.ServiceLoader}): {@code clockwork-cron}
 * provides {@code cron}. Implementations are stateless and thread-safe.
 */
public interface RuleParser {

    /** @return the kind this parser reads, the text before the first {@code :} of a rule's spec */
    String kind();

    /**
     * @param body the spec after {@code <kind>:}
     * @return the rule
     * @throws IllegalArgumentException naming {@code rule} if the body is malformed
     */
    ScheduleRule parse(String body);
}
