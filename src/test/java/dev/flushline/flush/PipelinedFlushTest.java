package dev.flushline.flush;

import dev.flushline.sstable.TableDirectory;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flush many blocks long (well past the pipeline's depth of blocks in flight, with one row
 * larger than a block) writes the same bytes whether the I/O thread does the writing or the
 * serializing thread does it inline.
 */
class PipelinedFlushTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"none", "lz4"})
    void pipelinedAndInlineWritesAreIdentical(String compression) throws Exception {
        CassandraOracle.init();
        String cql = "CREATE TABLE ks.p (pk bigint, ck int, v blob, PRIMARY KEY (pk, ck)) WITH compression = "
                + (compression.equals("lz4") ? "{'class': 'LZ4Compressor'}" : "{'enabled': 'false'}");
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS);
        Random r = new Random(9);
        long rows = 0;
        for (int p = 0; p < 2000; p++) {
            List<Row> rs = new ArrayList<>();
            for (int c = 0; c < 10; c++) {
                // ~1 KiB values, half random (incompressible), one 1.5 MiB value larger than a block.
                byte[] v = new byte[p == 1000 && c == 0 ? 1_500_000 : 1024];
                if ((c & 1) == 0) r.nextBytes(v);
                rs.add(new Row(false, new byte[][] {ByteBuffer.allocate(4).putInt(c).array()}, 1_700_000_000_000_000L + p, 0,
                        Cell.NO_DELETION_TIME, DeletionTime.LIVE, new Cell[] {Cell.live(1_700_000_000_000_000L + p, v, null)},
                        new ComplexColumn[0]));
                rows++;
            }
            m.apply(new PartitionUpdate(PartitionKey.of(ByteBuffer.allocate(8).putLong(r.nextLong()).array()),
                    DeletionTime.LIVE, List.of(), null, rs));
        }
        m.seal();
        try {
            FlushResult piped = new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(tmp.resolve("piped")), true, null, 0);
            FlushResult inline = new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(tmp.resolve("inline")), false, null, 0);
            assertTrue(piped.uncompressedBytes > 16L << 20, "many blocks: " + piped.uncompressedBytes);
            for (Component c : Component.values()) {
                Path a = tmp.resolve("piped").resolve("oa-1-big-" + c.fileSuffix());
                Path b = tmp.resolve("inline").resolve("oa-1-big-" + c.fileSuffix());
                assertEquals(Files.exists(b), Files.exists(a), c.name());
                if (Files.exists(a)) assertArrayEquals(Files.readAllBytes(b), Files.readAllBytes(a), c + " differs");
            }
            long read = 0;
            for (var part : CassandraReader.readAll(tmp.resolve("piped"), cql)) read += part.rows().size();
            assertEquals(rows, read);
        } finally {
            m.discard();
        }
    }
}
