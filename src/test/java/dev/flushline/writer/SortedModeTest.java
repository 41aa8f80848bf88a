package dev.flushline.writer;

import dev.flushline.data.Murmur3;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FlushlineSSTableWriter's sorted mode: what it refuses at build(), what it refuses per row (a
 * partition or a row out of order, named with the row number and the key; the writer goes on
 * without it), and that it splits and reads back as CQLSSTableWriter's sorted mode writes the
 * same rows.
 */
class SortedModeTest {
    static final String TABLE = "CREATE TABLE ks.kv (pk int, ck int, s text static, v text, PRIMARY KEY (pk, ck))";
    static final String INSERT = "INSERT INTO ks.kv (pk, ck, v) VALUES (?, ?, ?) USING TIMESTAMP ?";

    @TempDir
    Path tmp;

    FlushlineSSTableWriter.Builder sorted(Path dir, String statement) {
        return FlushlineSSTableWriter.builder().inDirectory(dir).forTable(TABLE).using(statement).sorted().withNowMillis(1_700_000_000_000L);
    }

    static List<Integer> keysInTokenOrder(int n) {
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) keys.add(i);
        keys.sort(Comparator.comparingLong(k -> {
            byte[] b = Bytes.int32(k).toBuffer().array();
            return Murmur3.token(b, 0, b.length);
        }));
        return keys;
    }

    @Test
    void statementsThatNeedAPartitionTogetherAreRefusedAtBuild() throws Exception {
        Path dir = tmp;
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> sorted(dir, "INSERT INTO ks.kv (pk, ck, s, v) VALUES (?, ?, ?, ?)").build());
        assertTrue(both.getMessage().contains("sorted()") && both.getMessage().contains("static"), both.getMessage());
        assertThrows(IllegalArgumentException.class, () -> sorted(dir, "UPDATE ks.kv SET s = ?, v = ? WHERE pk = ? AND ck = ?").build());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> sorted(dir, "DELETE FROM ks.kv WHERE pk = ? AND ck > ?").build());
        assertTrue(range.getMessage().contains("range deletion"), range.getMessage());
        // the refusals leave nothing behind, and the statements sorted mode takes build
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.toList());
        }
    }

    @Test
    void aPartitionOrRowOutOfOrderIsRefusedByRowNumberAndKeyAndTheRestIsWritten() throws Exception {
        List<Integer> keys = keysInTokenOrder(3);
        Path dir = Files.createDirectories(tmp.resolve("order"));
        try (FlushlineSSTableWriter w = sorted(dir, INSERT).build()) {
            w.addRow(keys.get(1), 1, "a", 10L);
            w.addRow(keys.get(1), 2, "b", 10L);
            IllegalStateException row = assertThrows(IllegalStateException.class, () -> w.addRow(keys.get(1), 1, "c", 10L));
            assertTrue(row.getMessage().startsWith("row 3: row (ck=1) of partition pk=" + keys.get(1)), row.getMessage());
            IllegalStateException partition = assertThrows(IllegalStateException.class, () -> w.addRow(keys.get(0), 1, "d", 10L));
            assertTrue(partition.getMessage().startsWith("row 3: partition pk=" + keys.get(0)) // refused rows are not counted
                    && partition.getMessage().contains("previous partition pk=" + keys.get(1)), partition.getMessage());
            IllegalArgumentException value = assertThrows(IllegalArgumentException.class, () -> w.addRow(keys.get(2), "x", "e", 10L));
            assertTrue(value.getMessage().contains("column 'ck' (int)"), value.getMessage());
            w.addRow(keys.get(2), 1, "f", 10L);
            assertEquals(3, w.rowCount());
        }
        List<Partition> ps = CassandraReader.readAll(dir, TABLE);
        assertEquals(2, ps.size());
        assertEquals(Bytes.int32(keys.get(1)), ps.get(0).key());
        assertEquals(2, ps.get(0).rows().size());
        assertEquals(Bytes.int32(keys.get(2)), ps.get(1).key());
    }

    @Test
    void readsBackAsCqlSSTableWritersSortedModeAndSplitsAtTheMaximumSize() throws Exception {
        CassandraOracle.init();
        List<Integer> keys = keysInTokenOrder(400);
        Path theirs = Files.createDirectories(tmp.resolve("c"));
        Path ours = Files.createDirectories(tmp.resolve("f"));
        String value = "v".repeat(1000);
        try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(TABLE).using(INSERT).sorted().build();
             FlushlineSSTableWriter f = sorted(ours, INSERT).withMaxSSTableSizeInMiB(1).build()) {
            for (int k : keys) {
                for (int ck = 0; ck < 5; ck++) {
                    c.addRow(k, ck, value + k, 10L + ck);
                    f.addRow(k, ck, value + k, 10L + ck);
                }
            }
        }
        assertEquals(CassandraReader.readAll(theirs, TABLE), CassandraReader.readAll(ours, TABLE));
        try (Stream<Path> s = Files.list(ours)) {
            long data = s.filter(p -> p.toString().endsWith("-Data.db")).count();
            assertTrue(data >= 2, "about 2 MB of rows at 1 MiB per sstable: " + data + " sstables");
        }
    }

    @Test
    void staticOnlyStatementsWriteOneStaticRowPerPartition() throws Exception {
        List<Integer> keys = keysInTokenOrder(20);
        Path dir = Files.createDirectories(tmp.resolve("static"));
        try (FlushlineSSTableWriter w = sorted(dir, "UPDATE ks.kv USING TIMESTAMP ? SET s = ? WHERE pk = ?").build()) {
            for (int k : keys) w.addRow(5L, "s" + k, k);
            IllegalStateException again = assertThrows(IllegalStateException.class, () -> w.addRow(6L, "t", keys.get(keys.size() - 1)));
            assertTrue(again.getMessage().contains("static row"), again.getMessage());
        }
        List<Partition> ps = CassandraReader.readAll(dir, TABLE);
        assertEquals(keys.size(), ps.size());
        for (Partition p : ps) assertTrue(p.rows().isEmpty() && !p.staticRow().columns().isEmpty(), p.toString());
    }

    @Test
    void nbOutputReadsBackAsTheBufferedWritersOa() throws Exception {
        List<Integer> keys = keysInTokenOrder(300);
        Path buffered = Files.createDirectories(tmp.resolve("buffered"));
        Path nb = Files.createDirectories(tmp.resolve("nb"));
        try (FlushlineSSTableWriter b = FlushlineSSTableWriter.builder().inDirectory(buffered).forTable(TABLE).using(INSERT).build();
             FlushlineSSTableWriter s = sorted(nb, INSERT).withSSTableVersion("nb").build()) {
            for (int k : keys) {
                b.addRow(k, k % 7, "v" + k, 1000L + k);
                s.addRow(k, k % 7, "v" + k, 1000L + k);
            }
            s.close();
            assertEquals(1, s.dataFiles().size());
            assertTrue(s.dataFiles().get(0).getFileName().toString().startsWith("nb-"), s.dataFiles().toString());
        }
        List<Partition> expected = CassandraReader.readAll(buffered, TABLE);
        assertEquals(300, expected.size());
        assertEquals(expected, CassandraReader.readAll(nb, TABLE));
    }
}
