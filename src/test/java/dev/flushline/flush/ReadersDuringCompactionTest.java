package dev.flushline.flush;

import dev.flushline.memtable.Memtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.sstable.TransactionLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * dump and verify list a directory's sstables through {@link SSTableFiles#inDirectory}: while a
 * compaction's transaction is open they see its inputs only, after its commit its outputs only.
 */
class ReadersDuringCompactionTest {
    @TempDir
    Path tmp;

    static List<Integer> generations(Path dir) throws Exception {
        List<Integer> out = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) {
            String name = f.path(Component.DATA).getFileName().toString();
            out.add(Integer.parseInt(name.split("-")[1]));
        }
        return out;
    }

    @Test
    void aListingSeesOneSideOfAnOpenTransaction() throws Exception {
        TableSchema schema = CqlParser.parse(FlushGenerationsTest.CQL);
        Path tableDir = schema.directoryUnder(tmp);
        TableDirectory dir = TableDirectory.open(tableDir);
        for (int i = 0; i < 2; i++) {
            Memtable m = FlushGenerationsTest.memtable(schema, i, 50);
            FlushJob.run(m, FlushJob.Options.simple(tmp), dir, null);
            m.discard();
        }
        assertEquals(List.of(1, 2), generations(tableDir));
        try (TransactionLog txn = TransactionLog.beginCompaction(dir)) {
            Memtable m = FlushGenerationsTest.memtable(schema, 9, 80);
            FlushJob.run(m, FlushJob.Options.simple(tmp), txn.outputs(), null);
            m.discard();
            assertEquals(List.of(1, 2), generations(tableDir), "the output is published but not committed");
            txn.obsolete(1);
            txn.obsolete(2);
            assertEquals(List.of(1, 2), generations(tableDir));
            txn.commit();
        }
        assertEquals(List.of(3), generations(tableDir), "after the commit: the output only");
    }
}
