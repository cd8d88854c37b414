package io.clockwork.benchmarks.scale;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The collectors a storm can be measured under ({@code ScaleHarness --collectors}): their names in the harness's
 * tables, the JVM option that selects each, and which one this JVM runs. Stateless; thread-safe.
 *
 * <p>Why the storm names its collector: a collection that stops every thread while the storm is delivered is a pause
 * every producer sees, and how long it lasts is the collector's: G1 (the JDK's default, aiming at 200 ms pauses)
 * copies the young objects that are live, ZGC and Shenandoah relocate them concurrently with pauses of well under a
 * millisecond ({@link YoungCollectionFloor} measures both on the machine at hand).
 */
final class GarbageCollectors {

    /** The collectors known, by name, with the option that selects each. */
    static final Map<String, String> OPTIONS = Map.of(
            "G1", "-XX:+UseG1GC",
            "ZGC", "-XX:+UseZGC",
            "Shenandoah", "-XX:+UseShenandoahGC",
            "Parallel", "-XX:+UseParallelGC",
            "Serial", "-XX:+UseSerialGC");

    /** Each collector's name as the first word of one of its {@link GarbageCollectorMXBean}s' names. */
    private static final Map<String, String> BY_BEAN = Map.of(
            "G1", "G1",
            "ZGC", "ZGC",
            "Shenandoah", "Shenandoah",
            "PS", "Parallel",
            "Copy", "Serial");

    private GarbageCollectors() {
    }

    /**
     * @param names collector names, as {@code --collectors} gives them
     * @throws IllegalArgumentException naming the first unknown one and the known ones
     */
    static void check(List<String> names) {
        for (String name : names) {
            if (!OPTIONS.containsKey(name)) {
                throw new IllegalArgumentException("--collectors: unknown collector '" + name + "', expected one of "
                        + OPTIONS.keySet().stream().sorted().toList());
            }
        }
    }

    /**
     * @param name a known collector's name
     * @return the JVM option that selects it
     */
    static String option(String name) {
        check(List.of(name));
        return OPTIONS.get(name);
    }

    /**
     * @param group  a word in the names of the beans to sum where the JVM has such beans ("Cycles", "Pauses"), as
     *               ZGC and Shenandoah report their concurrent cycles and their pauses apart
     * @param figure what to sum of each bean (its count or its time; a bean's -1, "undefined", counts as 0)
     * @return the figure summed over the beans of that group, or over every bean if none is of it
     */
    static long total(String group, ToLongFunction<GarbageCollectorMXBean> figure) {
        List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
        boolean grouped = beans.stream().anyMatch(gc -> gc.getName().contains(group));
        long total = 0;
        for (GarbageCollectorMXBean gc : beans) {
            if (!grouped || gc.getName().contains(group)) {
                total += Math.max(0, figure.applyAsLong(gc));
            }
        }
        return total;
    }

    /** @return the name of the collector this JVM runs, or the first bean's name if it is none of the known ones */
    static String current() {
        List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
        for (GarbageCollectorMXBean bean : beans) {
            String first = bean.getName().split(" ")[0];
            if (BY_BEAN.containsKey(first)) {
                return BY_BEAN.get(first);
            }
        }
        return beans.isEmpty() ? "none" : beans.get(0).getName().replace(' ', '-');
    }
}
