package io.clockwork.spring;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Message;
import io.clockwork.worker.Job;
import io.clockwork.worker.JobHandler;
import io.clockwork.worker.RetryPolicy;
import io.clockwork.worker.Worker;
import io.clockwork.worker.WorkerListener;
import io.clockwork.worker.WorkerShutdown;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ReflectionUtils;

/**
 * Runs a {@link Worker} per {@link ClockworkListener} method, started and stopped with the application context.
 * Thread-safe.
 *
 * <p>Workers start in {@link #start()}, once every singleton exists, and stop in {@link #stop()}, in the
 * {@code clockwork.worker.phase} of the context's lifecycle: each worker takes no more messages, hands back at once
 * those it prefetched and never started, and lets running handlers finish and ack within
 * {@code clockwork.worker.shutdown-timeout}; all workers drain in parallel. A rolling deploy thus loses nothing: what
 * a stopping instance did not finish is in the queue for the next. The queues close after, with the context's
 * beans.
 */
public final class ClockworkListeners implements SmartLifecycle {

    /** The default phase: before the web server's graceful shutdown (DEFAULT_PHASE - 1024) when stopping. */
    public static final int DEFAULT_PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private static final System.Logger LOG = System.getLogger(ClockworkListeners.class.getName());

    /** A listener method found on a bean. */
    record Endpoint(Object bean, Method method, ClockworkListener annotation, Class<?> valueType, boolean takesJob) {
    }

    private final ClockworkQueues queues;
    private final ClockworkProperties properties;
    private final List<ClockworkQueueDecorator> decorators;
    private final WorkerListenerBeans listenerBeans;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final List<Worker<?>> workers = new ArrayList<>();
    private volatile boolean running;

    /**
     * @param queues     where the listeners' queues come from
     * @param properties worker defaults
     * @param decorators applied to each listener's handler and worker
     */
    public ClockworkListeners(ClockworkQueues queues, ClockworkProperties properties,
                              List<ClockworkQueueDecorator> decorators) {
        this(queues, properties, decorators, WorkerListenerBeans.NONE);
    }

    /**
     * @param queues        where the listeners' queues come from
     * @param properties    worker defaults
     * @param decorators    applied to each listener's handler and worker
     * @param listenerBeans the application's worker listeners for a value type
     */
    public ClockworkListeners(ClockworkQueues queues, ClockworkProperties properties,
                              List<ClockworkQueueDecorator> decorators, WorkerListenerBeans listenerBeans) {
        this.queues = Objects.requireNonNull(queues, "queues");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.decorators = List.copyOf(decorators);
        this.listenerBeans = Objects.requireNonNull(listenerBeans, "listenerBeans");
    }

    synchronized void register(Endpoint endpoint) {
        endpoints.add(endpoint);
        if (running) {
            workers.add(startWorker(endpoint));
        }
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        for (Endpoint e : endpoints) {
            workers.add(startWorker(e));
        }
        running = true;
    }

    private <V> Worker<V> startWorker(Endpoint e) {
        @SuppressWarnings("unchecked")
        Class<V> type = (Class<V>) e.valueType();
        DelayedQueue<V> queue = queues.queue(e.annotation().queue(), type);
        JobHandler<V> handler = job -> invoke(e, job);
        for (ClockworkQueueDecorator d : decorators) {
            handler = d.decorate(queue, handler);
        }
        ClockworkProperties.WorkerProperties w = properties.getWorker();
        int concurrency = e.annotation().concurrency() > 0 ? e.annotation().concurrency() : w.getConcurrency();
        Integer prefetch = e.annotation().prefetch() >= 0 ? Integer.valueOf(e.annotation().prefetch())
                : w.getPrefetch();
        String name = e.method().getDeclaringClass().getSimpleName() + "." + e.method().getName();
        Worker.Builder<V> builder = Worker.builder(queue, handler).name(name).concurrency(concurrency)
                .retryPolicy(retryPolicy(w.getRetry()));
        if (prefetch != null) {
            builder.prefetch(prefetch); // else the Worker's adaptive prefetch
        }
        if (!e.annotation().timeout().isEmpty()) {
            builder.timeout(timeoutOf(e));
        } else if (w.getTimeout() != null) {
            builder.timeout(w.getTimeout());
        }
        List<WorkerListener<V>> heard = new ArrayList<>();
        for (ClockworkQueueDecorator d : decorators) {
            d.customize(queue, builder);
            WorkerListener<V> l = d.workerListener(queue);
            if (l != null) {
                heard.add(l);
            }
        }
        heard.addAll(listenerBeans.of(type));
        if (!heard.isEmpty()) {
            @SuppressWarnings("unchecked")
            WorkerListener<V>[] all = heard.toArray(new WorkerListener[0]);
            builder.listener(WorkerListener.compose(all));
        }
        return builder.build();
    }

    /** The annotation's timeout, parsed as Spring parses a duration property, and checked as the Worker checks it. */
    private static Duration timeoutOf(Endpoint e) {
        String text = e.annotation().timeout();
        Duration d;
        try {
            d = DurationStyle.detectAndParse(text);
        } catch (IllegalArgumentException bad) {
            d = null;
        }
        if (d == null || d.isNegative() || d.isZero() || d.compareTo(Message.MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("@ClockworkListener(timeout) of " + e.method() + " must be a duration "
                    + "in (0, " + Message.MAX_TIMEOUT + "] such as \"30s\" or \"PT5M\", was \"" + text + "\"");
        }
        return d;
    }

    private static RetryPolicy retryPolicy(ClockworkProperties.Retry r) {
        return RetryPolicy.builder().initialDelay(r.getInitialDelay()).multiplier(r.getMultiplier())
                .maxDelay(r.getMaxDelay()).jitter(r.getJitter()).maxAttempts(r.getMaxAttempts()).build();
    }

    private static <V> void invoke(Endpoint e, Job<V> job) throws Exception {
        Object arg = e.takesJob() ? job : job.value();
        try {
            ReflectionUtils.makeAccessible(e.method());
            e.method().invoke(e.bean(), arg);
        } catch (InvocationTargetException thrown) {
            Throwable cause = thrown.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw thrown;
        }
    }

    /** Drains every worker in parallel, each within the shutdown timeout. */
    @Override
    public void stop() {
        List<Worker<?>> toStop;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            toStop = new ArrayList<>(workers);
            workers.clear();
        }
        Duration timeout = properties.getWorker().getShutdownTimeout();
        List<CompletableFuture<Void>> drains = new ArrayList<>();
        for (Worker<?> w : toStop) {
            drains.add(CompletableFuture.runAsync(() -> drain(w, timeout)));
        }
        CompletableFuture.allOf(drains.toArray(CompletableFuture[]::new)).join();
    }

    private static void drain(Worker<?> worker, Duration timeout) {
        try {
            WorkerShutdown result = worker.shutdown(timeout);
            LOG.log(result.clean() ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
                    "worker " + worker.name() + " stopped: " + result);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return properties.getWorker().getPhase();
    }

    /** @return the workers running now, for tests and diagnostics */
    public synchronized List<Worker<?>> workers() {
        return List.copyOf(workers);
    }
}
