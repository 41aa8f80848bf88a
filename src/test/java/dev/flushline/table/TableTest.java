package dev.flushline.table;

import dev.flushline.commitlog.CommitLog;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Table.open gives the same sstables whatever the memtable kind, allocation mode or commit log:
 * the facade only assembles Flusher and DurableTable.
 */
class TableTest {
    static final String CQL = "CREATE TABLE ks.tt (pk int, ck int, v text, s int static, PRIMARY KEY (pk, ck))"
            + " WITH compression = {'enabled': false}";

    @TempDir
    Path tmp;

    List<Partition> write(String name, TableOptions.MemtableKind kind, AllocationMode mode, boolean commitLog, long memtableBytes)
            throws Exception {
        Path root = tmp.resolve(name);
        TableOptions.Builder b = TableOptions.builder().schema(CQL).dataDir(root.resolve("data")).memtable(kind).allocation(mode)
                .memtableSizeBytes(memtableBytes).log(line -> { });
        if (commitLog) b.commitLog(new CommitLog.Options(root.resolve("cl"), CommitLog.SyncMode.PERIODIC));
        TableOptions options = b.build();
        List<Partition> all = new ArrayList<>();
        try (Table t = Table.open(options)) {
            TableSchema schema = t.schema();
            RandomUpdates gen = new RandomUpdates(schema, 7, 1_750_000_000L, 200, 10);
            for (PartitionUpdate u : gen.next(3000)) t.apply(u);
            t.flush();
            if (memtableBytes < 1 << 20) {
                assertTrue(t.flusher().flushCount() > 1, "a small memtable flushes several times: " + t.flusher().flushCount());
            } else {
                assertEquals(1, t.flusher().flushCount());
            }
            assertEquals(commitLog, t.durable() != null);
        }
        if (commitLog) {
            // a clean close leaves nothing to replay
            try (Table again = Table.open(options)) {
                assertEquals(0, again.durable().replayReport().mutations);
            }
        }
        Path dir = options.dataDir.resolve("ks");
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(dir)) {
            all.addAll(reconciled(CassandraReader.readAll(s.findFirst().orElseThrow(), CQL)));
        }
        return all;
    }

    /** In a stable order, so that runs can be compared. */
    static List<Partition> reconciled(List<Partition> ps) {
        List<Partition> out = new ArrayList<>(ps);
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }

    @Test
    void everyKindAndModeWritesTheSameRows() throws Exception {
        long big = 256L << 20;
        List<Partition> base = write("a", TableOptions.MemtableKind.SKIPLIST, AllocationMode.HEAP_BUFFERS, false, big);
        assertTrue(!base.isEmpty());
        assertEquals(base, write("b", TableOptions.MemtableKind.SKIPLIST, AllocationMode.OFFHEAP_OBJECTS, true, big));
        assertEquals(base, write("c", TableOptions.MemtableKind.SKIPLIST, AllocationMode.UNSLABBED_HEAP, false, big));
        assertEquals(base, write("d", TableOptions.MemtableKind.SHARDED, AllocationMode.HEAP_BUFFERS, true, big));
        assertEquals(base, write("e", TableOptions.MemtableKind.HASH, AllocationMode.OFFHEAP_OBJECTS, false, big));
        write("small", TableOptions.MemtableKind.SKIPLIST, AllocationMode.OFFHEAP_OBJECTS, true, 64 << 10);
    }
}
