package dev.flushline.table;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's lines on the class paths it meets, each in a child JVM running {@link LoggingProbe}
 * (the tests' own JVM has cassandra-all's logback as its SLF4J backend):
 * <ul>
 * <li>the runtime class path without the command line's backend, as a program using the library
 *     has it: the library prints nothing of its own on stdout or stderr; SLF4J says once that it
 *     found no provider (its own notice, three lines starting {@code SLF4J(W):});</li>
 * <li>with slf4j-jdk14 and the command line's configuration (CliLogging, as Main installs it):
 *     stderr holds the lines the library printed there before it logged through SLF4J, which a run
 *     with a hook printing each line on stderr reproduces, word for word but for the WARN before
 *     a file left alone.</li>
 * </ul>
 * The class paths come from runtime-classpath.txt (the build writes it) and this build's classes.
 */
class SLF4JClassPathTest {
    /** What slf4j-api 2.0.17 prints, once, when it finds no provider. */
    static final String NO_PROVIDERS_NOTICE = "SLF4J(W): No SLF4J providers were found.\n"
            + "SLF4J(W): Defaulting to no-operation (NOP) logger implementation\n"
            + "SLF4J(W): See https://www.slf4j.org/codes.html#noProviders for further details.\n";

    @TempDir
    Path tmp;

    record Run(int status, String out, String err) {}

    /** The build's classes and test classes (for the probe), then the runtime dependencies, the backend only if asked. */
    static String classPath(boolean withBackend) throws IOException {
        List<String> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (Files.isDirectory(Path.of(e))) entries.add(e); // target*/classes and target*/test-classes
        }
        assertEquals(2, entries.size(), "the build's two class folders: " + entries);
        String file = System.getProperty("flushline.runtime.classpath");
        assertTrue(file != null && Files.isRegularFile(Path.of(file)), "the build writes runtime-classpath.txt: " + file);
        boolean sawApi = false, sawBackend = false;
        for (String e : Files.readString(Path.of(file)).trim().split(File.pathSeparator)) {
            String name = Path.of(e).getFileName().toString();
            assertFalse(name.startsWith("logback") || name.startsWith("cassandra-all"), "no test dependency at run time: " + name);
            if (name.startsWith("slf4j-api-")) sawApi = true;
            if (name.startsWith("slf4j-jdk14-")) {
                sawBackend = true;
                if (!withBackend) continue;
            }
            entries.add(e);
        }
        assertTrue(sawApi && sawBackend, "slf4j-api and the command line's slf4j-jdk14 are runtime dependencies");
        return String.join(File.pathSeparator, entries);
    }

    Run probe(String mode, boolean withBackend) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path out = tmp.resolve(mode + "-out.txt"), err = tmp.resolve(mode + "-err.txt");
        Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", classPath(withBackend), LoggingProbe.class.getName(),
                tmp.resolve("probe").toString(), mode).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the probe did not end within 120 s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void withoutABackendTheLibraryPrintsNothingOfItsOwn() throws Exception {
        Run r = probe("library", false);
        assertEquals(0, r.status(), r.err());
        assertEquals("", r.out());
        assertEquals(NO_PROVIDERS_NOTICE, r.err());
    }

    @Test
    void theCommandLinesBackendPrintsTheLinesAsTheyWerePrinted() throws Exception {
        Run before = probe("hooks", true);
        assertEquals(0, before.status(), before.err());
        Run cli = probe("cli", true);
        assertEquals(0, cli.status(), cli.err());
        assertEquals("", cli.out());
        assertEquals("", before.out());
        // Every kind of line, so the comparison below covers each level's wording.
        String[] lines = before.err().split("\n");
        assertEquals(5, lines.length, before.err());
        assertTrue(lines[0].startsWith("Removed leftovers of an interrupted flush: [") && lines[0].contains("oa-6-big-Data.db"), lines[0]);
        assertTrue(lines[1].startsWith("left alone: ") && lines[1].contains("oa-5-big-Data.db"), lines[1]);
        assertEquals("Replayed 0 mutations from 0 segments", lines[2]);
        assertTrue(lines[3].startsWith("ERROR flush of ks.p failed (attempt 1 of 1): ") && lines[3].contains("injected: No space left on device"),
                lines[3]);
        assertTrue(lines[4].startsWith("ERROR flusher of ks.p stopped after 1 failed attempt; writes are refused"), lines[4]);
        // The same words through SLF4J, with one difference: what an open leaves alone is a warning to a
        // logger, and the backend says so, while its hook line never carried the prefix. (The commands
        // pass hooks, so what they print is unchanged.)
        String expected = before.err().replace("\nleft alone: ", "\nWARN left alone: ");
        assertEquals(expected, cli.err(), "the command line's backend words the library's lines as the hooks did");
    }
}
