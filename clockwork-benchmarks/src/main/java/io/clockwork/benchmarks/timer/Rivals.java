package io.clockwork.benchmarks.timer;

import java.util.List;

/** Opens rivals by name. Thread-safe. */
public final class Rivals {

    /** Our {@code io.clockwork.timer.WheelTimer}, 1 ms tick, defaults otherwise. */
    public static final String CLOCKWORK = "clockwork";
    /** Our Kafka face, {@code io.clockwork.kafka.SystemTimer} behind our {@code SystemTimerReaper}. */
    public static final String CLOCKWORK_KAFKA = "clockwork-kafka";
    /** Kafka's {@code org.apache.kafka.server.util.timer.SystemTimer} behind its {@code SystemTimerReaper}. */
    public static final String KAFKA = "kafka";
    /** Netty's {@code io.netty.util.HashedWheelTimer}, 1 ms tick, 512 buckets. */
    public static final String NETTY = "netty";
    /** {@code ScheduledThreadPoolExecutor(1)} with {@code setRemoveOnCancelPolicy(true)}. */
    public static final String JDK = "jdk";
    /** Agrona's {@code DeadlineTimerWheel}, driven by the producer thread: the single-threaded reference. */
    public static final String AGRONA = "agrona";

    /** Every rival, ours first. */
    public static final List<String> ALL = List.of(CLOCKWORK, CLOCKWORK_KAFKA, KAFKA, NETTY, JDK, AGRONA);

    private Rivals() {
    }

    /**
     * Opens a running rival.
     *
     * @param name one of {@link #ALL}
     * @return the rival; close it when done
     * @throws IllegalArgumentException for an unknown name
     */
    public static TimerRival open(String name) {
        switch (name) {
            case CLOCKWORK:
                return new ClockworkRival();
            case CLOCKWORK_KAFKA:
                return new ClockworkKafkaRival();
            case KAFKA:
                return new KafkaRival();
            case NETTY:
                return new NettyRival();
            case JDK:
                return new JdkRival();
            case AGRONA:
                return new AgronaRival();
            default:
                throw new IllegalArgumentException("unknown timer '" + name + "', expected one of " + ALL);
        }
    }
}
