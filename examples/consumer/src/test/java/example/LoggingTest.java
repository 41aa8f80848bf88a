package example;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flushline logs through SLF4J and leaves the backend to the program: the dependency brings
 * slf4j-api and no backend (the command line's slf4j-jdk14 is an optional dependency of Flushline's,
 * which a program never inherits), and without a backend the library prints nothing of its own.
 */
class LoggingTest {
    @TempDir
    Path tmp;

    @Test
    void theDependencyBringsSlf4jApiAndNoBackend() {
        List<String> jars = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) jars.add(Path.of(e).getFileName().toString());
        assertEquals(1, jars.stream().filter(j -> j.startsWith("slf4j-api-")).count(), jars.toString());
        for (String j : jars) {
            assertFalse(j.startsWith("slf4j-jdk14") || j.startsWith("slf4j-simple") || j.startsWith("slf4j-reload4j") || j.startsWith("logback")
                    || j.startsWith("log4j-slf4j"), "no logging backend comes with the library: " + j);
        }
        assertFalse(ServiceLoader.load(org.slf4j.spi.SLF4JServiceProvider.class).iterator().hasNext(), "no SLF4J provider on the class path");
    }

    @Test
    void withoutABackendTheLibraryPrintsNothingOfItsOwn() throws Exception {
        // Another writer's sstable without TOC.txt in the output directory: the library warns that it leaves it alone.
        Path dir = Files.createDirectories(tmp.resolve("out"));
        Files.write(dir.resolve("oa-9-big-Data.db"), new byte[] {1});
        PrintStream out = System.out, err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream to = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(to);
        System.setErr(to);
        try {
            WriteOrders.main(new String[] {dir.toString()});
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        assertTrue(Files.exists(dir.resolve("oa-9-big-Data.db")), "left alone");
        // SLF4J says once per JVM that it found no provider (lines starting "SLF4J(W): "), if it first
        // looks here; nothing else.
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            assertTrue(line.isEmpty() || line.startsWith("SLF4J(W): "), "printed: " + captured);
        }
    }
}
