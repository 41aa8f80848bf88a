package dev.flushline.sstable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of one published sstable found on disk: {@code <dir>/<version>-<id>-<format>-<Component>}.
 * Opening refuses anything that is not {@code oa-<id>-big} (naming the file and what it is), so no
 * other version is ever decoded with oa rules. A directory yields every sstable that has a
 * TOC.txt (the last file a writer publishes), in generation order.
 *
 * <p>Thread safety: immutable.
 */
public final class SSTableFiles {
    /** Any sstable component name: version, id (digits or a 28-char base-36 uuid id), format, component. */
    private static final Pattern ANY_NAME = Pattern.compile("^([a-z]{2})-([0-9a-z_]+)-([a-z]+)-(.+)$");

    private final Path dir;
    private final String id;
    private final Set<Component> toc;

    private SSTableFiles(Path dir, String id, Set<Component> toc) {
        this.dir = dir;
        this.id = id;
        this.toc = toc;
    }

    /**
     * The sstable that {@code componentPath} (any of its components) belongs to.
     * @throws IncompatibleSSTableException for another version or format, or a non-sstable name
     */
    public static SSTableFiles of(Path componentPath) throws IOException {
        Path abs = componentPath.toAbsolutePath();
        String name = abs.getFileName().toString();
        Matcher m = ANY_NAME.matcher(name);
        if (!m.matches()) {
            throw new IncompatibleSSTableException(componentPath, "not an sstable component name (expected oa-<id>-big-<Component>)");
        }
        String version = m.group(1), format = m.group(3);
        if (!Descriptor.VERSION.equals(version) || !Descriptor.FORMAT.equals(format)) {
            throw new IncompatibleSSTableException(componentPath, "sstable version '" + version + "' format '" + format
                    + "' is not supported; only version '" + Descriptor.VERSION + "' format '" + Descriptor.FORMAT + "' (Cassandra 5.0 BIG) is read");
        }
        String id = m.group(2);
        Path dir = abs.getParent();
        Path tocPath = dir.resolve(Descriptor.VERSION + "-" + id + "-" + Descriptor.FORMAT + "-" + Component.TOC.fileSuffix());
        Set<Component> toc = EnumSet.noneOf(Component.class);
        if (Files.exists(tocPath)) {
            List<String> lines = Files.readAllLines(tocPath, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (line.isEmpty()) continue;
                Component c = componentOf(line);
                if (c == null) {
                    throw new IncompatibleSSTableException(tocPath, "line " + (i + 1) + ": unknown component '" + line + "'");
                }
                toc.add(c);
            }
        } else {
            for (Component c : Component.values()) {
                if (Files.exists(dir.resolve(Descriptor.VERSION + "-" + id + "-" + Descriptor.FORMAT + "-" + c.fileSuffix()))) toc.add(c);
            }
        }
        SSTableFiles f = new SSTableFiles(dir, id, toc);
        if (!toc.contains(Component.DATA) || !toc.contains(Component.STATISTICS)) {
            throw new IncompatibleSSTableException(f.path(Component.DATA), "the sstable has no Data.db or Statistics.db");
        }
        return f;
    }

    private static Component componentOf(String suffix) {
        for (Component c : Component.values()) {
            if (c.fileSuffix().equals(suffix)) return c;
        }
        return null;
    }

    /**
     * Every complete sstable in {@code dir} (those with a TOC.txt), in generation order: numeric
     * generations numerically, then uuid ids by name. Refuses the directory if any TOC.txt belongs
     * to another version or format.
     */
    public static List<SSTableFiles> inDirectory(Path dir) throws IOException {
        List<String> ids = new ArrayList<>();
        List<Path> tocs = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*-" + Component.TOC.fileSuffix())) {
            for (Path p : ds) tocs.add(p);
        }
        tocs.sort((a, b) -> compareIds(idOf(a), idOf(b)));
        List<SSTableFiles> out = new ArrayList<>();
        for (Path toc : tocs) {
            SSTableFiles f = of(toc);
            if (!ids.contains(f.id)) {
                ids.add(f.id);
                out.add(f);
            }
        }
        if (hasTransactionLog(dir)) {
            // A compaction is under way or was interrupted: show the side its log says is live
            // (the inputs until it commits, the outputs after), never both.
            java.util.Set<Path> live = new java.util.HashSet<>();
            for (Path data : TransactionLog.liveSSTables(dir)) live.add(data.toAbsolutePath().normalize());
            out.removeIf(f -> !live.contains(f.path(Component.DATA).toAbsolutePath().normalize()));
        }
        return out;
    }

    private static boolean hasTransactionLog(Path dir) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*_txn_*.log")) {
            return ds.iterator().hasNext();
        }
    }

    private static String idOf(Path p) {
        Matcher m = ANY_NAME.matcher(p.getFileName().toString());
        return m.matches() ? m.group(2) : p.getFileName().toString();
    }

    private static int compareIds(String a, String b) {
        boolean da = isDigits(a), db = isDigits(b);
        if (da && db) {
            int c = Integer.compare(a.length(), b.length());
            return c != 0 ? c : a.compareTo(b);
        }
        if (da != db) return da ? -1 : 1;
        return a.compareTo(b);
    }

    private static boolean isDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') return false;
        }
        return !s.isEmpty();
    }

    public Path dir() { return dir; }

    public String id() { return id; }

    public Path path(Component c) {
        return dir.resolve(Descriptor.VERSION + "-" + id + "-" + Descriptor.FORMAT + "-" + c.fileSuffix());
    }

    /** Whether TOC.txt lists the component (or, without a TOC, whether its file exists). */
    public boolean has(Component c) {
        return toc.contains(c);
    }

    public boolean isCompressed() {
        return toc.contains(Component.COMPRESSION_INFO);
    }

    /**
     * Reads a whole (small) component. Index.db and Summary.db are read whole too, so a single
     * component must be below 2 GiB.
     */
    public byte[] readAll(Component c) throws IOException {
        Path p = path(c);
        long size = Files.size(p);
        if (size > Integer.MAX_VALUE - 16) {
            throw new IOException(p + ": " + size + " bytes is too large to read whole");
        }
        return Files.readAllBytes(p);
    }

    @Override
    public String toString() {
        return path(Component.DATA).toString();
    }
}
