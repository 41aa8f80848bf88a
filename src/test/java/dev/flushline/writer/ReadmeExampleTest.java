package dev.flushline.writer;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java examples of README.md and docs/*.md, exactly as the pages have them: extracted from the code
 * block after each {@code <!-- readme-example: Name -->} marker, in whichever page holds it, compiled
 * with javax.tools against the main classes only (no Cassandra on that class path), run, and their
 * output read back with cassandra-all. DocsIT checks that every Java block of the pages is one of these
 * (or the Spark module's, which its ReadmeRecipeTest runs).
 */
class ReadmeExampleTest {
    @TempDir
    Path tmp;

    /** README.md, then docs/*.md in name order: the pages an example may be on. */
    static List<Path> pages() throws Exception {
        List<Path> pages = new ArrayList<>();
        pages.add(Paths.get("README.md"));
        try (Stream<Path> s = Files.list(Paths.get("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    static String example(String name) throws Exception {
        String marker = "<!-- readme-example: " + name + " -->";
        for (Path page : pages()) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            int at = text.indexOf(marker);
            if (at < 0) continue;
            int start = text.indexOf("```java\n", at);
            assertTrue(start >= 0, page + ": no java code block after " + marker);
            start += "```java\n".length();
            return text.substring(start, text.indexOf("```", start));
        }
        throw new AssertionError("neither README.md nor docs/*.md has " + marker);
    }

    /** Compiles the example against target/classes alone, runs its main with {@code dir}, returns what it printed. */
    String compileAndRun(String name, Path dir) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Path out = Files.createDirectories(tmp.resolve("classes-" + name));
        Path file = src.resolve(name + ".java");
        Files.writeString(file, example(name));
        Path mainClasses = Paths.get(FlushlineSSTableWriter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "-classpath", mainClasses.toString(), "-d", out.toString(), "-Xlint:all,-try",
                "-Werror", file.toString());
        assertEquals(0, rc, "the README example " + name + " does not compile:\n" + errors);
        PrintStream saved = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass(name).getMethod("main", String[].class);
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[] {dir.toString()});
        } finally {
            System.setOut(saved);
        }
        return printed.toString(StandardCharsets.UTF_8);
    }

    @Test
    void bulkWriteExample() throws Exception {
        Path dir = tmp.resolve("out");
        String printed = compileAndRun("BulkWriteExample", dir);
        assertEquals("wrote 1001 rows into 1 sstable(s)\n", printed);
        String schema = "CREATE TABLE shop.orders (customer int, placed timestamp, item text, qty int,"
                + " tags set<text>, PRIMARY KEY (customer, placed))";
        List<Partition> ps = CassandraReader.readAll(dir, schema);
        assertEquals(1000, ps.size());
        int rows = 0;
        for (Partition p : ps) rows += p.rows().size();
        assertEquals(1001, rows);
        Partition one = ps.stream().filter(p -> p.key().equals(Bytes.int32(1))).findFirst().orElseThrow();
        assertEquals(2, one.rows().size(), one.toString());
    }

    @Test
    void sortedWriteExample() throws Exception {
        Path dir = tmp.resolve("sorted");
        String printed = compileAndRun("SortedWriteExample", dir);
        assertEquals("wrote 1000 rows into 1 sstable(s)\n", printed);
        List<Partition> ps = CassandraReader.readAll(dir, "CREATE TABLE shop.stock (warehouse int, item text, qty int,"
                + " tags set<text>, PRIMARY KEY (warehouse, item))");
        assertEquals(100, ps.size());
        for (Partition p : ps) assertEquals(10, p.rows().size(), p.toString());
    }

    @Test
    void tableExample() throws Exception {
        Path dir = tmp.resolve("node");
        String printed = compileAndRun("TableExample", dir);
        assertTrue(printed.startsWith("flushed 1 sstable(s) into "), printed);
        Path tableDir;
        try (Stream<Path> s = Files.list(dir.resolve("data").resolve("shop"))) {
            tableDir = s.findFirst().orElseThrow();
        }
        List<Partition> ps = CassandraReader.readAll(tableDir, "CREATE TABLE shop.stock (item text PRIMARY KEY, qty int)");
        assertEquals(100, ps.size());
    }
}
