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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

/**
 * Runs the queue's scripts: as functions of the {@link FunctionLibrary} ({@code FCALL}), or where the server has no
 * Functions (before Redis 7.0) or its user may not load them, as scripts ({@code EVALSHA}); with a deadline; loads the
 * library (on every master) or a script once and again when the server answers that it lacks it (a {@code FUNCTION
 * FLUSH} or {@code SCRIPT FLUSH}, a restart without persistence, a new node); retries after connection trouble for
 * as long as configured; and turns Lettuce's errors into {@link RedisQueueException}s that name the queue, the
 * server and the operation. Thread-safe.
 *
 * <p>Functions run until the server refuses them: {@code FUNCTION} or {@code FCALL} answered as an unknown command or
 * for want of permission switches this runner to scripts for good, and it says so in the log.
 *
 * <p>Only transient failures are retried: no connection, no reply in time, a server still loading its data after a
 * restart, a busy server or a cluster failover. A script error is a bug and fails at once. A retried operation may
 * have run before its reply was lost; the scripts keep that harmless (an offer's id deduplicates its retry, and a
 * delivery lost that way comes back after the visibility timeout).
 */
final class ScriptRunner {

    private static final System.Logger LOG = System.getLogger(ScriptRunner.class.getName());
    private static final long MAX_BACKOFF_MS = 500;
    /** FUNCTION (any subcommand) or FCALL, as Redis quotes a command it does not know or does not allow. */
    private static final Pattern FUNCTION_COMMAND = Pattern.compile("(?i)['`](function(\\|[a-z]+)?|fcall(_ro)?)['`]");
    /**
     * How many times one call loads the code it finds missing before it fails: each load is followed at once by the
     * call, so only flushes arriving faster than a round trip exhaust it.
     */
    private static final int MAX_LOADS_PER_CALL = 10;

    private final Connections connections;
    private final String queueName;
    private final long timeoutNanos;
    private final long retryNanos;
    private final Ticker ticker;
    private final LongAdder loads = new LongAdder();
    /** True while the library's functions are used; false once the server turned out to have none for us. */
    private volatile boolean functions = true;
    private final Object loadLock = new Object();
    /** Loads finished through {@link #load(Script, long)}; written under loadLock. */
    private volatile long loadsDone;
    /** Whether a fire-and-forget call's load of missing code is under way (one loader thread at a time). */
    private final AtomicBoolean loading = new AtomicBoolean();

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

    /**
     * Loads the library, or every script where functions cannot be used, best effort: a server that is down now
     * gets them when a call finds them missing.
     */
    void preload() {
        if (functions) {
            try {
                loadLibrary();
                if (functions) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': cannot load the function library"
                        + " now (" + e + "); it loads on first use", e);
                return;
            }
        }
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

    /** @return whether calls run as functions ({@code FCALL}); false: as scripts ({@code EVALSHA}) */
    boolean functions() {
        return functions;
    }

    /** @return how many times this runner loaded the library on a server or sent {@code SCRIPT LOAD} */
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
     * Runs a script whose first attempt is made by someone else (a {@link Batcher} coalescing concurrent calls into one
     * script call): if that attempt finds the code missing ({@link #isMissing}) it is loaded and the call runs alone;
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
                    } catch (RuntimeException e) {
                        if (!isMissing(e) && !switchesToScripts(e)) {
                            throw e;
                        }
                        // Not run: the server lacks the code. once() loads it and runs this call alone.
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
        RedisFuture<Object> f = send(script, keys, args);
        f.whenComplete((r, e) -> {
            if (e instanceof RuntimeException re && (isMissing(re) || switchesToScripts(re))
                    && loading.compareAndSet(false, true)) {
                Thread loader = new Thread(() -> {
                    try {
                        load(script);
                    } catch (RuntimeException le) {
                        LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': load failed: " + le);
                    } finally {
                        loading.set(false);
                    }
                }, "clockwork-load-" + queueName);
                loader.setDaemon(true);
                loader.start(); // not on Lettuce's event loop, which must never wait for a reply
            } else if (e != null) {
                LOG.log(System.Logger.Level.DEBUG, () -> "queue '" + queueName + "': " + script.fileName()
                        + " failed: " + e);
            }
        });
        return f;
    }

    /**
     * Sends one call of a script without waiting: {@code FCALL} of its function, or {@code EVALSHA} where this
     * runner uses scripts. A caller that sends for itself (a group commit, a batch) hands a failure the server
     * answered with "missing" ({@link #isMissing}) to {@link #runAfter}, which loads the code and runs the call again.
     *
     * @param script the script
     * @param keys   its keys
     * @param args   its arguments
     * @param <T>    the reply type
     * @return the reply's future
     */
    <T> RedisFuture<T> send(Script script, byte[][] keys, byte[]... args) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connections.commands();
        return functions ? commands.fcall(FunctionLibrary.functionName(script), script.output(), keys, args)
                : commands.evalsha(script.sha(), script.output(), keys, args);
    }

    /**
     * @param e a call's failure
     * @return whether the server did not run the call because it lacks the code: {@code NOSCRIPT}, or a function
     *         not found (after {@code FUNCTION FLUSH}, on a new node, or on a restart without persistence)
     */
    static boolean isMissing(RuntimeException e) {
        return e instanceof RedisNoScriptException || (e instanceof RedisCommandExecutionException
                && String.valueOf(e.getMessage()).startsWith("ERR Function not found"));
    }

    private <T> T once(Script script, byte[][] keys, byte[]... args) {
        for (int loads = 0; ; loads++) {
            long seen = loadsDone;
            try {
                return await(send(script, keys, args));
            } catch (RuntimeException e) {
                if (loads == MAX_LOADS_PER_CALL || (!isMissing(e) && !switchesToScripts(e))) {
                    throw e;
                }
                // Not run: the server lacks the code (flushed, restarted, a new node): teach it again, then run it.
                load(script, seen);
            }
        }
    }

    /**
     * Loads what a call of script needs, unless another thread finished a load since the call was sent ({@code seen}
     * is {@link #loadsDone} read before sending): one load at a time, so that callers who all find the code missing
     * at once (after a flush) send one {@code FUNCTION LOAD}, which compiles the whole library, not one each.
     */
    private void load(Script script, long seen) {
        synchronized (loadLock) {
            if (loadsDone == seen) {
                load(script);
                loadsDone++;
            }
        }
    }

    /** Loads what a call of script needs: the library on every master, or the one script. */
    private void load(Script script) {
        if (functions) {
            loadLibrary();
            if (functions) {
                return;
            }
        }
        String sha = await(connections.commands().scriptLoad(script.body()));
        loads.increment();
        if (!script.sha().equalsIgnoreCase(sha)) {
            throw new IllegalStateException("server digests " + script.fileName() + " as " + sha + ", expected "
                    + script.sha());
        }
    }

    /**
     * Loads the library on every master that lacks it; a master that has it answers that it exists, which is
     * success. A server without Functions, or a user not allowed to load them, switches this runner to scripts.
     */
    private void loadLibrary() {
        for (Connections.Master m : connections.masters()) {
            try {
                await(m.commands().functionLoad(FunctionLibrary.text()));
                loads.increment();
            } catch (RuntimeException e) {
                if (String.valueOf(e.getMessage()).contains("already exists")) {
                    continue;
                }
                if (switchesToScripts(e)) {
                    return;
                }
                throw e;
            }
        }
    }

    /**
     * Switches to scripts if e says the server has no Functions or the user may not use them.
     *
     * @return whether it did (or had already)
     */
    private boolean switchesToScripts(RuntimeException e) {
        if (!functions) {
            return e instanceof RedisCommandExecutionException && isUnusable(e);
        }
        if (!(e instanceof RedisCommandExecutionException) || !isUnusable(e)) {
            return false;
        }
        functions = false;
        LOG.log(System.Logger.Level.INFO, () -> "queue '" + queueName + "' on " + connections.where()
                + ": runs its operations as scripts (EVALSHA) instead of functions (FCALL): " + e.getMessage());
        return true;
    }

    private static boolean isUnusable(RuntimeException e) {
        String m = String.valueOf(e.getMessage());
        return (m.startsWith("ERR unknown command") || m.startsWith("NOPERM")) && FUNCTION_COMMAND.matcher(m).find();
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
