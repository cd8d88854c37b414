package io.clockwork.jcstress;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Options;

/**
 * Runs the engine's and the in-process queue's jcstress tests and fails (exits non-zero) if any outcome is
 * forbidden, any test errs, or a test is missing: jcstress itself throws when a test fails, but passes when no test
 * matches its filter, so an annotation processor that did not run would otherwise look like success. Takes
 * jcstress's own options ({@code -m quick}, {@code -r dir}, ...). The system property
 * {@value #JVM_ARGS_PROPERTY}, when not blank, is the one JVM mode every test runs under (jcstress's
 * {@code -jvmArgs}); blank, jcstress probes and runs every JVM mode it knows.
 */
public final class RunEngineTests {

    /** The tests this module holds; each must be found and run. */
    static final String[] EXPECTED = {
        "io.clockwork.engine.LanePublication",
        "io.clockwork.engine.NearWakeUp",
        "io.clockwork.engine.FarWakeUp",
        "io.clockwork.engine.OwnerDatedWakeUp",
        "io.clockwork.engine.BucketWriters",
        "io.clockwork.inprocess.CancelVersusDelivery",
        "io.clockwork.inprocess.OfferVersusCancel",
        "io.clockwork.inprocess.BatchOfferIsWhole",
        "io.clockwork.inprocess.SleeperSeesOffer",
    };

    /** The system property that names the single JVM mode, or is blank for all of them. */
    static final String JVM_ARGS_PROPERTY = "clockwork.jcstress.jvmArgs";

    private RunEngineTests() {
    }

    public static void main(String[] args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("-t");
        all.add("io\\.clockwork\\.(engine|inprocess)\\..*");
        String jvmArgs = System.getProperty(JVM_ARGS_PROPERTY, "").trim();
        if (!jvmArgs.isEmpty()) {
            all.add("-jvmArgs");
            all.add(jvmArgs);
        }
        Options options = new Options(all.toArray(String[]::new));
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
