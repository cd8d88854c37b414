package io.clockwork.benchmarks.scale;

import io.clockwork.benchmarks.Harness;

/**
 * The sizes of one scale run, read from the harness's options. Immutable.
 *
 * @param pending the huge pending count
 * @param small   the small pending count the huge one is compared with
 * @param rounds  measured rounds per pending count (the tables show their median)
 * @param warmup  unreported rounds before the first measured one
 * @param ops     schedules (and as many cancels) per round
 * @param cycle   schedules timed in a row before they are cancelled, in a row: the pending count moves between the
 *                background count and that plus {@code cycle}
 * @param due     items delivered per round
 * @param storm   items due in the same millisecond in the expiry storm
 */
record ScaleSettings(int pending, int small, int rounds, int warmup, int ops, int cycle, int due, int storm) {

    ScaleSettings {
        if (small < 0 || pending <= small) {
            throw new IllegalArgumentException("need 0 <= small < pending, got small " + small + ", pending "
                    + pending);
        }
        if (rounds < 1 || warmup < 0 || cycle < 1 || ops < cycle || due < 1 || storm < 1) {
            throw new IllegalArgumentException("need rounds >= 1, warmup >= 0, ops >= cycle >= 1, due >= 1 and "
                    + "storm >= 1");
        }
    }

    /**
     * @param h the parsed options
     * @return the settings they name
     */
    static ScaleSettings of(Harness h) {
        return new ScaleSettings(h.getInt("pending"), h.getInt("small"), h.getInt("rounds"), h.getInt("warmup"),
                h.getInt("ops"), h.getInt("cycle"), h.getInt("due"), h.getInt("storm"));
    }
}
