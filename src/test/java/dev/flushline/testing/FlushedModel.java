package dev.flushline.testing;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushResult;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Random operations through our memtable and flush, as cassandra-all reads the flushed sstable
 * back: the partitions a node's memtable would hold, and the EncodingStats its flush would use,
 * for Cassandra's writers to write again (in another version or format).
 */
public record FlushedModel(List<Partition> partitions, EncodingStats stats) {
    /** {@code operations} of {@code gen}, flushed into {@code dir}. */
    public static FlushedModel of(TableSchema schema, String cql, RandomUpdates gen, int operations, Path dir) throws IOException {
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        for (PartitionUpdate u : gen.next(operations)) m.apply(u);
        m.seal();
        try {
            FlushWriter writer = new FlushWriter(m);
            FlushResult r = writer.write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), true, null, 0);
            if (r == null) throw new IllegalStateException("the operations leave nothing to flush");
            return new FlushedModel(CassandraReader.readAll(dir, cql), writer.header().stats());
        } finally {
            m.discard();
        }
    }
}
