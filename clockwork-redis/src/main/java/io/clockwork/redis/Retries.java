package io.clockwork.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * How an asynchronous script call settles: its reply at once when its first attempt succeeds, else a retry alone on a
 * small shared pool. Thread-safe.
 */
final class Retries {

    /**
     * Where an async call whose first attempt failed is retried: off the connection's I/O thread, because retries
     * sleep between attempts and may wait for a reconnect. A few daemon threads for the whole JVM, created when first
     * needed, so an outage with thousands of calls in flight queues their retries instead of starting a thread each.
     */
    static final Executor RETRIES = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "clockwork-redis-retry");
        t.setDaemon(true);
        return t;
    });

    private final ScriptRunner runner;
    private final Partitions partitions;

    Retries(ScriptRunner runner, Partitions partitions) {
        this.runner = runner;
        this.partitions = partitions;
    }

    /**
     * A call's reply: at once (on the thread that completed it) when its first attempt succeeded; else retried alone
     * with {@code alone} by {@link ScriptRunner#runAfter} on {@link #RETRIES}, whose retries may sleep. The first
     * attempt gets the command timeout as a blocking call does: a call still waiting then fails over to the retries
     * (and a batched call not yet sent is never sent).
     */
    <T> CompletableFuture<ScriptRunner.Reply<T>> settled(String operation, CompletableFuture<T> first,
                                                         Script script, int p, byte[][] alone) {
        first.orTimeout(runner.timeoutNanos(), TimeUnit.NANOSECONDS);
        return first.handle((r, e) -> e == null
                ? CompletableFuture.completedFuture(new ScriptRunner.Reply<>(r, false))
                : CompletableFuture.supplyAsync(() -> runner.<T>runAfter(operation, runner.retryNanos(),
                        () -> runner.await(first), script, partitions.keys(script, p), alone), RETRIES))
                .thenCompose(f -> f);
    }
}
