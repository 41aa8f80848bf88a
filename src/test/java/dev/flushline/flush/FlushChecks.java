package dev.flushline.flush;

import dev.flushline.sstable.TableDirectory;

import dev.flushline.memtable.Memtable;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The three compatibility checks of {@link FlushCompatibilityTest}, shared by the edge-case tests:
 * cassandra-all reads back exactly what the memtable holds, its verifier passes, and (optionally)
 * Cassandra's own writer given the same partitions, EncodingStats and key count writes the same bytes.
 */
final class FlushChecks {
    private FlushChecks() {}

    /** Table CQL with the compression option the test wants (the flush reads it from the schema). */
    static String withCompression(String cql, boolean lz4) {
        return cql + (cql.contains(" WITH ") ? " AND " : " WITH ")
                + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "compression = {'enabled': 'false'}");
    }

    /** Flushes the sealed memtable into {@code outDir} and runs the checks; returns the table directory. */
    static Flushed flushAndCheck(Path outDir, String tableCql, Memtable m, boolean lz4, boolean compareBytes) throws IOException {
        return flushAndCheck(outDir, tableCql, m, lz4, compareBytes, SSTableVersion.OA);
    }

    /** As above, writing (and comparing with Cassandra's writer of) sstable version {@code version}. */
    static Flushed flushAndCheck(Path outDir, String tableCql, Memtable m, boolean lz4, boolean compareBytes,
                                 SSTableVersion version) throws IOException {
        List<Partition> expected = MemtableModel.of(m);
        FlushWriter writer = new FlushWriter(m, version);
        Path tableDir = Descriptor.tableDir(outDir.resolve("ours"), m.schema().keyspace(), m.schema().name(), m.schema().idHex());
        FlushResult result = writer.write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(tableDir));
        assertNotNull(result, "a memtable with data publishes an sstable");
        assertEquals(version.id() + "-", result.dataPath.getFileName().toString().substring(0, 3), "file name version");
        assertEquals(expected.size(), result.partitions);
        List<Partition> actual = CassandraReader.readAll(tableDir, tableCql);
        assertEquals(expected.size(), actual.size(), "partition count");
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "partition " + i);
        }
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, tableCql), "sstableverify -e");
        EncodingStats stats = writer.header().stats();
        if (compareBytes) {
            Path refDir = Files.createDirectories(outDir.resolve("reference"));
            Path refData = CassandraReferenceWriter.write(refDir, tableCql, actual, stats.minTimestamp(),
                    stats.minLocalDeletionTime(), stats.minTtl(), m.partitionCount(), lz4, version.id());
            String ourPrefix = result.dataPath.getFileName().toString().replace("Data.db", "");
            String refPrefix = refData.getFileName().toString().replace("Data.db", "");
            for (String component : new String[] {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db",
                    lz4 ? "CompressionInfo.db" : "CRC.db", "Digest.crc32", "TOC.txt"}) {
                byte[] ours = Files.readAllBytes(tableDir.resolve(ourPrefix + component));
                byte[] theirs = Files.readAllBytes(refDir.resolve(refPrefix + component));
                assertArrayEquals(theirs, ours, component + " differs from Cassandra's own writer");
            }
        }
        return new Flushed(tableDir, expected, stats);
    }

    record Flushed(Path tableDir, List<Partition> expected, EncodingStats stats) {}
}
