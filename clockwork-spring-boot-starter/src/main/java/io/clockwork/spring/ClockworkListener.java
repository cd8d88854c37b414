package io.clockwork.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of a queue: the starter runs a {@link io.clockwork.worker.Worker} that calls it
 * once per message. The method takes one parameter, the message's value (decoded with the codec of its type, see
 * {@link ClockworkCodecs}), or a {@link io.clockwork.worker.Job Job&lt;T&gt;} for the id, attempt and headers too.
 * Returning normally acks the message; throwing retries it under {@code clockwork.worker.retry.*} until its
 * attempts are used up, then it goes to the dead letters.
 *
 * <pre>{@code
 * @ClockworkListener(queue = "orders", concurrency = 4)
 * void expire(Order order) { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ClockworkListener {

    /** @return the queue's name */
    String queue();

    /** @return handlers running at once; 0 (the default): {@code clockwork.worker.concurrency} */
    int concurrency() default 0;

    /**
     * @return messages taken ahead of free handlers; -1 (the default): {@code clockwork.worker.prefetch}, and where
     *         that is unset the Worker's adaptive prefetch
     */
    int prefetch() default -1;

    /**
     * @return each job's timeout as an ISO-8601 duration or a Spring duration ({@code "30s"}, {@code "PT5M"}): a
     *         handler still running then is interrupted and the attempt counts as failed; "" (the default):
     *         {@code clockwork.worker.timeout}, or none
     */
    String timeout() default "";
}
