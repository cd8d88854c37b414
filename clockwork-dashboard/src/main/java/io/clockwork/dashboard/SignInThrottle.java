package io.clockwork.dashboard;

import io.clockwork.time.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Slows, then locks out, repeated failed sign-ins, per client address and over all clients. Thread-safe: every
 * method holds the throttle's lock, briefly (sign-ins are rare).
 *
 * <p>No thread waits: an attempt that comes before its client (or everyone) may try again is refused at once, with
 * how long to wait (the dashboard answers 429 with {@code Retry-After}), and its password is not checked. After a
 * policy's free failures, each failure makes the next attempt wait, from {@code firstDelay} doubling up to
 * {@code maxDelay}; the failure that reaches {@code lockoutFailures} locks the scope out for {@code lockout}, after
 * which its failures are forgotten, as they are after {@code lockout} without a failure. A successful sign-in clears
 * its client's failures (and takes its own attempt back from the overall count).
 *
 * <p>An attempt counts as a failure from the moment it is admitted, before its password is checked, so attempts sent
 * at once cannot all be admitted before the first is counted. Time is read from a {@link Ticker}, so tests drive it.
 * At most {@value #MAX_CLIENTS} client addresses are tracked; beyond them (after forgotten ones are dropped) a new
 * address is held by the overall count alone. A client's address is its connection's: behind a reverse proxy every
 * client has the proxy's, and the per-client limit then acts as a second overall one (a forwarded header is not
 * trusted, since any client can send one).
 */
final class SignInThrottle {

    /**
     * How one scope (a client address, or all clients) answers failures. Immutable.
     *
     * @param freeFailures    failures that delay nothing
     * @param firstDelay      the wait after the first failure beyond the free ones; doubled after each further one
     * @param maxDelay        the longest such wait
     * @param lockoutFailures the failure count that locks the scope out
     * @param lockout         how long a lockout lasts, and how long failures are remembered without a new one
     */
    record Policy(int freeFailures, Duration firstDelay, Duration maxDelay, int lockoutFailures, Duration lockout) {
        Policy {
            Objects.requireNonNull(firstDelay, "firstDelay");
            Objects.requireNonNull(maxDelay, "maxDelay");
            Objects.requireNonNull(lockout, "lockout");
            if (freeFailures < 0 || lockoutFailures <= freeFailures) {
                throw new IllegalArgumentException("freeFailures must be 0 or more and below lockoutFailures, was "
                        + freeFailures + " and " + lockoutFailures);
            }
            if (firstDelay.isNegative() || firstDelay.isZero() || maxDelay.compareTo(firstDelay) < 0
                    || lockout.compareTo(maxDelay) < 0) {
                throw new IllegalArgumentException("delays must satisfy 0 < firstDelay <= maxDelay <= lockout, were "
                        + firstDelay + ", " + maxDelay + ", " + lockout);
            }
        }

        /** @return the wait after the n-th failure in a row, in nanoseconds; 0 if none */
        long waitNanos(int failures) {
            if (failures >= lockoutFailures) {
                return lockout.toNanos();
            }
            int beyond = failures - freeFailures;
            if (beyond <= 0) {
                return 0;
            }
            long first = firstDelay.toNanos();
            long max = maxDelay.toNanos();
            return beyond - 1 >= Long.numberOfLeadingZeros(first) - 1 ? max : Math.min(max, first << (beyond - 1));
        }
    }

    /** One client address: three free failures, then 1 s doubling to 30 s, locked out for 15 min at the tenth. */
    static final Policy PER_CLIENT = new Policy(3, Duration.ofSeconds(1), Duration.ofSeconds(30), 10,
            Duration.ofMinutes(15));
    /** All clients together: 30 free failures, then 1 s doubling to 10 s, locked out for 15 min at the 100th. */
    static final Policy OVERALL = new Policy(30, Duration.ofSeconds(1), Duration.ofSeconds(10), 100,
            Duration.ofMinutes(15));

    static final int MAX_CLIENTS = 10_000;

    /**
     * What the throttle says of an attempt. Immutable.
     *
     * @param admitted  whether its password may be checked
     * @param failures  the client's failures in a row: counting this attempt if admitted
     * @param delay     if admitted, how long the next attempt must wait should this one fail; if refused, how long
     *                  until an attempt is admitted again; zero for no wait
     * @param lockedOut whether that wait is a lockout
     * @param overall   whether the wait comes from the failures of all clients rather than this client's
     */
    record Verdict(boolean admitted, int failures, Duration delay, boolean lockedOut, boolean overall) {

        /** @return e.g. {@code locked out for 15m (this address)}, or empty if there is no wait */
        String describeWait() {
            if (delay.isZero()) {
                return "";
            }
            return (lockedOut ? "locked out for " : "next attempt in ") + Texts.duration(delay)
                    + (overall ? " (all clients)" : " (this address)");
        }

        /** @return the wait in whole seconds, rounded up, for {@code Retry-After} */
        long retryAfterSeconds() {
            return (delay.toNanos() + 999_999_999L) / 1_000_000_000L;
        }
    }

    /** One scope's failures in a row. Guarded by the throttle. */
    private static final class Record {
        int failures;
        long lastNanos;
    }

    private final Ticker ticker;
    private final Policy perClient;
    private final Policy overall;
    private final Map<String, Record> clients = new HashMap<>();
    private final Record all = new Record();

    SignInThrottle(Ticker ticker) {
        this(ticker, PER_CLIENT, OVERALL);
    }

    SignInThrottle(Ticker ticker, Policy perClient, Policy overall) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.perClient = Objects.requireNonNull(perClient, "perClient");
        this.overall = Objects.requireNonNull(overall, "overall");
    }

    /**
     * Admits an attempt from a client, counting it as a failure until {@link #succeeded} says otherwise, or refuses
     * it if the client or everyone must wait.
     *
     * @param client the client's address
     * @return the verdict
     */
    synchronized Verdict admit(String client) {
        Objects.requireNonNull(client, "client");
        long now = ticker.read();
        forgetIfStale(all, overall, now);
        Record mine = clients.get(client);
        if (mine != null && forgetIfStale(mine, perClient, now)) {
            clients.remove(client);
            mine = null;
        }
        int mineFailures = mine == null ? 0 : mine.failures;
        long clientLeft = mine == null ? 0 : left(mine, perClient, now);
        long overallLeft = left(all, overall, now);
        if (clientLeft > 0 || overallLeft > 0) {
            boolean byOverall = overallLeft > clientLeft;
            boolean locked = byOverall ? all.failures >= overall.lockoutFailures()
                    : mineFailures >= perClient.lockoutFailures();
            return new Verdict(false, mineFailures, Duration.ofNanos(Math.max(clientLeft, overallLeft)), locked,
                    byOverall);
        }
        if (mine == null) {
            mine = track(client, now);
        }
        all.failures++;
        all.lastNanos = now;
        long clientWait = 0;
        boolean clientLocked = false;
        if (mine != null) {
            mine.failures++;
            mine.lastNanos = now;
            mineFailures = mine.failures;
            clientWait = perClient.waitNanos(mine.failures);
            clientLocked = mine.failures >= perClient.lockoutFailures();
        } else {
            mineFailures = 1;
        }
        long overallWait = overall.waitNanos(all.failures);
        boolean byOverall = overallWait > clientWait;
        boolean locked = byOverall ? all.failures >= overall.lockoutFailures() : clientLocked;
        return new Verdict(true, mineFailures, Duration.ofNanos(Math.max(clientWait, overallWait)), locked,
                byOverall);
    }

    /**
     * Records that an admitted attempt signed in: its client's failures are cleared, and its attempt leaves the
     * overall count.
     *
     * @param client the client's address
     */
    synchronized void succeeded(String client) {
        Objects.requireNonNull(client, "client");
        clients.remove(client);
        if (all.failures > 0) {
            all.failures--;
        }
    }

    /** @return how many client addresses are tracked */
    synchronized int trackedClients() {
        return clients.size();
    }

    private Record track(String client, long now) {
        if (clients.size() >= MAX_CLIENTS) {
            clients.values().removeIf(r -> stale(r, perClient, now));
            if (clients.size() >= MAX_CLIENTS) {
                return null; // held by the overall count alone
            }
        }
        Record r = new Record();
        clients.put(client, r);
        return r;
    }

    /** @return the nanoseconds until the scope admits an attempt again; 0 or less if it does now */
    private static long left(Record r, Policy p, long now) {
        long wait = p.waitNanos(r.failures);
        return wait == 0 ? 0 : wait - (now - r.lastNanos);
    }

    private static boolean stale(Record r, Policy p, long now) {
        return r.failures > 0 && now - r.lastNanos >= p.lockout().toNanos();
    }

    /** Forgets a scope's failures once {@code lockout} has passed since its last one. @return whether it did */
    private static boolean forgetIfStale(Record r, Policy p, long now) {
        if (stale(r, p, now)) {
            r.failures = 0;
            return true;
        }
        return false;
    }
}
