package dev.flushline.oracle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Proves the oracle against Cassandra's own CQLSSTableWriter output, with a hand-written expected model. */
class OracleSelfTest {
    @TempDir
    static Path tmp;

    static OracleFixture fixture;

    @BeforeAll
    static void writeFixture() throws IOException {
        fixture = OracleFixture.write(Files.createDirectories(tmp.resolve("cqlwriter")));
    }

    @Test
    void readsCqlWriterOutputAsTheHandWrittenModel() {
        try (CassandraReader reader = CassandraReader.open(fixture.dir, OracleFixture.CQL)) {
            List<List<Partition>> expected = fixture.expectedPerSSTable();
            assertEquals(expected.size(), reader.sstables().size(), "one sstable per CQLSSTableWriter statement");
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), reader.sstables().get(i).readAll(), "sstable " + reader.sstables().get(i).dataFile());
            }
        }
        assertEquals(fixture.expectedAll(), CassandraReader.readAll(fixture.dir, OracleFixture.CQL));
    }

    /** A node's {@code <ks>/<table>-<id>/} folder goes through Descriptor.fromFile instead of fromFileWithComponent. */
    @Test
    void readsANodeStyleTableFolder() throws IOException {
        Path tableDir = Files.createDirectories(tmp.resolve("data/ks/oracle_all-0123456789abcdef0123456789abcdef"));
        OracleFixture.deleteContents(tableDir);
        Path firstData = CassandraReader.dataFiles(fixture.dir).get(0);
        String prefix = firstData.getFileName().toString().replace("Data.db", "");
        try (var files = Files.list(fixture.dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList()) {
                Files.copy(f, tableDir.resolve(f.getFileName()));
            }
        }
        try (CassandraReader reader = CassandraReader.open(tableDir, OracleFixture.CQL)) {
            assertEquals("ks", reader.only().descriptor().ksname);
            assertEquals("oracle_all", reader.only().descriptor().cfname);
            assertEquals(fixture.expectedPerSSTable().get(0), reader.only().readAll());
        }
    }

    @Test
    void pointReadsGoThroughTheIndexAndMissingKeysAreEmpty() {
        try (CassandraReader reader = CassandraReader.open(fixture.dir, OracleFixture.CQL)) {
            List<Partition> firstSSTable = fixture.expectedPerSSTable().get(0);
            CassandraReader.SSTable inserts = reader.sstables().get(0);
            for (Partition p : firstSSTable) {
                assertEquals(p, inserts.read(p.key()).orElseThrow());
                assertEquals(0, inserts.indexBlockCount(p.key()), "small partitions have no promoted index");
            }
            assertTrue(inserts.read(OracleFixture.key(99, "zz")).isEmpty());
            assertEquals(-1, inserts.indexBlockCount(OracleFixture.key(99, "zz")));
            // Only (x, 2) lies in ck1 = 'x' AND ck2 >= 2 (ck2 is DESC, so the slice starts at the high end).
            Partition p1 = inserts.read(OracleFixture.key(1, "a"),
                                        ClusteringSlice.closed(List.of(Bytes.utf8("x"), Bytes.int32(9)),
                                                               List.of(Bytes.utf8("x"), Bytes.int32(2))), false).orElseThrow();
            assertEquals(List.of(List.of(Bytes.utf8("x"), Bytes.int32(2))), p1.rows().stream().map(Row::clustering).toList());
        }
    }

    @Test
    void statsAndBloomFilterOfCqlWriterOutput() {
        try (CassandraReader reader = CassandraReader.open(fixture.dir, OracleFixture.CQL)) {
            SSTableStats ttl = reader.sstables().get(1).stats();
            assertEquals(2000, ttl.minTimestamp());
            assertEquals(2000, ttl.maxTimestamp());
            assertEquals(3600, ttl.minTtl());
            assertEquals(3600, ttl.maxTtl());
            assertEquals(fixture.nowSec + 3600, ttl.minLocalDeletionTime());
            assertEquals(fixture.nowSec + 3600, ttl.maxLocalDeletionTime());
            assertEquals(OracleFixture.key(3, "c"), ttl.firstKey());
            assertEquals(OracleFixture.key(3, "c"), ttl.lastKey());
            assertEquals(1, ttl.estimatedPartitionCount());
            assertEquals(1, ttl.totalRows());
            assertEquals(2, ttl.totalColumnsSet());
            assertFalse(ttl.hasPartitionLevelDeletions());
            assertEquals(new SSTableStats.Bound("INCL_START_BOUND", List.of(Bytes.utf8("z"), Bytes.int32(7))), ttl.coveredClusteringStart());
            assertEquals(new SSTableStats.Bound("INCL_END_BOUND", List.of(Bytes.utf8("z"), Bytes.int32(7))), ttl.coveredClusteringEnd());

            SSTableStats inserts = reader.sstables().get(0).stats();
            assertEquals(2, inserts.estimatedPartitionCount());
            assertEquals(999, inserts.minTimestamp(), "complex deletions at ts-1 count as timestamps");
            assertEquals(1000, inserts.maxTimestamp());

            assertTrue(reader.sstables().get(3).stats().hasPartitionLevelDeletions());

            // Every written key must pass the filter, whatever its sizing.
            for (int i = 0; i < reader.sstables().size(); i++) {
                for (Partition p : fixture.expectedPerSSTable().get(i)) {
                    assertTrue(reader.sstables().get(i).bloomFilterMayContain(p.key()), "filter must contain " + p.key());
                }
            }
        }
    }

    @ParameterizedTest(name = "lz4={0}")
    @ValueSource(booleans = {false, true})
    void roundTripThroughTheReferenceWriterGivesTheSameModel(boolean lz4) throws IOException {
        Path out = Files.createDirectories(tmp.resolve("roundtrip-" + lz4));
        OracleFixture.deleteContents(out);
        List<Path> written = writeReferenceCopy(fixture.dir, out, lz4);

        assertEquals(fixture.expectedAll(), CassandraReader.readAll(out, OracleFixture.CQL));
        for (Path data : written) {
            String base = data.toString().replace("-Data.db", "");
            assertEquals(lz4, Files.exists(Path.of(base + "-CompressionInfo.db")), "CompressionInfo.db iff compressed");
            assertEquals(!lz4, Files.exists(Path.of(base + "-CRC.db")), "CRC.db iff uncompressed");
        }
        assertEquals(List.of(), CassandraVerifier.verify(out, OracleFixture.CQL));
        try (CassandraReader reader = CassandraReader.open(out, OracleFixture.CQL)) {
            // The reference writer sizes the filter for keyCount (like a flush), so it can reject absent keys.
            CassandraReader.SSTable inserts = reader.sstables().get(0);
            assertTrue(inserts.hasRealBloomFilter());
            assertTrue(inserts.bloomFilterMayContain(OracleFixture.key(1, "a")));
            assertFalse(inserts.bloomFilterMayContain(OracleFixture.key(99, "zz")));
            assertEquals(2, inserts.stats().estimatedPartitionCount());
        }
    }

    /**
     * With the same EncodingStats and the same column set CQLSSTableWriter used, Cassandra's writer fed from our
     * model must produce the very bytes CQLSSTableWriter produced: this is what makes the reference writer usable
     * for byte-for-byte comparisons with Flushline.
     */
    @Test
    void referenceWriterReproducesCqlWriterDataAndIndexBytes() throws IOException {
        Path out = Files.createDirectories(tmp.resolve("bytes"));
        OracleFixture.deleteContents(out);
        List<Path> written = writeReferenceCopy(fixture.dir, out, false);
        List<Path> originals = CassandraReader.dataFiles(fixture.dir);
        assertEquals(originals.size(), written.size());
        List<String> different = new ArrayList<>();
        for (int i = 0; i < originals.size(); i++) {
            for (String component : List.of("Data.db", "Index.db")) {
                byte[] expected = Files.readAllBytes(sibling(originals.get(i), component));
                byte[] actual = Files.readAllBytes(sibling(written.get(i), component));
                if (!java.util.Arrays.equals(expected, actual)) {
                    different.add(originals.get(i).getFileName() + " " + component);
                }
            }
        }
        assertEquals(List.of(), different);
    }

    @Test
    void verifierPassesCassandraFilesAndFailsOnAFlippedByte() throws IOException {
        CassandraVerifier.Result intact = CassandraVerifier.verifyDetailed(fixture.dir, OracleFixture.CQL);
        assertEquals(List.of(), intact.problems());
        // Proves the extended pass really deserialized every partition of all five sstables.
        assertEquals(5, intact.log().stream().filter(l -> l.contains("Verify of") && l.contains("succeeded")).count(), intact.log()::toString);
        for (boolean lz4 : new boolean[]{false, true}) {
            Path dir = Files.createDirectories(tmp.resolve("corrupt-" + lz4));
            OracleFixture.deleteContents(dir);
            Path data = writeReferenceCopy(fixture.dir, dir, lz4).get(0);
            assertEquals(List.of(), CassandraVerifier.verify(dir, OracleFixture.CQL), "intact copy must pass");
            byte[] bytes = Files.readAllBytes(data);
            bytes[bytes.length / 2] ^= 0x40;
            Files.write(data, bytes);
            List<String> problems = CassandraVerifier.verify(dir, OracleFixture.CQL);
            assertFalse(problems.isEmpty(), "flipped byte in " + data + " must be reported");
            System.out.println("verifier on flipped byte (lz4=" + lz4 + "): " + problems);
        }
    }

    /**
     * Digest.crc32 recomputed after the damage, as a buggy writer would produce it: only the extended pass (which
     * deserializes every partition and cross-checks Index.db) can catch it. Damage: the first key's length field.
     */
    @Test
    void extendedVerificationCatchesStructuralDamageWithAConsistentDigest() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("structural"));
        OracleFixture.deleteContents(dir);
        Path data = writeReferenceCopy(fixture.dir, dir, false).get(0);
        byte[] bytes = Files.readAllBytes(data);
        bytes[1] ^= 0x01;
        Files.write(data, bytes);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(bytes);
        Files.writeString(sibling(data, "Digest.crc32"), Long.toString(crc.getValue()));
        List<String> problems = CassandraVerifier.verify(dir, OracleFixture.CQL);
        assertFalse(problems.isEmpty(), "damaged key length must be reported");
        assertFalse(problems.stream().anyMatch(p -> p.contains("digest")), "the digest matched; the extended pass must be what failed: " + problems);
    }

    /** Reads each sstable of {@code from} and writes it again with the reference writer, keeping its EncodingStats. */
    static List<Path> writeReferenceCopy(Path from, Path to, boolean lz4) {
        List<Path> written = new ArrayList<>();
        try (CassandraReader reader = CassandraReader.open(from, OracleFixture.CQL)) {
            for (CassandraReader.SSTable sstable : reader.sstables()) {
                List<Partition> partitions = sstable.readAll();
                SSTableStats stats = sstable.stats();
                written.add(CassandraReferenceWriter.write(to, OracleFixture.CQL, partitions,
                                                           stats.encodingMinTimestamp(), stats.encodingMinLocalDeletionTime(),
                                                           stats.encodingMinTtl(), partitions.size(), lz4));
            }
        }
        return written;
    }

    static Path sibling(Path dataFile, String component) {
        return Path.of(dataFile.toString().replace("-Data.db", "-" + component));
    }
}
