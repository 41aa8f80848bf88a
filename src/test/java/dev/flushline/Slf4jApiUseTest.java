package dev.flushline;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The main code compiles against slf4j-api 2 but calls only what 1.7 has too, because it also runs on
 * 1.7.36: the benchmark module keeps cassandra-all 5.0.5's SLF4J line, whose logback 1.2 binding the 2.x
 * API would ignore (see jmh/pom.xml). So: only Logger and LoggerFactory are imported, and a logger is
 * called only with the level methods and their isXEnabled checks (no fluent atInfo(), no
 * isEnabledForLevel). Read from the source, as LayeringTest reads the imports.
 */
class Slf4jApiUseTest {
    private static final Path MAIN = Path.of("src/main/java/dev/flushline");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?org\\.slf4j\\.([\\w.]+);", Pattern.MULTILINE);
    /** A call on a field or variable holding a Logger: by house habit LOG, or logger in LogLines. */
    private static final Pattern CALL = Pattern.compile("\\b(?:LOG|logger)\\.(\\w+)\\(");
    private static final Set<String> V17_METHODS = Set.of("trace", "debug", "info", "warn", "error",
            "isTraceEnabled", "isDebugEnabled", "isInfoEnabled", "isWarnEnabled", "isErrorEnabled", "getName");

    @Test
    void mainCodeUsesOnlyTheSlf4j17Api() throws IOException {
        assertTrue(Files.isDirectory(MAIN), "run from the project root: " + MAIN.toAbsolutePath());
        List<Path> files;
        try (Stream<Path> s = Files.walk(MAIN)) {
            files = s.filter(p -> p.toString().endsWith(".java")).toList();
        }
        List<String> bad = new ArrayList<>();
        int imports = 0, calls = 0;
        for (Path f : files) {
            String src = Files.readString(f);
            Matcher m = IMPORT.matcher(src);
            while (m.find()) {
                imports++;
                if (!m.group(1).equals("Logger") && !m.group(1).equals("LoggerFactory")) bad.add(MAIN.relativize(f) + ": import org.slf4j." + m.group(1));
            }
            if (!src.contains("import org.slf4j.Logger;")) continue;
            Matcher c = CALL.matcher(src);
            while (c.find()) {
                calls++;
                if (!V17_METHODS.contains(c.group(1))) bad.add(MAIN.relativize(f) + ": " + c.group());
            }
        }
        assertTrue(imports >= 8 && calls >= 8, "the scan saw the loggers: " + imports + " imports, " + calls + " calls");
        assertEquals(List.of(), bad, "SLF4J use beyond what 1.7 has");
    }
}
