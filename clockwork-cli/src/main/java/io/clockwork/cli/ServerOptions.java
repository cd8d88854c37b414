package io.clockwork.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The choice of backend for a command that works on either: the Redis options ({@link RedisOptions}) or the
 * PostgreSQL ones ({@link PostgresOptions}), exactly one of them. Not thread-safe: one per command line.
 *
 * <p>{@code --postgres} beside {@code --redis} or {@code --redis-file} is bad usage; beside the
 * {@value RedisOptions#ENV} variable it wins, as an explicit option wins over a default exported for the session.
 */
public final class ServerOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Mixin
    RedisOptions redis;

    @Mixin
    PostgresOptions postgres;

    /**
     * @return the backend the options name
     * @throws ParameterException if none or both are named, or the one named is malformed
     */
    public Backend required() {
        PostgresTarget pg = postgres.target();
        if (pg != null) {
            if (redis.uri != null || redis.file != null) {
                throw new ParameterException(mixee.commandLine(), "give one server: --redis (or --redis-file) or "
                        + "--postgres, not both");
            }
            return pg;
        }
        RedisTarget r = redis.target();
        if (r == null) {
            throw new ParameterException(mixee.commandLine(), "no server: give --redis URI (or --redis-file PATH, or "
                    + "set " + RedisOptions.ENV + ") or --postgres JDBC-URL");
        }
        return r;
    }

    /**
     * Refuses an option that applies to Redis only when the backend is PostgreSQL.
     *
     * @param backend the chosen backend
     * @param option  the option, e.g. {@code --cluster}
     * @param given   whether it was given
     * @throws ParameterException if it was given for a backend without partitions
     */
    public void redisOnly(Backend backend, String option, boolean given) {
        if (given && !backend.partitioned()) {
            throw new ParameterException(mixee.commandLine(), option + " applies to Redis only, not to --postgres");
        }
    }
}
