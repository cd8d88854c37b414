package io.clockwork.micrometer;

import io.clockwork.queue.AckAndPoll;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.queue.ForwardingDelayedQueue;
import io.clockwork.queue.ForwardingDelivery;
import io.clockwork.worker.Job;
import io.clockwork.queue.Message;
import io.clockwork.queue.Offered;
import io.clockwork.worker.WorkerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DelayedQueue} that counts what passes through it into Micrometer meters named {@code clockwork.queue.*},
 * tagged {@code queue} (the name) and {@code backend}. Thread-safe if the queue is.
 *
 * <pre>{@code
 * QueueStatsSampler sampler = QueueStatsSampler.every(Duration.ofSeconds(10));
 * DelayedQueue<Order> orders = MeteredDelayedQueue.builder(redisQueue, registry).sampler(sampler).build();
 * Worker.builder(orders, handler).listener(orders.workerListener()).build();   // handler duration; acks counted
 * }</pre>
 *
 * <p>Counters ({@code offered}, {@code delivered}, {@code acked}, {@code retried}, {@code dead.lettered}) count the
 * calls of this handle that changed something, whether a {@code Worker} or the application makes them; other clients
 * of the same queue count in their own handles (meter one handle per queue name and registry: two would share, and
 * on close remove, the same meters). The state gauges ({@code clockwork.queue.messages} with a
 * {@code state} tag) and {@code clockwork.queue.paused} (1 while paused) come from a {@link QueueStatsSampler}, never
 * from a read on the scrape thread; without a sampler there are none. So does the counter
 * {@code clockwork.queue.rate.limited}: the polls a rate limit held back ({@code QueueCounters.rateLimited()}), which
 * the queue counts itself, for all its consumers, as last sampled.
 *
 * <p>Delivery lateness needs the due time, which a {@link Delivery} does not carry: an offer through this handle adds
 * the header {@value #DUE_HEADER} (due time in epoch milliseconds by this process's clock), and a first delivery
 * through any metered handle records its clock's reading minus that, and hides the header from the consumer. It
 * includes the clock difference between producer and consumer hosts, and the header counts towards the message's
 * header limits, so it is opt-in: {@link Builder#deliveryLateness(boolean)}.
 *
 * @param <V> the value type
 */
public final class MeteredDelayedQueue<V> extends ForwardingDelayedQueue<V> {

    /** The header carrying a message's due time in epoch milliseconds by the producer's clock. */
    public static final String DUE_HEADER = "clockwork-due-ms";

    private final MeterRegistry registry;
    private final Clock clock;
    private final boolean lateness;
    private final Tags tags;
    private final Counter offered;
    private final Counter delivered;
    private final Counter acked;
    private final Counter retried;
    private final Counter deadLettered;
    private final Counter timeouts;
    private final Timer deliveryLateness;
    private final Timer handlerSuccess;
    private final Timer handlerFailure;
    private final List<Meter> meters = new ArrayList<>();
    private final ScheduledFuture<?> sampling;

    private MeteredDelayedQueue(Builder<V> b) {
        super(b.queue);
        this.registry = b.registry;
        this.clock = b.clock;
        this.lateness = b.lateness;
        this.tags = Tags.of("queue", b.queue.name(), "backend", b.backend != null ? b.backend : backendOf(b.queue));
        this.offered = counter("clockwork.queue.offered", "messages stored by an offer");
        this.delivered = counter("clockwork.queue.delivered", "messages handed to a consumer");
        this.acked = counter("clockwork.queue.acked", "deliveries acknowledged");
        this.retried = counter("clockwork.queue.retried", "deliveries nacked to be due again");
        this.deadLettered = counter("clockwork.queue.dead.lettered", "deliveries sent to the dead letters");
        this.timeouts = keep(Counter.builder("clockwork.queue.handler.timeouts").tags(tags)
                .description("jobs a worker interrupted at their timeout").register(registry));
        this.deliveryLateness = keep(Timer.builder("clockwork.queue.delivery.lateness").tags(tags)
                .description("first delivery time minus due time").register(registry));
        this.handlerSuccess = handlerTimer("success");
        this.handlerFailure = handlerTimer("failure");
        if (b.sampler != null) {
            SampledStats sample = new SampledStats();
            gauge("delayed", sample, SampledStats::delayed);
            gauge("ready", sample, SampledStats::ready);
            gauge("in_flight", sample, SampledStats::inFlight);
            gauge("dead", sample, SampledStats::dead);
            keep(Gauge.builder("clockwork.queue.paused", sample, SampledStats::paused).tags(tags)
                    .description("1 while the queue is paused (DelayedQueue.pause), as last sampled")
                    .strongReference(true).register(registry));
            // A function counter holds its object weakly; the gauges above hold the sample strongly while registered.
            keep(FunctionCounter.builder("clockwork.queue.rate.limited", sample, SampledStats::rateLimited).tags(tags)
                    .description("polls that found due messages but returned none because a rate limit held them "
                            + "back (QueueCounters.rateLimited), as last sampled")
                    .register(registry));
            this.sampling = b.sampler.watch(b.queue, sample);
        } else {
            this.sampling = null;
        }
    }

    /**
     * @param queue    the queue to count
     * @param registry where the meters go
     * @param <V>      the value type
     * @return a builder
     */
    public static <V> Builder<V> builder(DelayedQueue<V> queue, MeterRegistry registry) {
        return new Builder<>(queue, registry);
    }

    private Counter counter(String name, String description) {
        return keep(Counter.builder(name).tags(tags).baseUnit("messages").description(description)
                .register(registry));
    }

    private Timer handlerTimer(String outcome) {
        return keep(Timer.builder("clockwork.queue.handler").tags(tags).tag("outcome", outcome)
                .description("time a worker's job handler runs").register(registry));
    }

    private void gauge(String state, SampledStats sample, java.util.function.ToDoubleFunction<SampledStats> f) {
        keep(Gauge.builder("clockwork.queue.messages", sample, f).tags(tags).tag("state", state)
                .baseUnit("messages").description("messages in the queue by state, as last sampled")
                .strongReference(true).register(registry));
    }

    private <M extends Meter> M keep(M meter) {
        meters.add(meter);
        return meter;
    }

    private static String backendOf(DelayedQueue<?> queue) {
        DelayedQueue<?> q = queue;
        while (q instanceof ForwardingDelayedQueue<?> f) {
            q = f.delegate();
        }
        String name = q.getClass().getSimpleName();
        if (name.equals("InMemoryDelayedQueue")) {
            return "memory";
        }
        if (name.equals("RedisDelayedQueue")) {
            return "redis";
        }
        return name.replace("DelayedQueue", "").toLowerCase(Locale.ROOT);
    }

    /**
     * Makes the worker listener that records each handler's running time as {@code clockwork.queue.handler}, with tag
     * {@code outcome} {@code success} or {@code failure} (it threw), and counts the jobs interrupted at their timeout
     * as {@code clockwork.queue.handler.timeouts}. The worker reads the clock for it only because it has a listener.
     *
     * @return a listener for {@link io.clockwork.worker.Worker.Builder#listener}
     */
    public WorkerListener<V> workerListener() {
        return new WorkerListener<>() {
            @Override
            public void handled(Job<V> job, long nanos, Throwable failure) {
                (failure == null ? handlerSuccess : handlerFailure).record(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void timedOut(Job<V> job, Duration timeout) {
                timeouts.increment();
            }
        };
    }

    // ---- offers

    private Message<V> stamped(Message<? extends V> m) {
        @SuppressWarnings("unchecked")
        Message<V> message = (Message<V>) m;
        if (!lateness) {
            return message;
        }
        long due = clock.millis() + Math.max(0L, saturatedMillis(message.delay()));
        return message.header(DUE_HEADER, Long.toString(due));
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return d.isNegative() ? 0L : Long.MAX_VALUE / 2;
        }
    }

    private Offered counted(Offered o) {
        if (o.stored()) {
            offered.increment();
        }
        return o;
    }

    private List<Offered> countedAll(List<Offered> all) {
        long n = all.stream().filter(Offered::stored).count();
        if (n > 0) {
            offered.increment(n);
        }
        return all;
    }

    private List<Message<V>> stampedAll(List<? extends Message<? extends V>> messages) {
        Objects.requireNonNull(messages, "messages");
        List<Message<V>> out = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            out.add(stamped(Objects.requireNonNull(messages.get(i), "messages[" + i + "]")));
        }
        return out;
    }

    private static <V> List<Message<V>> messagesOf(List<? extends V> values, Duration delay) {
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(delay, "delay");
        List<Message<V>> out = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            out.add(Message.<V>of(Objects.requireNonNull(values.get(i), "values[" + i + "]")).delay(delay));
        }
        return out;
    }

    private static <V> List<Message<V>> messagesOf(Map<String, ? extends V> messages, Duration delay) {
        Objects.requireNonNull(messages, "messages");
        Objects.requireNonNull(delay, "delay");
        List<Message<V>> out = new ArrayList<>(messages.size());
        for (Map.Entry<String, ? extends V> e : messages.entrySet()) {
            String id = Objects.requireNonNull(e.getKey(), "messages key");
            out.add(Message.<V>of(Objects.requireNonNull(e.getValue(), "messages[" + id + "]")).id(id).delay(delay));
        }
        return out;
    }

    private static List<String> ids(List<Offered> all) {
        List<String> ids = new ArrayList<>(all.size());
        for (Offered o : all) {
            ids.add(o.id());
        }
        return ids;
    }

    @Override
    public String offer(V value, Duration delay) {
        if (!lateness) {
            String id = super.offer(value, delay);
            offered.increment();
            return id;
        }
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(delay, "delay");
        return counted(super.offer(stamped(Message.of(value).delay(delay)))).id();
    }

    @Override
    public boolean offer(String id, V value, Duration delay) {
        if (!lateness) {
            boolean stored = super.offer(id, value, delay);
            if (stored) {
                offered.increment();
            }
            return stored;
        }
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(delay, "delay");
        return counted(super.offer(stamped(Message.of(value).id(id).delay(delay)))).stored();
    }

    @Override
    public List<String> offerAll(List<? extends V> values, Duration delay) {
        if (!lateness) {
            List<String> ids = super.offerAll(values, delay);
            offered.increment(ids.size());
            return ids;
        }
        return ids(countedAll(super.offerAll(stampedAll(messagesOf(values, delay)))));
    }

    @Override
    public List<String> offerAll(Map<String, ? extends V> messages, Duration delay) {
        if (!lateness) {
            List<String> stored = super.offerAll(messages, delay);
            offered.increment(stored.size());
            return stored;
        }
        List<Offered> all = countedAll(super.offerAll(stampedAll(messagesOf(messages, delay))));
        List<String> stored = new ArrayList<>();
        for (Offered o : all) {
            if (o.stored()) {
                stored.add(o.id());
            }
        }
        return stored;
    }

    @Override
    public Offered offer(Message<? extends V> message) {
        return counted(super.offer(stamped(Objects.requireNonNull(message, "message"))));
    }

    @Override
    public List<Offered> offerAll(List<? extends Message<? extends V>> messages) {
        return countedAll(super.offerAll(stampedAll(messages)));
    }

    @Override
    public CompletionStage<String> offerAsync(V value, Duration delay) {
        if (!lateness) {
            return super.offerAsync(value, delay).thenApply(id -> {
                offered.increment();
                return id;
            });
        }
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(delay, "delay");
        return super.offerAsync(stamped(Message.of(value).delay(delay))).thenApply(o -> counted(o).id());
    }

    @Override
    public CompletionStage<Boolean> offerAsync(String id, V value, Duration delay) {
        if (!lateness) {
            return super.offerAsync(id, value, delay).thenApply(stored -> {
                if (stored) {
                    offered.increment();
                }
                return stored;
            });
        }
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(delay, "delay");
        return super.offerAsync(stamped(Message.of(value).id(id).delay(delay))).thenApply(o -> counted(o).stored());
    }

    @Override
    public CompletionStage<List<String>> offerAllAsync(List<? extends V> values, Duration delay) {
        if (!lateness) {
            return super.offerAllAsync(values, delay).thenApply(ids -> {
                offered.increment(ids.size());
                return ids;
            });
        }
        return super.offerAllAsync(stampedAll(messagesOf(values, delay))).thenApply(all -> ids(countedAll(all)));
    }

    @Override
    public CompletionStage<Offered> offerAsync(Message<? extends V> message) {
        return super.offerAsync(stamped(Objects.requireNonNull(message, "message"))).thenApply(this::counted);
    }

    @Override
    public CompletionStage<List<Offered>> offerAllAsync(List<? extends Message<? extends V>> messages) {
        return super.offerAllAsync(stampedAll(messages)).thenApply(this::countedAll);
    }

    // ---- deliveries

    @Override
    protected Delivery<V> wrap(Delivery<V> delivery) {
        delivered.increment();
        if (lateness && delivery.attempt() == 1) {
            String due = delivery.headers().get(DUE_HEADER);
            if (due != null) {
                recordLateness(due);
            }
        }
        return new Metered(delivery, lateness);
    }

    private void recordLateness(String due) {
        long dueMs;
        try {
            dueMs = Long.parseLong(due);
        } catch (NumberFormatException notOurs) {
            return;
        }
        deliveryLateness.record(Math.max(0L, clock.millis() - dueMs), TimeUnit.MILLISECONDS);
    }

    @Override
    public List<Boolean> ackAll(List<? extends Delivery<V>> deliveries) {
        List<Boolean> results = super.ackAll(deliveries);
        long n = results.stream().filter(Boolean::booleanValue).count();
        if (n > 0) {
            acked.increment(n);
        }
        return results;
    }

    @Override
    public AckAndPoll<V> ackAndPoll(Delivery<V> done) {
        AckAndPoll<V> r = super.ackAndPoll(done);
        if (r.acked()) {
            acked.increment();
        }
        return r;
    }

    /** Stops sampling, removes this handle's meters from the registry and closes the queue. */
    @Override
    public void close() {
        if (sampling != null) {
            sampling.cancel(false);
        }
        meters.forEach(registry::remove);
        super.close();
    }

    /** A delivery whose settling calls count. */
    private final class Metered extends ForwardingDelivery<V> {

        private final boolean hideDue;

        Metered(Delivery<V> delegate, boolean hideDue) {
            super(delegate);
            this.hideDue = hideDue;
        }

        @Override
        public Map<String, String> headers() {
            Map<String, String> headers = super.headers();
            if (!hideDue || !headers.containsKey(DUE_HEADER)) {
                return headers;
            }
            Map<String, String> shown = new java.util.LinkedHashMap<>(headers);
            shown.remove(DUE_HEADER);
            return java.util.Collections.unmodifiableMap(shown);
        }

        @Override
        public boolean ack() {
            boolean done = super.ack();
            if (done) {
                acked.increment();
            }
            return done;
        }

        @Override
        public CompletionStage<Boolean> ackAsync() {
            return super.ackAsync().thenApply(done -> {
                if (done) {
                    acked.increment();
                }
                return done;
            });
        }

        @Override
        public boolean nack(Duration retryDelay) {
            boolean done = super.nack(retryDelay);
            if (done) {
                retried.increment();
            }
            return done;
        }

        @Override
        public boolean nack(Duration retryDelay, String reason) {
            boolean done = super.nack(retryDelay, reason);
            if (done) {
                retried.increment();
            }
            return done;
        }

        @Override
        public boolean deadLetter(String reason) {
            boolean done = super.deadLetter(reason);
            if (done) {
                deadLettered.increment();
            }
            return done;
        }
    }

    /**
     * Builds a {@link MeteredDelayedQueue}. Not thread-safe: one thread builds.
     *
     * @param <V> the value type
     */
    public static final class Builder<V> {

        private final DelayedQueue<V> queue;
        private final MeterRegistry registry;
        private String backend;
        private QueueStatsSampler sampler;
        private boolean lateness;
        private boolean latenessSet;
        private Clock clock = Clock.systemUTC();
        private boolean clockSet;

        private Builder(DelayedQueue<V> queue, MeterRegistry registry) {
            this.queue = Objects.requireNonNull(queue, "queue");
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * @param backend the {@code backend} tag; default {@code memory} for {@code InMemoryDelayedQueue},
         *                {@code redis} for {@code RedisDelayedQueue}, else the class name in lower case
         * @return this builder
         */
        public Builder<V> backend(String backend) {
            Objects.requireNonNull(backend, "backend");
            if (backend.isBlank()) {
                throw new IllegalArgumentException("backend must not be blank");
            }
            check(this.backend != null, "backend");
            this.backend = backend;
            return this;
        }

        /**
         * @param sampler samples the queue's stats for the {@code clockwork.queue.messages} gauges; default none
         *                (no gauges)
         * @return this builder
         */
        public Builder<V> sampler(QueueStatsSampler sampler) {
            Objects.requireNonNull(sampler, "sampler");
            check(this.sampler != null, "sampler");
            this.sampler = sampler;
            return this;
        }

        /**
         * @param enabled whether offers carry {@value #DUE_HEADER} and first deliveries record
         *                {@code clockwork.queue.delivery.lateness}; default false (no header, no lateness)
         * @return this builder
         */
        public Builder<V> deliveryLateness(boolean enabled) {
            check(latenessSet, "deliveryLateness");
            this.lateness = enabled;
            this.latenessSet = true;
            return this;
        }

        /**
         * @param clock the wall clock due times and deliveries are read on; default the system's (UTC)
         * @return this builder
         */
        public Builder<V> clock(Clock clock) {
            Objects.requireNonNull(clock, "clock");
            check(clockSet, "clock");
            this.clock = clock;
            this.clockSet = true;
            return this;
        }

        /** @return the metered queue; its meters are registered now */
        public MeteredDelayedQueue<V> build() {
            return new MeteredDelayedQueue<>(this);
        }

        private static void check(boolean set, String option) {
            if (set) {
                throw new IllegalStateException(option + " was already set");
            }
        }
    }
}
