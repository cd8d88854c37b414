package io.clockwork.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.schedule.Schedules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The dependency between a contract and its SPI runs one way, SPI to API: no compiled class of
 * {@code io.clockwork.queue} names a type of {@code io.clockwork.queue.spi}, and none of {@code io.clockwork.schedule}
 * one of {@code io.clockwork.schedule.spi}. It reads the class files' bytes, where every type a class uses is named in
 * its constant pool (imports, fully qualified names and descriptors alike).
 */
class ApiImportsNoSpiTest {

    @Test
    void theQueueContractNamesNoTypeOfTheQueueSpi() {
        assertThat(classesNaming(DelayedQueue.class, "io/clockwork/queue/spi/")).isEmpty();
    }

    @Test
    void theScheduleContractNamesNoTypeOfAScheduleSpi() {
        assertThat(classesNaming(Schedules.class, "io/clockwork/schedule/spi/")).isEmpty();
    }

    /** @return the class files in the package of {@code member} (not its subpackages) that name {@code prefix} */
    private static List<String> classesNaming(Class<?> member, String prefix) {
        Path dir = packageDirectory(member);
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> classes = files.filter(f -> f.toString().endsWith(".class")).toList();
            assertThat(classes).as("class files in " + dir).isNotEmpty();
            return classes.stream().filter(f -> read(f).contains(prefix)).map(f -> f.getFileName().toString())
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path packageDirectory(Class<?> member) {
        try {
            Path root = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
            return root.resolve(member.getPackageName().replace('.', '/'));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path classFile) {
        try {
            // ISO-8859-1 maps each byte to one char, so an ASCII name in the constant pool reads as itself.
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
