package io.clockwork.cli.demo;

import io.clockwork.cli.RedisTarget;
import java.time.Duration;

/**
 * The demo's options, validated by {@link DemoCommand}. Immutable.
 *
 * @param redis       the Redis server, or null for the in-process backend
 * @param queue       the orders queue's name
 * @param role        which parts run in this process
 * @param orders      orders to place
 * @param workers     worker threads
 * @param crashes     workers that crash mid-work
 * @param paidPercent share of orders paid in time
 * @param spread      deadlines fall between 0.5 s and 0.5 s plus this after their order
 * @param visibility  the queue's visibility timeout
 * @param timeout     the longest the demo waits for every order to settle
 * @param style       how progress is shown
 * @param seed        random seed
 * @param keep        whether a producing run on Redis leaves its keys behind instead of deleting them
 */
record DemoSettings(RedisTarget redis, String queue, DemoCommand.Role role, int orders, int workers, int crashes,
        int paidPercent, Duration spread, Duration visibility, Duration timeout, Progress.Style style, long seed,
        boolean keep) {

    /** Deliveries before a message dies: enough that the demo's few crashes never kill an order. */
    static final int MAX_ATTEMPTS = 5;

    boolean producing() {
        return role != DemoCommand.Role.WORKER;
    }

    boolean working() {
        return role != DemoCommand.Role.PRODUCER;
    }
}
