/**
 * Clockwork core: the scheduling engine, the modern timer, the delayed-queue contract, the Worker, the in-process
 * queue backend and recurring schedules.
 *
 * <p>Users see {@code io.clockwork.time} (the {@code Ticker} seam), {@code io.clockwork.timer} (the modern timer),
 * {@code io.clockwork.queue} (the delayed-queue contract), {@code io.clockwork.worker} (the Worker on that contract),
 * {@code io.clockwork.inprocess} (the in-process backend) and {@code io.clockwork.schedule} (recurring schedules).
 * {@code io.clockwork.engine} is the engine: exported only to the faces' modules, which are thin adapters over it.
 * {@code io.clockwork.queue.spi} holds what a queue backend needs and a user does not, and is exported to the
 * backends only.
 */
@SuppressWarnings("module") // the faces' and backends' modules are not on this module's path when it compiles
module io.clockwork.core {
    exports io.clockwork.time;
    exports io.clockwork.timer;
    exports io.clockwork.queue;
    exports io.clockwork.worker;
    exports io.clockwork.inprocess;
    exports io.clockwork.schedule;
    exports io.clockwork.engine to io.clockwork.kafka, io.clockwork.zookeeper, io.clockwork.storm;
    exports io.clockwork.queue.spi to io.clockwork.redis, io.clockwork.redisson, io.clockwork.postgres;

    uses io.clockwork.schedule.RuleParser;
}
