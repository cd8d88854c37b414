/**
 * The Kafka face: Kafka's timer ({@code org.apache.kafka.server.util.timer}): {@code SystemTimer},
 * {@code SystemTimerReaper}, {@code Timer} and {@code TimerTask} with Kafka's names and semantics, as an adapter over
 * Clockwork's engine.
 */
module io.clockwork.kafka {
    requires transitive io.clockwork.core;

    exports io.clockwork.kafka;
}
