package dev.flushline.sstable;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where one sstable's files live: {@code <tableDir>/oa-<generation>-big-<Component>}, with
 * {@code tableDir = <out>/<keyspace>/<table>-<table id as 32 hex>/}, the layout Cassandra's
 * {@code Descriptor.fromFile} and {@code nodetool import} expect.
 *
 * <p>While being written, the files live in a staging directory {@code <tableDir>/.flushline-oa-<gen>}
 * under their final names; Cassandra lists sstables from the table directory's files only, so a
 * staging directory is invisible to it. Creating that directory reserves the generation, atomically,
 * so concurrent writers never share one.
 *
 * <p>Thread safety: immutable; {@link #reserveNext} is safe across threads and processes.
 */
public final class Descriptor {
    public static final String VERSION = "oa";
    public static final String FORMAT = "big";
    static final String STAGING_PREFIX = ".flushline-" + VERSION + "-";
    private static final Pattern FILE_NAME = Pattern.compile("^" + VERSION + "-(\\d+)-" + FORMAT + "-(.+)$");

    private final Path tableDir;
    private final int generation;

    private Descriptor(Path tableDir, int generation) {
        this.tableDir = tableDir;
        this.generation = generation;
    }

    public static Path tableDir(Path outDir, String keyspace, String table, String tableIdHex) {
        return outDir.resolve(keyspace).resolve(table + "-" + tableIdHex);
    }

    /** Reserves the next free generation in {@code tableDir} by creating its staging directory. */
    public static Descriptor reserveNext(Path tableDir) throws IOException {
        Files.createDirectories(tableDir);
        int next = highestGeneration(tableDir) + 1;
        while (true) {
            try {
                Files.createDirectory(tableDir.resolve(STAGING_PREFIX + next));
                return new Descriptor(tableDir, next);
            } catch (FileAlreadyExistsException e) {
                next++;
            }
        }
    }

    /** Highest generation used by a published file or a staging directory; 0 if none. */
    static int highestGeneration(Path tableDir) throws IOException {
        int max = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tableDir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                int g = generationOf(name);
                if (g < 0 && name.startsWith(STAGING_PREFIX)) {
                    try {
                        g = Integer.parseInt(name.substring(STAGING_PREFIX.length()));
                    } catch (NumberFormatException ignored) {
                        g = -1;
                    }
                }
                if (g > max) max = g;
            }
        }
        return max;
    }

    /** The generation of a published component file name, or -1. */
    static int generationOf(String fileName) {
        Matcher m = FILE_NAME.matcher(fileName);
        if (!m.matches()) return -1;
        try {
            return Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public Path tableDir() { return tableDir; }

    public int generation() { return generation; }

    public String fileName(Component c) {
        return VERSION + "-" + generation + "-" + FORMAT + "-" + c.fileSuffix();
    }

    /** The published path of a component. */
    public Path path(Component c) {
        return tableDir.resolve(fileName(c));
    }

    public Path stagingDir() {
        return tableDir.resolve(STAGING_PREFIX + generation);
    }

    /** Where a component is written before publishing. */
    public Path stagingPath(Component c) {
        return stagingDir().resolve(fileName(c));
    }

    @Override
    public String toString() {
        return path(Component.DATA).toString();
    }
}
