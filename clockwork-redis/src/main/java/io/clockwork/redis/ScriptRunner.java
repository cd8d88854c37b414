package io.clockwork.redis;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisNoScriptException;
import io.clockwork.time.Ticker;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs the queue's scripts: {@code EVALSHA} with a deadline, {@code SCRIPT LOAD} once per script and again after
 * {@code NOSCRIPT}, retries after connection trouble for as long as configured, and turns Lettuce's errors into
 * {@link RedisQueueException}s that name the queue, the server and the operation. Thread-safe.
 *
 * <p>Only transient failures are retried: no connection, no reply in time, a server still loading its data after a
 * restart, a busy server or a cluster failover. A script error is a bug and fails at once. A retried operation may
 * have run before its reply was lost; the scripts keep that harmless (an offer's id deduplicates its retry, and a
 * delivery lost that way comes back after the visibility timeout).
 */
final class ScriptRunner {

    private static final System.Logger LOG = System.getLogger(ScriptRunner.class.getName());
    private static final long MAX_BACKOFF_MS = 500;

    private final Connections connections;
    private final String queueName;
    private final long timeoutNanos;
    private final long retryNanos;
    private final Ticker ticker;
    private final LongAdder loads = new LongAdder();

    /**
     * @param connections    where to run
     * @param queueName      for error messages
     * @param commandTimeout how long one attempt may wait for its reply
     * @param retryFor       how long to keep retrying after transient failures; zero: fail at once
     * @param ticker         measures how long retries have taken (never a due time)
     */
    ScriptRunner(Connections connections, String queueName, Duration commandTimeout, Duration retryFor,
                 Ticker ticker) {
        this.ticker = ticker;
        this.connections = connections;
        this.queueName = queueName;
        this.timeoutNanos = commandTimeout.toNanos();
        this.retryNanos = retryFor.toNanos();
    }

    /** Loads every script once, best effort: a server that is down now gets them after {@code NOSCRIPT}. */
    void preload() {
        for (Script s : Script.values()) {
            try {
                load(s);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': cannot preload "
                        + s.fileName() + " now (" + e + "); it loads on first use", e);
                return;
            }
        }
    }

    /** @return how long one attempt waits for its reply, in nanoseconds */
    long timeoutNanos() {
        return timeoutNanos;
    }

    /** @return how many times this runner sent {@code SCRIPT LOAD} */
    long loads() {
        return loads.sum();
    }

    /**
     * Runs a script, retrying transient failures within the configured time.
     *
     * @param operation the queue operation, for error messages
     * @param script    the script
     * @param keys      its keys
     * @param args      its arguments
     * @param <T>       the reply type ({@code List<Object>} or {@code Long})
     * @return the reply
     * @throws RedisQueueException if it failed
     */
    <T> T run(String operation, Script script, byte[][] keys, byte[]... args) {
        return this.<T>run(operation, retryNanos, script, keys, args).value();
    }

    /**
     * A reply, and whether an earlier attempt of the same call failed after it may have run on the server (its
     * reply lost to a timeout, a disconnect or a crash), so that the reply may describe a state that attempt made.
     *
     * @param value     the reply
     * @param uncertain whether an earlier attempt may have run
     * @param <T>       the reply type
     */
    record Reply<T>(T value, boolean uncertain) {
    }

    /**
     * Runs a script like {@link #run(String, Script, byte[][], byte[]...)}, telling whether it was retried.
     *
     * @param operation the queue operation, for error messages
     * @param script    the script
     * @param keys      its keys
     * @param args      its arguments
     * @param <T>       the reply type
     * @return the reply
     */
    <T> Reply<T> runTracked(String operation, Script script, byte[][] keys, byte[]... args) {
        return run(operation, retryNanos, script, keys, args);
    }

    /**
     * Runs a script once, without retrying: for callers that have somewhere else to go when this slot is down (a
     * poll moves on to the next partition).
     *
     * @param operation the queue operation, for error messages
     * @param script    the script
     * @param keys      its keys
     * @param args      its arguments
     * @param <T>       the reply type
     * @return the reply
     * @throws RedisQueueException if it failed; {@link #isTransient(RedisQueueException)} tells whether a retry
     *                             may succeed
     */
    <T> T runOnce(String operation, Script script, byte[][] keys, byte[]... args) {
        return this.<T>run(operation, 0, script, keys, args).value();
    }

    /** @return how long operations retry after transient failures, in nanoseconds */
    long retryNanos() {
        return retryNanos;
    }

    /**
     * Runs a script whose first attempt is made by someone else (a {@link Batcher} coalescing concurrent calls into
     * one script call): if that attempt fails with {@code NOSCRIPT} the script is loaded and the call runs alone;
     * after a transient failure it is retried alone (with {@code args}) like {@link #run}, for at most
     * {@code retryNanos} in all.
     *
     * @param operation  the queue operation, for error messages
     * @param retryNanos how long to keep retrying; zero: once
     * @param first      the first attempt: waits for and returns this call's own reply, or throws Lettuce's error
     * @param script     the script
     * @param keys       its keys
     * @param args       its arguments for this call alone
     * @param <T>        the reply type
     * @return the reply
     */
    <T> Reply<T> runAfter(String operation, long retryNanos, Supplier<T> first, Script script, byte[][] keys,
                          byte[]... args) {
        return run(operation, retryNanos, first, script, keys, args);
    }

    private <T> Reply<T> run(String operation, long retryNanos, Script script, byte[][] keys, byte[]... args) {
        return run(operation, retryNanos, null, script, keys, args);
    }

    private <T> Reply<T> run(String operation, long retryNanos, Supplier<T> first, Script script, byte[][] keys,
                             byte[]... args) {
        long start = ticker.read();
        long backoffMs = 10;
        int attempt = 1;
        boolean mayHaveRun = false;
        while (true) {
            try {
                if (first != null) {
                    Supplier<T> f = first;
                    first = null;
                    try {
                        return new Reply<>(f.get(), false);
                    } catch (RedisNoScriptException e) {
                        // Not run: the server forgot the script. once() loads it and runs this call alone.
                        return new Reply<>(once(script, keys, args), false);
                    }
                }
                return new Reply<>(once(script, keys, args), mayHaveRun);
            } catch (RuntimeException e) {
                mayHaveRun = true;
                long elapsed = ticker.read() - start;
                if (!isTransient(e) || elapsed + TimeUnit.MILLISECONDS.toNanos(backoffMs) > retryNanos
                        || Thread.currentThread().isInterrupted()) {
                    throw failure(operation, e, attempt, elapsed);
                }
                LOG.log(System.Logger.Level.DEBUG, "queue ''{0}'': {1} attempt {2} failed ({3}), retrying",
                        queueName, operation, attempt, e);
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw failure(operation, e, attempt, ticker.read() - start);
                }
                backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
                attempt++;
            }
        }
    }

    /**
     * Runs a script once without waiting for its reply: for wake-up signals, whose loss only delays a poller by
     * its re-check interval.
     *
     * @param script the script
     * @param keys   its keys
     * @param args   its arguments
     * @return the reply's stage, for callers that want to know when it was sent (it never needs to be awaited)
     */
    java.util.concurrent.CompletionStage<Object> fireAndForget(Script script, byte[][] keys, byte[]... args) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connections.commands();
        RedisFuture<Object> f = commands.evalsha(script.sha(), script.output(), keys, args);
        f.whenComplete((r, e) -> {
            if (e instanceof RedisNoScriptException) {
                commands.scriptLoad(script.body()).thenRun(loads::increment);
            } else if (e != null) {
                LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': " + script.fileName()
                        + " failed: " + e);
            }
        });
        return f;
    }

    private <T> T once(Script script, byte[][] keys, byte[]... args) {
        try {
            return await(connections.commands().evalsha(script.sha(), script.output(), keys, args));
        } catch (RedisNoScriptException e) {
            // The server forgot the script (restart, failover, SCRIPT FLUSH): teach it again, then run it.
            load(script);
            return await(connections.commands().evalsha(script.sha(), script.output(), keys, args));
        }
    }

    private void load(Script script) {
        String sha = await(connections.commands().scriptLoad(script.body()));
        loads.increment();
        if (!script.sha().equalsIgnoreCase(sha)) {
            throw new IllegalStateException("server digests " + script.fileName() + " as " + sha + ", expected "
                    + script.sha());
        }
    }

    /**
     * Waits for a reply like every command of this runner: at most the command timeout, cancelling the future then
     * (a batched call not yet sent is then never sent).
     *
     * @param future the reply
     * @param <T>    its type
     * @return the reply
     */
    <T> T await(Future<T> future) {
        try {
            return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // Cancelled, a command still waiting for a reconnect is never sent late.
            future.cancel(false);
            throw new RedisCommandTimeoutException("no reply within " + Duration.ofNanos(timeoutNanos));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException r ? r : new RedisException(cause);
        } catch (InterruptedException e) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while waiting for a reply", e);
        }
    }

    /**
     * @param e a failure of this runner
     * @return whether it was transient (Redis unreachable, not answering, loading, failing over), so that the same
     *         operation may succeed later
     */
    static boolean isTransient(RedisQueueException e) {
        return e.getCause() instanceof RuntimeException cause && isTransient(cause);
    }

    static boolean isTransient(RuntimeException e) {
        if (e instanceof RedisLoadingException || e instanceof RedisBusyException) {
            return true;
        }
        if (e instanceof RedisCommandExecutionException) {
            String m = String.valueOf(e.getMessage());
            return m.startsWith("CLUSTERDOWN") || m.startsWith("TRYAGAIN") || m.startsWith("MASTERDOWN")
                    || m.startsWith("READONLY");
        }
        return e instanceof RedisException;
    }

    private RedisQueueException failure(String operation, RuntimeException e, int attempts, long elapsedNanos) {
        String retried = attempts > 1 ? " after " + attempts + " attempts in "
                + TimeUnit.NANOSECONDS.toMillis(elapsedNanos) + " ms" : "";
        String kind = isTransient(e) ? "Redis unreachable or not answering" : "Redis error";
        return new RedisQueueException("queue '" + queueName + "' on " + connections.where() + ": " + operation
                + " failed" + retried + ": " + kind + ": " + FailureCause.explain(e), e);
    }

    /** @return the connections the scripts run on */
    Connections connections() {
        return connections;
    }
}
