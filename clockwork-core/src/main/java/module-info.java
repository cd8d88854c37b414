/**
 * Clockwork core: the timing-wheel engine and the in-process faces built on it.
 *
 * <p>{@code io.clockwork.wheel} is the engine and stays internal; users see the faces.
 */
module io.clockwork.core {
    exports io.clockwork.queue;
    exports io.clockwork.expiry;
    exports io.clockwork.time;
    exports io.clockwork.timer;
}
