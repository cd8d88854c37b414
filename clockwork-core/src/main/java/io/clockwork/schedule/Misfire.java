package io.clockwork.schedule;

import java.util.Objects;

/**
 * What a scheduler does with fire times it finds more than its misfire threshold in the past, because no scheduler
 * ran then (downtime, a long pause): fire one occurrence now, fire each missed one up to a bound, or skip them.
 * Fire times less late than the threshold always fire, each once. Immutable and thread-safe.
 *
 * <p>Missed fire times are visited oldest first; the occurrence fired for them is due at once and carries its own
 * fire time in its id ({@link Occurrence}). After them the schedule goes on with its next fire time after now.
 */
public final class Misfire {

    /** The most missed fire times {@link #catchUp(int)} fires in one pass. */
    public static final int MAX_CATCH_UP = 1000;

    /** One occurrence for the oldest missed fire time, due now; the others are skipped. The default. */
    public static final Misfire FIRE_ONCE = new Misfire(1, "once");

    /** No occurrence for missed fire times: the schedule goes on with its next fire time after now. */
    public static final Misfire SKIP = new Misfire(0, "skip");

    private final int bound;
    private final String spec;

    private Misfire(int bound, String spec) {
        this.bound = bound;
        this.spec = spec;
    }

    /**
     * One occurrence for each missed fire time, oldest first, up to {@code max}; older ones beyond the bound are
     * skipped so that a long downtime does not flood the queue.
     *
     * @param max in [1, {@link #MAX_CATCH_UP}]
     * @return the policy
     * @throws IllegalArgumentException naming {@code max} if out of range
     */
    public static Misfire catchUp(int max) {
        if (max < 1 || max > MAX_CATCH_UP) {
            throw new IllegalArgumentException("max must be in [1, " + MAX_CATCH_UP + "], was " + max);
        }
        return new Misfire(max, "catch-up:" + max);
    }

    /**
     * @param spec {@code once}, {@code skip} or {@code catch-up:<max>}, as {@link #spec()} writes
     * @return the policy
     * @throws IllegalArgumentException naming {@code misfire} if malformed
     */
    public static Misfire parse(String spec) {
        Objects.requireNonNull(spec, "misfire");
        if (spec.equals(FIRE_ONCE.spec)) {
            return FIRE_ONCE;
        }
        if (spec.equals(SKIP.spec)) {
            return SKIP;
        }
        if (spec.startsWith("catch-up:")) {
            try {
                return catchUp(Integer.parseInt(spec.substring("catch-up:".length())));
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("misfire must be once, skip or catch-up:<1.." + MAX_CATCH_UP + ">, was '"
                + spec + "'");
    }

    /** @return how many missed fire times one pass fires at most (0 for {@link #SKIP}) */
    public int bound() {
        return bound;
    }

    /** @return {@code once}, {@code skip} or {@code catch-up:<max>} */
    public String spec() {
        return spec;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Misfire m && m.bound == bound && m.spec.equals(spec);
    }

    @Override
    public int hashCode() {
        return spec.hashCode();
    }

    @Override
    public String toString() {
        return spec;
    }
}
