package dev.flushline.sstable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of one published sstable found on disk: {@code <dir>/<version>-<id>-<format>-<Component>}.
 * Opening refuses anything that is not {@code oa-<id>-big}, {@code nb-<id>-big} or
 * {@code da-<id>-bti} (naming the file and what it is), so no other version is ever decoded with
 * these rules; the version found is {@link #version()}, which the readers follow where versions
 * differ ({@link SSTableVersion}). A directory yields every sstable that has a TOC.txt (the last
 * file a writer publishes), of any of these versions, in generation order.
 *
 * <p>Thread safety: immutable.
 */
public final class SSTableFiles {
    /** Any sstable component name: version, id (digits or a 28-char base-36 uuid id), format, component. */
    private static final Pattern ANY_NAME = Pattern.compile("^([a-z]{2})-([0-9a-z_]+)-([a-z]+)-(.+)$");

    private final Path dir;
    private final SSTableVersion version;
    private final String id;
    private final Set<Component> toc;

    private SSTableFiles(Path dir, SSTableVersion version, String id, Set<Component> toc) {
        this.dir = dir;
        this.version = version;
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
            throw new IncompatibleSSTableException(componentPath, "not an sstable component name (expected oa-<id>-big-<Component>,"
                    + " nb-<id>-big-<Component> or da-<id>-bti-<Component>)");
        }
        String versionId = m.group(1), format = m.group(3);
        SSTableVersion version = SSTableVersion.fromId(versionId);
        if (version == null || !version.format().id().equals(format)) {
            throw new IncompatibleSSTableException(componentPath, "sstable version '" + versionId + "' format '" + format
                    + "' is not supported; only versions 'oa' (Cassandra 5.0) and 'nb' (Cassandra 4.x) of format '"
                    + SSTableFormat.BIG.id() + "' (BIG) and 'da' (Cassandra 5.0) of format '" + SSTableFormat.BTI.id()
                    + "' (BTI) are read");
        }
        String id = m.group(2);
        Path dir = abs.getParent();
        Path tocPath = dir.resolve(fileName(version, id, Component.TOC));
        Set<Component> toc = EnumSet.noneOf(Component.class);
        if (Files.exists(tocPath, LinkOption.NOFOLLOW_LINKS) || Files.exists(tocPath)) {
            requireRegularFile(tocPath);
            if (Files.size(tocPath) > MAX_TOC_BYTES) {
                throw new IncompatibleSSTableException(tocPath, Files.size(tocPath) + " bytes is not a TOC.txt (a list of at most "
                        + Component.values().length + " component names)");
            }
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
                if (Files.exists(dir.resolve(fileName(version, id, c)))) toc.add(c);
            }
        }
        SSTableFiles f = new SSTableFiles(dir, version, id, toc);
        if (!toc.contains(Component.DATA) || !toc.contains(Component.STATISTICS)) {
            throw new IncompatibleSSTableException(f.path(Component.DATA), "the sstable has no Data.db or Statistics.db");
        }
        for (Component c : toc) {
            Path p = f.path(c);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) requireRegularFile(p);
        }
        return f;
    }

    /** A TOC.txt lists a few component names; anything much larger is not one (and is not read whole). */
    private static final long MAX_TOC_BYTES = 64 * 1024;

    /**
     * Refuses a component that is not a regular file (a symbolic link to one is fine, as Cassandra
     * allows): reading a FIFO would wait for a writer that may never come, and a device such as
     * /dev/urandom never ends. Every read of a component is bounded by the size checked here.
     */
    static void requireRegularFile(Path p) throws IOException {
        if (!Files.isRegularFile(p)) {
            String what = Files.isDirectory(p) ? "a directory" : Files.isSymbolicLink(p) && !Files.exists(p) ? "a dangling link"
                    : "not a regular file (a FIFO, socket or device, or a link to one)";
            throw new IncompatibleSSTableException(p, what + "; sstable components are regular files");
        }
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
            String key = f.version.id() + "-" + f.id;
            if (!ids.contains(key)) {
                ids.add(key);
                out.add(f);
            }
        }
        if (hasTransactionLog(dir)) {
            // A compaction is under way or was interrupted: show the side its log says is live
            // (the inputs until it commits, the outputs after), never both, of every version. Our
            // transactions name numbered generations only, and the view lists only those, so an
            // sstable with a uuid id is never one of their sides and stays listed.
            java.util.Set<Path> live = new java.util.HashSet<>();
            for (Path data : TransactionLog.liveSSTables(dir)) live.add(data.toAbsolutePath().normalize());
            out.removeIf(f -> isDigits(f.id) && !live.contains(f.path(Component.DATA).toAbsolutePath().normalize()));
        }
        return out;
    }

    /**
     * The sstables in {@code dir} that have component files but no TOC.txt, by their Data.db (else
     * their first component), sorted: not complete to us, so never read by {@link #inDirectory}.
     * They may be another writer's work in progress, or complete with their TOC.txt lost.
     */
    public static List<Path> withoutToc(Path dir) throws IOException {
        java.util.Map<String, java.util.TreeSet<Path>> byId = new java.util.TreeMap<>();
        java.util.Set<String> withToc = new java.util.HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                Matcher m = ANY_NAME.matcher(p.getFileName().toString());
                if (!m.matches() || componentOf(m.group(4)) == null) continue;
                String key = m.group(1) + "-" + m.group(2) + "-" + m.group(3);
                byId.computeIfAbsent(key, k -> new java.util.TreeSet<>()).add(p);
                if (m.group(4).equals(Component.TOC.fileSuffix())) withToc.add(key);
            }
        }
        List<Path> out = new ArrayList<>();
        for (java.util.Map.Entry<String, java.util.TreeSet<Path>> e : byId.entrySet()) {
            if (withToc.contains(e.getKey())) continue;
            Path data = null;
            for (Path p : e.getValue()) {
                if (p.getFileName().toString().endsWith("-" + Component.DATA.fileSuffix())) data = p;
            }
            out.add(data != null ? data : e.getValue().first());
        }
        java.util.Collections.sort(out);
        return out;
    }

    /**
     * Whether {@code dir} holds a file named as an sstable component of one of our formats (any
     * version, complete or not): a table directory, as opposed to a directory of table
     * directories. A version we do not read is then refused by name when the directory is read.
     */
    public static boolean anyIn(Path dir) throws IOException {
        SSTableFormat[] formats = SSTableFormat.values();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                Matcher m = ANY_NAME.matcher(p.getFileName().toString());
                if (!m.matches()) continue;
                for (SSTableFormat f : formats) {
                    if (f.id().equals(m.group(3))) return true;
                }
            }
        }
        return false;
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

    public SSTableVersion version() { return version; }

    /**
     * The first and the last partition key ({@code [0]}, {@code [1]}), read as cheaply as the
     * format allows (BIG: Summary.db; BTI: Partitions.db's footer): for an nb sstable, whose
     * Statistics.db does not hold them as oa's and da's do.
     */
    public byte[][] boundaryKeys() throws IOException {
        return PartitionIndex.boundaryKeys(this);
    }

    public Path path(Component c) {
        return dir.resolve(fileName(version, id, c));
    }

    private static String fileName(SSTableVersion version, String id, Component c) {
        return version.fileNamePrefix(id) + c.fileSuffix();
    }

    /** Whether TOC.txt lists the component (or, without a TOC, whether its file exists). */
    public boolean has(Component c) {
        return toc.contains(c);
    }

    public boolean isCompressed() {
        return toc.contains(Component.COMPRESSION_INFO);
    }

    /**
     * Reads a whole (small) component, which must be below 2 GiB. Those that grow with the data
     * (BIG's Index.db, CompressionInfo.db) are streamed instead ({@link StreamingReader}).
     */
    public byte[] readAll(Component c) throws IOException {
        Path p = path(c);
        requireRegularFile(p);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE - 16) {
                throw new IOException(p + ": " + size + " bytes is too large to read whole");
            }
            // Exactly the size found at open: a file that grows meanwhile is not read past it.
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) size);
            while (b.hasRemaining()) {
                if (ch.read(b, b.position()) < 0) throw new IOException(p + ": ended at byte " + b.position() + " of " + size);
            }
            return b.array();
        }
    }

    @Override
    public String toString() {
        return path(Component.DATA).toString();
    }
}
