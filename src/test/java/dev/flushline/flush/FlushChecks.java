package dev.flushline.flush;

import dev.flushline.schema.CompressionParams;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.Compressions;
import org.apache.cassandra.config.Config;

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

    /** The compressions the flush tests draw (see {@link Compressions}). */
    static final String[] COMPRESSIONS = Compressions.ALL;

    /** Table CQL with this {@code compression} map. */
    static String withCompressionMap(String cql, String map) {
        return Compressions.with(cql, map);
    }

    /**
     * As {@link #flushAndCheck(Path, String, Memtable, boolean, boolean, SSTableVersion)}, for the
     * table's own compression (any codec) under {@code flushCompression}; the reference is
     * Cassandra's writer in a FLUSH transaction with the same flush_compression, so Data.db and
     * CompressionInfo.db (or CRC.db) must be its bytes.
     */
    static Flushed flushAndCheck(Path outDir, String tableCql, Memtable m, FlushCompression flushCompression, boolean compareBytes,
                                 SSTableVersion version) throws IOException {
        List<Partition> expected = MemtableModel.of(m);
        FlushWriter writer = new FlushWriter(m, version, flushCompression);
        Path tableDir = Descriptor.tableDir(outDir.resolve("ours"), m.schema().keyspace(), m.schema().name(), m.schema().idHex());
        FlushResult result = writer.write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(tableDir), true, null, 0);
        assertNotNull(result, "a memtable with data publishes an sstable");
        assertEquals(expected.size(), result.partitions);
        List<Partition> actual = CassandraReader.readAll(tableDir, tableCql);
        assertEquals(expected.size(), actual.size(), "partition count");
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "partition " + i);
        }
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, tableCql), "sstableverify -e");
        String ourPrefix = result.dataPath.getFileName().toString().replace("Data.db", "");
        CompressionParams written = flushCompression.apply(m.schema().compressionParams());
        if (written.isEnabled()) {
            // the codec that Cassandra's flush would pick, named in CompressionInfo.db
            byte[] info = Files.readAllBytes(tableDir.resolve(ourPrefix + "CompressionInfo.db"));
            String name = new java.io.DataInputStream(new java.io.ByteArrayInputStream(info)).readUTF();
            assertEquals(written.codec().compressorName(), name, "compressor of " + flushCompression + " for " + m.schema().compressionParams());
        }
        EncodingStats stats = writer.header().stats();
        if (compareBytes) {
            Path refDir = Files.createDirectories(outDir.resolve("reference"));
            Path refData = CassandraReferenceWriter.writeAsFlush(refDir, tableCql, actual, stats.minTimestamp(),
                    stats.minLocalDeletionTime(), stats.minTtl(), m.partitionCount(), version.id(),
                    Config.FlushCompression.valueOf(flushCompression.configName()));
            String refPrefix = refData.getFileName().toString().replace("Data.db", "");
            for (String component : components(version, written.isEnabled())) {
                byte[] ours = Files.readAllBytes(tableDir.resolve(ourPrefix + component));
                byte[] theirs = Files.readAllBytes(refDir.resolve(refPrefix + component));
                assertArrayEquals(theirs, ours, component + " differs from Cassandra's own flush (flush_compression "
                        + flushCompression.configName() + ", " + m.schema().compressionParams() + ")");
            }
        }
        return new Flushed(tableDir, expected, stats);
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
        FlushResult result = writer.write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(tableDir), true, null, 0);
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
            for (String component : components(version, lz4)) {
                byte[] ours = Files.readAllBytes(tableDir.resolve(ourPrefix + component));
                byte[] theirs = Files.readAllBytes(refDir.resolve(refPrefix + component));
                assertArrayEquals(theirs, ours, component + " differs from Cassandra's own writer");
            }
        }
        return new Flushed(tableDir, expected, stats);
    }

    /** Every component an sstable of {@code version} has, compressed or not. */
    static String[] components(SSTableVersion version, boolean compressed) {
        String checksum = compressed ? "CompressionInfo.db" : "CRC.db";
        return version.format() == dev.flushline.sstable.SSTableFormat.BTI
                ? new String[] {"Data.db", "Partitions.db", "Rows.db", "Filter.db", "Statistics.db", checksum, "Digest.crc32", "TOC.txt"}
                : new String[] {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db", checksum, "Digest.crc32", "TOC.txt"};
    }

    record Flushed(Path tableDir, List<Partition> expected, EncodingStats stats) {}
}
