package dev.flushline.writer;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.SchemaException;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the writer does besides matching CQLSSTableWriter's content: bloom filters sized for the
 * keys written (CQLSSTableWriter's are not), max-size splits at partition boundaries, and named
 * errors for wrong values and refused statements.
 */
class WriterBehaviourTest {
    static final String TABLE = "CREATE TABLE ks.kv (pk int, ck int, v text, PRIMARY KEY (pk, ck))";
    static final String INSERT = "INSERT INTO ks.kv (pk, ck, v) VALUES (?, ?, ?) USING TIMESTAMP ?";

    @TempDir
    Path tmp;

    @Test
    void bloomFilterIsSizedForTheKeysAndFindsEveryOne() throws Exception {
        CassandraOracle.init();
        Path theirs = Files.createDirectories(tmp.resolve("c"));
        Path ours = Files.createDirectories(tmp.resolve("f"));
        int keys = 5_000;
        try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(TABLE).using(INSERT).build();
             FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(ours).forTable(TABLE).using(INSERT).build()) {
            for (int k = 0; k < keys; k++) {
                c.addRow(k, 1, "v" + k, 10L);
                f.addRow(k, 1, "v" + k, 10L);
            }
        }
        assertEquals(CassandraReader.readAll(theirs, TABLE), CassandraReader.readAll(ours, TABLE));
        long theirFilter = Files.size(onlyFilter(theirs));
        long ourFilter = Files.size(onlyFilter(ours));
        // CQLSSTableWriter sizes its filter for 0 keys: a header and one word.
        assertTrue(theirFilter <= 32, "CQLSSTableWriter's Filter.db is " + theirFilter + " bytes");
        // fp 0.01 takes about 9.6 bits per key; ours must hold at least 8 bits per key written.
        assertTrue(ourFilter >= keys, "our Filter.db is " + ourFilter + " bytes for " + keys + " keys");
        try (CassandraReader reader = CassandraReader.open(ours, TABLE)) {
            CassandraReader.SSTable sst = reader.only();
            int falsePositives = 0;
            for (int k = 0; k < keys; k++) {
                assertTrue(sst.bloomFilterMayContain(Bytes.int32(k)), "bloom filter misses written key " + k);
                if (sst.bloomFilterMayContain(Bytes.int32(keys + k))) falsePositives++;
            }
            assertTrue(falsePositives < keys * 0.03, falsePositives + " false positives of " + keys);
        }
    }

    @Test
    void maxSSTableSizeSplitsAtPartitionBoundaries() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("split"));
        Random r = new Random(1);
        char[] big = new char[20_000];
        List<Integer> written = new ArrayList<>();
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir).forTable(TABLE
                        + " WITH compression = {'enabled': false}").using(INSERT).withMaxSSTableSizeInMiB(1).withBufferSizeInMiB(64).build()) {
            for (int pk = 0; pk < 150; pk++) {
                // ~200 KB per partition in ten rows, so a split inside a partition would show
                for (int ck = 0; ck < 10; ck++) {
                    java.util.Arrays.fill(big, (char) ('a' + r.nextInt(26)));
                    w.addRow(pk, ck, new String(big), 5L);
                }
                written.add(pk);
            }
            w.close();
            assertTrue(w.dataFiles().size() >= 20, "expected about 29 sstables, got " + w.dataFiles().size());
        }
        Set<Bytes> seen = new HashSet<>();
        long mib = 1024 * 1024;
        try (CassandraReader reader = CassandraReader.open(dir, TABLE)) {
            List<CassandraReader.SSTable> ssts = reader.sstables();
            for (int i = 0; i < ssts.size(); i++) {
                long size = Files.size(ssts.get(i).dataFile());
                List<Partition> ps = ssts.get(i).readAll();
                for (Partition p : ps) {
                    assertTrue(seen.add(p.key()), "partition " + p.key() + " is in two sstables");
                    assertEquals(10, p.rows().size(), "partition " + p.key() + " is cut");
                }
                // each sstable reaches the limit and passes it by less than one partition (~200 KB)
                if (i < ssts.size() - 1) assertTrue(size >= mib && size < mib + 250_000, "sstable " + i + " has " + size + " bytes");
                else assertTrue(size < mib + 250_000);
            }
        }
        assertEquals(written.size(), seen.size());
    }

    @Test
    void aSmallBufferFlushesInTheBackgroundAndLosesNothing() throws Exception {
        CassandraOracle.init();
        Path theirs = Files.createDirectories(tmp.resolve("c-buf"));
        Path ours = Files.createDirectories(tmp.resolve("f-buf"));
        String text = "y".repeat(2000);
        int sstables;
        try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(TABLE).using(INSERT).build();
             FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(ours).forTable(TABLE).using(INSERT)
                     .withBufferSizeInMiB(1).build()) {
            for (int pk = 0; pk < 5000; pk++) { // about 10 MiB of rows, each partition once
                c.addRow(pk, pk % 7, text + pk, 3L);
                f.addRow(pk, pk % 7, text + pk, 3L);
            }
            f.close();
            sstables = f.dataFiles().size();
        }
        assertTrue(sstables >= 5, "a 1 MiB buffer over ~10 MiB of rows flushed " + sstables + " times");
        List<Partition> expected = new ArrayList<>(CassandraReader.readAll(theirs, TABLE));
        List<Partition> actual = new ArrayList<>(CassandraReader.readAll(ours, TABLE));
        java.util.Comparator<Partition> byToken = java.util.Comparator.comparingLong(
                p -> dev.flushline.data.PartitionKey.of(p.key().toArray()).token());
        expected.sort(byToken);
        actual.sort(byToken);
        assertEquals(expected, actual);
    }

    /** withSSTableVersion("nb"): nb files that cassandra-all reads as the same rows as the oa files. */
    @Test
    void nbOutputReadsBackAsTheSameRowsAsOa() throws Exception {
        List<List<Partition>> read = new ArrayList<>();
        for (String version : List.of("oa", "nb")) {
            Path dir = Files.createDirectories(tmp.resolve("v-" + version));
            try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir).forTable(TABLE).using(INSERT)
                    .withSSTableVersion(version).build()) {
                for (int pk = 0; pk < 300; pk++) w.addRow(pk, pk % 7, "v" + pk, 1000L + pk);
                w.close();
                assertEquals(1, w.dataFiles().size());
                assertTrue(w.dataFiles().get(0).getFileName().toString().startsWith(version + "-"), w.dataFiles().toString());
            }
            read.add(CassandraReader.readAll(dir, TABLE));
        }
        assertEquals(300, read.get(0).size());
        assertEquals(read.get(0), read.get(1));
    }

    @Test
    void withoutMaxSizeOneFlushIsOneSSTable() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("one"));
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir.toFile()).forTable(TABLE).using(INSERT).build()) {
            for (int pk = 0; pk < 2000; pk++) w.addRow(pk, 0, "x".repeat(1000), 1L);
            w.close();
            assertEquals(1, w.dataFiles().size());
        }
    }

    @Test
    void wrongJavaTypesAreNamed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("err"));
        String table = "CREATE TABLE ks.e (pk int, b bigint, l list<int>, m map<text, blob>, PRIMARY KEY (pk))";
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir.toString()).forTable(table)
                .using("INSERT INTO ks.e (pk, b, l, m) VALUES (?, ?, ?, ?)").build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.addRow(1, 12, null, null));
            assertEquals("row 1: column 'b' (bigint): 12 (java.lang.Integer) is not a bigint value: expected java.lang.Long", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.addRow(1, 2L, List.of(1, "two"), null));
            assertEquals("row 1: column 'l' (list<int>): \"two\" (java.lang.String) is not a int value: expected java.lang.Integer",
                    e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.addRow(1, 2L, null, java.util.Map.of("k", "notablob")));
            assertTrue(e.getMessage().startsWith("row 1: column 'm' (map<text, blob>): \"notablob\" (java.lang.String) is not a blob"),
                    e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.addRow("1", 2L, null, null));
            assertTrue(e.getMessage().contains("column 'pk' (int): \"1\" (java.lang.String)"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.addRow(null, 2L, null, null));
            assertTrue(e.getMessage().contains("'pk'") && e.getMessage().contains("null"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.addRow(1, 2L));
            assertTrue(e.getMessage().startsWith("row 1: expected 4 values (pk (int), b (bigint), l (list<int>), m (map<text, blob>)) but got 2"),
                    e.getMessage());
            w.addRow(1, BigInteger.ONE.longValue(), List.of(1), java.util.Map.of("k", ByteBuffer.allocate(1)));
            assertEquals(1, w.rowCount());
        }
    }

    @Test
    void refusedStatementsNameLineAndColumn() {
        Path dir = tmp;
        String[][] cases = {
                {"SELECT * FROM ks.kv", "line 1, column 1: expected INSERT, UPDATE or DELETE"},
                {"INSERT INTO ks.kv (pk, ck, v) VALUES (?, ?, ?) IF NOT EXISTS", "line 1, column 48: conditional statements"},
                {"INSERT INTO ks.other (pk) VALUES (?)", "line 1, column 13: the statement writes ks.other"},
                {"INSERT INTO ks.kv (pk, nope) VALUES (?, ?)", "line 1, column 24: unknown column 'nope'"},
                {"UPDATE ks.kv SET v = ? WHERE pk IN (?, ?) AND ck = ?", "line 1, column 33: IN is not supported"},
                {"UPDATE ks.kv SET v = ? WHERE pk = ? AND ck > ?", "line 1, column 44: an UPDATE needs '='"},
                {"UPDATE ks.kv SET v = ?\n  WHERE v = ?", "line 2, column 9: column 'v' in WHERE is not a primary key column"},
                {"DELETE FROM ks.kv USING TTL 5 WHERE pk = ?", "line 1, column 25: a DELETE takes no TTL"},
                {"DELETE FROM ks.kv WHERE ck = ?", "partition key column 'pk' (int) is missing from WHERE"},
                {"INSERT INTO ks.kv (pk, ck, v) VALUES (1, 2, 'x')", "the statement has no bind markers"},
                {"UPDATE ks.kv SET v = v + ? WHERE pk = ? AND ck = ?", "column 'v' (text): appending needs a non-frozen list, set or map"},
        };
        for (String[] c : cases) {
            SchemaException e = assertThrows(SchemaException.class,
                    () -> FlushlineSSTableWriter.builder().inDirectory(dir).forTable(TABLE).using(c[0]).build(), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
        IllegalArgumentException v = assertThrows(IllegalArgumentException.class,
                () -> FlushlineSSTableWriter.builder().withSSTableVersion("na"));
        assertTrue(v.getMessage().contains("'na' is not supported"), v.getMessage());
        assertThrows(IllegalStateException.class, () -> FlushlineSSTableWriter.builder().inDirectory(dir).forTable(TABLE).build());
        assertThrows(IllegalArgumentException.class, () -> FlushlineSSTableWriter.builder().inDirectory(dir.resolve("missing")));
    }

    static Path onlyFilter(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            List<Path> filters = s.filter(p -> p.getFileName().toString().endsWith("-Filter.db")).toList();
            assertEquals(1, filters.size(), "Filter.db files in " + dir);
            return filters.get(0);
        }
    }
}
