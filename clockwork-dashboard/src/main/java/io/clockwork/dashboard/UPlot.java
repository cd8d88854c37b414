package io.clockwork.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Where the chart library bundled from its WebJar lies in the jar. Immutable and thread-safe. */
final class UPlot {

    /** The WebJar's version, read from its Maven metadata, so the folder follows the pom's {@code uplot.version}. */
    static final String VERSION = version();

    private UPlot() {
    }

    private static String version() {
        try (InputStream in = UPlot.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the uPlot WebJar (org.webjars.npm:uplot) is not on the class path");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the uPlot WebJar's version", e);
        }
    }
}
