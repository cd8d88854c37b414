package io.clockwork.jcstress;

import java.util.SortedSet;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;

/**
 * Runs the engine's jcstress tests and fails (exits non-zero) if any outcome is forbidden, any test errs, or a test
 * is missing: jcstress itself throws when a test fails, but passes when no test matches its filter, so an annotation
 * processor that did not run would otherwise look like success. Takes jcstress's own options ({@code -m quick},
 * {@code -r dir}, ...).
 */
public final class RunEngineTests {

    /** The tests this module holds; each must be found and run. */
    static final String[] EXPECTED = {
        "io.clockwork.engine.LanePublication",
        "io.clockwork.engine.NearWakeUp",
        "io.clockwork.engine.FarWakeUp",
        "io.clockwork.engine.OwnerDatedWakeUp",
        "io.clockwork.engine.BucketWriters",
        "io.clockwork.queue.CancelVersusDelivery",
        "io.clockwork.queue.OfferVersusCancel",
        "io.clockwork.queue.BatchOfferIsWhole",
        "io.clockwork.queue.SleeperSeesOffer",
    };

    private RunEngineTests() {
    }

    public static void main(String[] args) throws Exception {
        String[] withFilter = new String[args.length + 2];
        System.arraycopy(args, 0, withFilter, 0, args.length);
        withFilter[args.length] = "-t";
        withFilter[args.length + 1] = "io\\.clockwork\\.(engine|queue)\\..*";
        Options options = new Options(withFilter);
        if (!options.parse()) {
            System.exit(2);
        }
        JCStress jcstress = new JCStress(options);
        SortedSet<String> found = jcstress.getTests();
        for (String name : EXPECTED) {
            if (!found.contains(name)) {
                System.err.println("jcstress test " + name + " not found among " + found
                        + " (did the jcstress annotation processor run?)");
                System.exit(1);
            }
        }
        try {
            jcstress.run(); // throws AssertionError naming the failed tests
        } catch (Throwable failure) {
            failure.printStackTrace();
            System.exit(1);
        }
        System.exit(0); // jcstress may leave non-daemon threads behind
    }
}
