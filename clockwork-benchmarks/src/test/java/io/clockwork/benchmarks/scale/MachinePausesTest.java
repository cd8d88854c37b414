package io.clockwork.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link MachinePauses} prints one row per thread count, with figures, and refuses a count below one. */
class MachinePausesTest {

    @Test
    void printsARowPerThreadCount() throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            MachinePauses.main(new String[] {"--threads", "1,2", "--seconds", "1"});
        } finally {
            System.setOut(out);
        }
        String table = captured.toString(StandardCharsets.UTF_8);
        for (int threads = 1; threads <= 2; threads++) {
            assertThat(table).containsPattern(Pattern.compile("(?m)^\\| " + threads
                    + " \\| [0-9]+\\.[0-9]{2} \\| [0-9]+ \\| [0-9]+ \\| ([0-9]+\\.[0-9]{2}|not reported) \\|$"));
        }
    }

    @Test
    void refusesAThreadCountBelowOne() {
        assertThatThrownBy(() -> MachinePauses.main(new String[] {"--threads", "0", "--seconds", "1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--threads");
    }
}
