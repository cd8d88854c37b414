/**
 * Clockwork core: the scheduling engine and the in-process faces built on it.
 *
 * <p>{@code io.clockwork.engine} is the engine and is not exported; users see {@code io.clockwork.time} (the
 * {@code Ticker} seam), {@code io.clockwork.timer} (the modern timer), one package per original's face
 * ({@code kafka}, {@code zookeeper}, {@code storm}, {@code redisson}), {@code io.clockwork.queue} (the delayed-queue
 * contract and its in-process backend) and {@code io.clockwork.schedule} (recurring schedules on it). {@code io.clockwork.queue.spi} holds what a queue backend needs and a user
 * does not, and is exported to the backends only.
 */
@SuppressWarnings("module") // io.clockwork.redis is not on this module's path when it compiles
module io.clockwork.core {
    exports io.clockwork.time;
    exports io.clockwork.timer;
    exports io.clockwork.kafka;
    exports io.clockwork.zookeeper;
    exports io.clockwork.storm;
    exports io.clockwork.queue;
    exports io.clockwork.worker;
    exports io.clockwork.inprocess;
    exports io.clockwork.redisson;
    exports io.clockwork.queue.spi to io.clockwork.redis;
    exports io.clockwork.schedule;

    uses io.clockwork.schedule.RuleParser;
}
