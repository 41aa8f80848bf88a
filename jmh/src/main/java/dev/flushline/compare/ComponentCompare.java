package dev.flushline.compare;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Two sstables of the same data, ours and a peer's, compared component by component: each file of either
 * sstable is matched by its component name (what follows {@code <version>-<generation>-<format>-}, such as
 * {@code Data.db} or {@code Partitions.db}) and compared byte for byte, so the output says which components the
 * two writers agree on, which differ and where, and which only one of them wrote.
 *
 * <p>A component's bytes may differ for reasons that are not a difference in the work done: Cassandra's flush
 * lists TOC.txt in its own order, which the line recognises, and records its memtable's commit log interval in
 * Statistics.db, where the bench's flush, which has no commit log, records none. The line reports differences
 * and does not judge them.
 *
 * <p>Thread safety: stateless.
 */
final class ComponentCompare {
    private ComponentCompare() {}

    /**
     * One line: {@code Components of Flushline's and <peer>'s <version> sstables: byte-identical: Data.db (N bytes),
     * ...; different: Statistics.db (A and B bytes, from byte K); only Flushline's: ...; only <peer>'s: ...}.
     * Data.db comes first, the rest by name.
     */
    static String line(String peer, String version, Path oursData, Path theirsData) throws IOException {
        List<String> ours = components(oursData), theirs = components(theirsData);
        TreeSet<String> names = new TreeSet<>(ours);
        names.addAll(theirs);
        List<String> ordered = new ArrayList<>(names.size());
        if (names.remove(DATA)) ordered.add(DATA);
        ordered.addAll(names);
        List<String> identical = new ArrayList<>(), different = new ArrayList<>(), onlyOurs = new ArrayList<>(), onlyTheirs = new ArrayList<>();
        for (String c : ordered) {
            if (!theirs.contains(c)) {
                onlyOurs.add(c);
                continue;
            }
            if (!ours.contains(c)) {
                onlyTheirs.add(c);
                continue;
            }
            Path a = sibling(oursData, c), b = sibling(theirsData, c);
            long mismatch = Files.mismatch(a, b);
            if (mismatch < 0) {
                identical.add(c.equals(DATA) ? c + " (" + Files.size(a) + " bytes)" : c);
            } else if (c.equals(TOC) && sameLines(a, b)) {
                different.add(c + " (the same components, listed in another order)");
            } else {
                different.add(String.format(Locale.ROOT, "%s (%d and %d bytes, from byte %d)", c, Files.size(a), Files.size(b), mismatch));
            }
        }
        StringBuilder sb = new StringBuilder("Components of Flushline's and ").append(peer).append("'s ").append(version)
                .append(" sstables: byte-identical: ").append(list(identical)).append("; different: ").append(list(different));
        if (!onlyOurs.isEmpty()) sb.append("; only Flushline's: ").append(list(onlyOurs));
        if (!onlyTheirs.isEmpty()) sb.append("; only ").append(peer).append("'s: ").append(list(onlyTheirs));
        return sb.toString();
    }

    static final String DATA = "Data.db";
    static final String TOC = "TOC.txt";

    /** Whether two TOC.txt files list the same component names, in any order. */
    private static boolean sameLines(Path a, Path b) throws IOException {
        List<String> x = new ArrayList<>(Files.readAllLines(a)), y = new ArrayList<>(Files.readAllLines(b));
        x.sort(null);
        y.sort(null);
        return x.equals(y);
    }

    /**
     * The component names of the sstable whose Data.db is {@code data}: the files beside it with its prefix,
     * Data.db first, then by name.
     */
    static List<String> components(Path data) throws IOException {
        String name = data.getFileName().toString();
        if (!name.endsWith(DATA)) throw new IllegalArgumentException(data + " is not a Data.db file");
        String prefix = name.substring(0, name.length() - DATA.length());
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(data.getParent(), prefix + "*")) {
            for (Path f : files) {
                if (Files.isRegularFile(f)) out.add(f.getFileName().toString().substring(prefix.length()));
            }
        }
        out.sort(null);
        if (out.remove(DATA)) out.add(0, DATA);
        return out;
    }

    private static Path sibling(Path data, String component) {
        String name = data.getFileName().toString();
        return data.resolveSibling(name.substring(0, name.length() - DATA.length()) + component);
    }

    private static String list(List<String> items) {
        return items.isEmpty() ? "none" : String.join(", ", items);
    }
}
