package dev.flushline.sstable;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The format seam, read from the main sources: a format's partition index lives in its
 * sub-package of sstable ({@code sstable/big}, {@code sstable/bti}), and the rest of the code reaches it only through
 * PartitionIndexWriter, PartitionIndex and PartitionIndexCheck. Outside sstable no code names an
 * index component or a class of a format; inside sstable only SSTableFormat names a format's
 * package, and only it and Component's declaration name the formats' components; the formats
 * import nothing above sstable, nor each other. Comments and string
 * literals are not code: help texts may describe what BIG's files hold.
 */
class FormatSeamLayeringTest {
    private static final Path MAIN = Path.of("src/main/java/dev/flushline");

    /** What only a format, or the seam inside sstable, may name. */
    private static final String[] FORMAT_NAMES = {"sstable.big", "Component.INDEX", "Component.SUMMARY", "IndexReader",
            "SummaryReader", "SummaryBuilder", "BigIndex", "BigPartitionIndex", "RowIndexBlocks", "PartitionIndexWriter",
            "PartitionIndexCheck", "sstable.bti", "Component.PARTITION_INDEX", "Component.ROW_INDEX", "BtiPartitionIndex",
            "BtiIndexCheck", "TrieReader", "TrieNodeLayout", "PartitionsLayout", "RowsLayout", "DecoratedKeyBytes"};

    @Test
    void nothingOutsideSstableNamesTheIndexComponentsOrAFormat() throws IOException {
        assertTrue(Files.isDirectory(MAIN), "run from the project root: " + MAIN.toAbsolutePath());
        List<String> bad = new ArrayList<>();
        for (Path f : javaFiles(MAIN)) {
            if (f.startsWith(MAIN.resolve("sstable"))) continue;
            String code = code(Files.readString(f));
            for (String name : FORMAT_NAMES) {
                if (code.contains(name)) bad.add(MAIN.relativize(f) + " names " + name);
            }
        }
        assertEquals(List.of(), bad);
    }

    @Test
    void insideSstableOnlySSTableFormatNamesAFormatAndItsComponents() throws IOException {
        List<String> bad = new ArrayList<>();
        try (Stream<Path> files = Files.list(MAIN.resolve("sstable"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (!f.toString().endsWith(".java")) continue;
                String name = f.getFileName().toString();
                String code = code(Files.readString(f));
                if (name.equals("SSTableFormat.java") || name.equals("Component.java")) continue;
                for (String forbidden : new String[] {"sstable.big", "Component.INDEX", "Component.SUMMARY", "INDEX,", "SUMMARY,",
                        "sstable.bti", "Component.PARTITION_INDEX", "Component.ROW_INDEX", "PARTITION_INDEX,", "ROW_INDEX,"}) {
                    if (code.contains(forbidden)) bad.add(name + " names " + forbidden);
                }
            }
        }
        assertEquals(List.of(), bad);
        assertTrue(code(Files.readString(MAIN.resolve("sstable/SSTableFormat.java"))).contains("sstable.big.BigIndexWriter"),
                "the check looks at the right files: SSTableFormat makes the BIG index writer");
        assertTrue(code(Files.readString(MAIN.resolve("sstable/SSTableFormat.java"))).contains("sstable.bti.BtiPartitionIndex"),
                "and opens the BTI partition index");
    }

    @Test
    void theFormatPackagesBuildOnSstableAndNothingAboveIt() throws IOException {
        List<String> bad = new ArrayList<>();
        List<Path> files = javaFiles(MAIN.resolve("sstable/big"));
        files.addAll(javaFiles(MAIN.resolve("sstable/bti")));
        assertTrue(files.size() > 10, files.toString());
        for (Path f : files) {
            String code = code(Files.readString(f));
            for (String above : new String[] {"dev.flushline.flush", "dev.flushline.compaction", "dev.flushline.memtable",
                    "dev.flushline.commitlog", "dev.flushline.table", "dev.flushline.cli", "dev.flushline.writer", "org.apache.cassandra"}) {
                if (code.contains(above)) bad.add(f.getFileName() + " names " + above);
            }
            // and neither format names the other
            String other = f.startsWith(MAIN.resolve("sstable/big")) ? "sstable.bti" : "sstable.big";
            if (code.contains(other)) bad.add(f.getFileName() + " names " + other);
        }
        assertEquals(List.of(), bad);
    }

    @Test
    void codeLeavesOutCommentsAndStrings() {
        String src = "import a.Component; // Component.INDEX\n/* sstable.big */ String s = \"Index.db \\\" IndexReader\"; char c = '\"';"
                + " String t = \"\"\"\n  SummaryReader\n  \"\"\"; int INDEX = 1;";
        String code = code(src);
        assertTrue(code.contains("import a.Component;") && code.contains("int INDEX = 1;") && code.contains("char c ="), code);
        for (String gone : new String[] {"Component.INDEX", "sstable.big", "Index.db", "IndexReader", "SummaryReader"}) {
            assertTrue(!code.contains(gone), gone + " in " + code);
        }
    }

    private static List<Path> javaFiles(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.toString().endsWith(".java")) out.add(p);
            }
        }
        return out;
    }

    /** The source without comments, string and char literals and text blocks (each replaced by a space). */
    static String code(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0, n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                while (i < n && src.charAt(i) != '\n') i++;
                out.append(' ');
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
                out.append(' ');
            } else if (c == '"' || c == '\'') {
                i++;
                while (i < n && src.charAt(i) != c) i += src.charAt(i) == '\\' ? 2 : 1;
                i++;
                out.append(' ');
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
