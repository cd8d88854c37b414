package io.clockwork.spring;

import io.clockwork.micrometer.QueueStatsSampler;
import io.clockwork.queue.DelayedQueue;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of Clockwork: the queues ({@link ClockworkQueues}), the {@link ClockworkListener} workers
 * ({@link ClockworkListeners}), codecs, a Redis client from {@code clockwork.redis.uri}, Micrometer meters when
 * the application has a {@link MeterRegistry}, and OpenTelemetry spans when it has an {@code OpenTelemetry} bean and
 * clockwork-opentelemetry. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(DelayedQueue.class)
@EnableConfigurationProperties(ClockworkProperties.class)
public class ClockworkAutoConfiguration {

    /** The Lettuce client of the queues' server from {@code clockwork.redis.*}, unless the application has one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty("clockwork.redis.uri")
    @ConditionalOnMissingBean(RedisClient.class)
    static class RedisClientConfiguration {

        @Bean(destroyMethod = "close")
        ClockworkRedisClient clockworkRedisConnection(ClockworkProperties properties) {
            return ClockworkRedisClient.create(properties.getRedis());
        }

        /**
         * @param connection the client and its resources, shut down with the context
         * @return a Lettuce client of the queues' server
         */
        @Bean(destroyMethod = "")
        RedisClient clockworkRedisClient(ClockworkRedisClient connection) {
            return connection.client();
        }
    }

    /** @return strings as UTF-8, bytes as they are, anything else as JSON */
    @Bean
    @ConditionalOnMissingBean
    public ClockworkCodecs clockworkCodecs() {
        return ClockworkCodecs.defaults();
    }

    /**
     * @param properties queue options
     * @param codecs     codecs by value type
     * @param redis      the Redis client, if there is one
     * @param dataSource the application's DataSource, if there is one (used only with clockwork.backend=postgres)
     * @param decorators every queue decorator
     * @return the queues
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ClockworkQueues clockworkQueues(ClockworkProperties properties, ClockworkCodecs codecs,
                                           ObjectProvider<RedisClient> redis, ObjectProvider<DataSource> dataSource,
                                           ObjectProvider<ClockworkQueueDecorator> decorators) {
        return new ClockworkQueues(properties, codecs, redis.getIfAvailable(), dataSource.getIfAvailable(),
                decorators.orderedStream().toList());
    }

    /**
     * @param queues     the queues
     * @param properties worker defaults
     * @param decorators every decorator, for the handlers
     * @param beans      the application's {@link io.clockwork.worker.WorkerListener} beans
     * @return the listener workers' life cycle
     */
    @Bean
    @ConditionalOnMissingBean
    public ClockworkListeners clockworkListeners(ClockworkQueues queues, ClockworkProperties properties,
                                                 ObjectProvider<ClockworkQueueDecorator> decorators,
                                                 BeanFactory beans) {
        return new ClockworkListeners(queues, properties, decorators.orderedStream().toList(),
                WorkerListenerBeans.from(beans));
    }

    /** @return the processor that finds {@link ClockworkListener} methods */
    @Bean
    @ConditionalOnMissingBean
    public static ClockworkListenerProcessor clockworkListenerProcessor() {
        return new ClockworkListenerProcessor();
    }

    /** Meters for the queues, through clockwork-micrometer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnProperty(name = "clockwork.metrics.enabled", matchIfMissing = true)
    static class Metrics {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        MetricsQueueDecorator clockworkMetricsDecorator(ObjectProvider<MeterRegistry> registry,
                                                        ClockworkProperties properties) {
            return new MetricsQueueDecorator(registry,
                    QueueStatsSampler.every(properties.getMetrics().getStatsInterval()),
                    properties.getMetrics().isDeliveryLateness());
        }
    }

    /** Tracing for the queues and listeners, when clockwork-opentelemetry is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.clockwork.opentelemetry.QueueTracing", "io.opentelemetry.api.OpenTelemetry"})
    @ConditionalOnProperty(name = "clockwork.tracing.enabled", matchIfMissing = true)
    static class Tracing {

        @Bean
        @ConditionalOnMissingBean
        TracingQueueDecorator clockworkTracingDecorator(
                ObjectProvider<io.opentelemetry.api.OpenTelemetry> openTelemetry) {
            return new TracingQueueDecorator(openTelemetry);
        }
    }

    /** The Actuator health indicator, when the application has Actuator's health. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthIndicatorConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(name = "clockworkHealthIndicator")
        ClockworkHealthIndicator clockworkHealthIndicator(ClockworkQueues queues, ClockworkProperties properties,
                                                          ObjectProvider<RedisClient> redis,
                                                          ObjectProvider<DataSource> dataSource) {
            return new ClockworkHealthIndicator(queues, properties, redis.getIfAvailable(),
                    dataSource.getIfAvailable());
        }
    }

}
