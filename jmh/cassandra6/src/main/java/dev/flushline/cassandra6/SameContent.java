package dev.flushline.cassandra6;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.TableMetadata;

/**
 * Whether Flushline's Data.db and 6.0's hold the same data: the bytes first, and when they differ (6.0 wrote
 * another version, or laid something out otherwise) the content, both sstables read back with 6.0's own reader
 * and compared partition by partition with Cassandra's equality (key, partition deletion, static row, then
 * each row or marker: clustering, liveness, deletion, and every cell's column, timestamp, TTL, local deletion
 * time, value and path).
 *
 * <p>The verdict is one line of text that starts with {@code byte-identical}, {@code content-equal} or
 * {@code DIFFERENT}; the parent prints it and the smoke check looks for the first two.
 */
final class SameContent {
    private SameContent() {}

    /** {@code ours} (Flushline's Data.db, any folder) against {@code theirs} (6.0's reader), both of {@code cfs}'s table. */
    static String verdict(Path ours, SSTableReader theirs, ColumnFamilyStore cfs) throws IOException {
        Path theirPath = Path.of(theirs.getFilename());
        long mismatch = Files.mismatch(ours, theirPath);
        if (mismatch < 0) return "byte-identical (" + Files.size(ours) + " bytes)";
        String bytes = "Data.db differs from byte " + mismatch + " (Flushline's " + Files.size(ours) + " bytes, 6.0's "
                + Files.size(theirPath) + ")";
        TableMetadata md = cfs.metadata();
        Descriptor d = Descriptor.fromFileWithComponent(new File(ours.toAbsolutePath()), md.keyspace, md.name).left;
        SSTableReader reader = SSTableReader.openNoValidation(d, d.discoverComponents(), cfs);
        try {
            String diff = firstDifference(reader, theirs);
            return diff.startsWith("equal") ? "content-equal, " + diff.substring("equal".length()).trim() + "; " + bytes
                    : "DIFFERENT: " + diff + "; " + bytes;
        } finally {
            reader.selfRef().release();
        }
    }

    /** "equal: N partitions, R rows" or where the two first part. */
    static String firstDifference(SSTableReader a, SSTableReader b) {
        long partitions = 0, rows = 0;
        try (ISSTableScanner sa = a.getScanner(); ISSTableScanner sb = b.getScanner()) {
            while (sa.hasNext() && sb.hasNext()) {
                try (UnfilteredRowIterator pa = sa.next(); UnfilteredRowIterator pb = sb.next()) {
                    partitions++;
                    String where = "partition " + partitions + " (key " + pa.partitionKey() + ")";
                    if (!pa.partitionKey().equals(pb.partitionKey())) {
                        return where + ": the other holds key " + pb.partitionKey();
                    }
                    if (!pa.partitionLevelDeletion().equals(pb.partitionLevelDeletion())) {
                        return where + ": partition deletion " + pa.partitionLevelDeletion() + " vs " + pb.partitionLevelDeletion();
                    }
                    Row staticA = pa.staticRow(), staticB = pb.staticRow();
                    if (!staticA.equals(staticB)) return where + ": static row " + staticA + " vs " + staticB;
                    while (pa.hasNext() && pb.hasNext()) {
                        Unfiltered ua = pa.next(), ub = pb.next();
                        rows++;
                        if (!ua.equals(ub)) return where + ", unfiltered " + rows + ": " + ua + " vs " + ub;
                    }
                    if (pa.hasNext() || pb.hasNext()) return where + ": one holds more rows than the other";
                }
            }
            if (sa.hasNext() || sb.hasNext()) return "after " + partitions + " partitions one holds more partitions";
        }
        return "equal " + partitions + " partitions, " + rows + " rows";
    }
}
