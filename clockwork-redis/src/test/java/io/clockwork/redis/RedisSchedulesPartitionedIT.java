package io.clockwork.redis;

/**
 * The schedules contract on a queue of 3 partitions: schedules spread over partitions by name, and each occurrence's
 * id gets the suffix that routes it to its schedule's partition.
 */
class RedisSchedulesPartitionedIT extends RedisSchedulesIT {

    RedisSchedulesPartitionedIT(io.clockwork.redis.fixture.RedisServerProcess redis) {
        super(redis);
    }

    @Override
    protected int partitions() {
        return 3;
    }
}
