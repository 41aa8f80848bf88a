package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.compaction.CompactionController;
import org.apache.cassandra.db.compaction.CompactionIterator;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.SSTableTxnWriter;
import org.apache.cassandra.io.sstable.SequenceBasedSSTableId;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.big.BigFormat;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.TimeUUID;

/**
 * Cassandra 5.0.9's own major compaction, offline: the sstables are opened as SSTableReaders of an
 * offline ColumnFamilyStore (see {@link CassandraVerifier}), merged and purged by
 * {@code CompactionIterator} with a {@code CompactionController} over exactly those sstables
 * (nothing else overlaps, no memtable holds data: every tombstone older than gcBefore may go, as
 * in a major compaction), and written by {@code SSTableTxnWriter} with the header a compaction
 * uses ({@code SerializationHeader.make} over the inputs). One output sstable.
 */
public final class CassandraCompactor {
    private CassandraCompactor() {
    }

    /** Compacts the given Data.db files into {@code outDir}; returns the output Data.db, or null if nothing was left. */
    public static Path compact(List<Path> dataFiles, String createTableCql, Path outDir, long nowSeconds, long gcBefore) {
        return compact(dataFiles, createTableCql, outDir, nowSeconds, gcBefore, null);
    }

    /** As above, writing sstable version {@code version} ("oa", "nb", "da"; null: BIG's latest, oa). */
    public static Path compact(List<Path> dataFiles, String createTableCql, Path outDir, long nowSeconds, long gcBefore,
                               String version) {
        ColumnFamilyStore cfs = CassandraVerifier.store(createTableCql);
        TableMetadata table = cfs.metadata();
        Set<SSTableReader> readers = new LinkedHashSet<>();
        try {
            long keys = 0;
            for (Path dataFile : dataFiles) {
                Descriptor d = Descriptor.fromFileWithComponent(new File(dataFile.toAbsolutePath()), table.keyspace, table.name).left;
                SSTableReader r = SSTableReader.openNoValidation(d, d.discoverComponents(), cfs);
                readers.add(r);
                keys += r.estimatedKeys();
            }
            Files.createDirectories(outDir);
            SequenceBasedSSTableId id = new SequenceBasedSSTableId(CassandraReferenceWriter.nextGeneration(outDir));
            Descriptor out = version == null
                    ? new Descriptor(new File(outDir.toAbsolutePath()), table.keyspace, table.name, id, BigFormat.getInstance())
                    : new Descriptor(version, new File(outDir.toAbsolutePath()), table.keyspace, table.name, id,
                                     CassandraReferenceWriter.formatOf(version));
            SerializationHeader header = SerializationHeader.make(table, readers);
            List<ISSTableScanner> scanners = new ArrayList<>();
            for (SSTableReader r : readers) scanners.add(r.getScanner());
            boolean any = false;
            try (CompactionController controller = new CompactionController(cfs, readers, gcBefore);
                 CompactionIterator ci = new CompactionIterator(OperationType.COMPACTION, scanners, controller, nowSeconds,
                                                                TimeUUID.Generator.nextTimeUUID());
                 SSTableTxnWriter writer = SSTableTxnWriter.create(cfs.metadata, out, Math.max(1, keys), 0, null, false, header,
                                                                   Collections.emptyList(), null)) {
                while (ci.hasNext()) {
                    try (UnfilteredRowIterator partition = ci.next()) {
                        writer.append(partition);
                        any = true;
                    }
                }
                if (!any) {
                    writer.abort();
                    return null;
                }
                Collection<SSTableReader> finished = writer.finish(false);
                for (SSTableReader reader : finished) {
                    if (reader != null) reader.selfRef().release();
                }
            }
            return Path.of(out.fileFor(org.apache.cassandra.io.sstable.format.SSTableFormat.Components.DATA).absolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (SSTableReader r : readers) r.selfRef().release();
        }
    }
}
