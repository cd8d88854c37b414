/**
 * Clockwork core: the scheduling engine and the in-process faces built on it.
 *
 * <p>{@code io.clockwork.engine} is the engine and is not exported; users see {@code io.clockwork.time} (the
 * {@code Ticker} seam), {@code io.clockwork.timer} (the modern timer), one package per original's face
 * ({@code kafka}, {@code zookeeper}, {@code storm}) and {@code io.clockwork.queue} (the delayed-queue contract and its
 * in-process backend).
 */
module io.clockwork.core {
    exports io.clockwork.time;
    exports io.clockwork.timer;
    exports io.clockwork.kafka;
    exports io.clockwork.zookeeper;
    exports io.clockwork.storm;
    exports io.clockwork.queue;
}
