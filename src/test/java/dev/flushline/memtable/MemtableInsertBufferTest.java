package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.data.RowRecord;
import dev.flushline.io.NativeMemory;
import dev.flushline.ops.BadInputException;
import dev.flushline.ops.OperationDecoder;
import dev.flushline.ops.OperationReader;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A decoded insert applied from its buffer ({@link Memtable#apply(InsertBuffer)}: a new row's record
 * written straight from the buffer, anything else through objects) leaves the memtable exactly as
 * applying the update it means does: the same partitions, rows and cells, the same record bytes, the
 * same counts, memory charged, EncodingStats minima and columns written. The operations are random
 * inserts over few keys (so rows meet rows already there), with partition, row and range deletions
 * and static columns among them, at random timestamps, with and without TTL and nulls.
 */
class MemtableInsertBufferTest {
    static final long NOW = 1_750_000_000L;
    static final String CQL = "CREATE TABLE ks.t (pk int, ck int, s text static, v1 int, v2 text, v3 double, l list<int>,"
            + " PRIMARY KEY (pk, ck))";

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (MemtableKind kind : MemtableKind.values()) {
            for (AllocationMode mode : AllocationMode.values()) out.add(Arguments.of(kind, mode));
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void bufferAndUpdateLeaveTheSameMemtable(MemtableKind kind, AllocationMode mode) throws Exception {
        // few partitions: rows mostly meet rows and deletions already there; many: mostly new rows
        for (int partitions : new int[] {12, 100_000}) check(kind, mode, partitions);
    }

    private void check(MemtableKind kind, AllocationMode mode, int partitions) throws Exception {
        TableSchema schema = MemtableFixtures.schema(CQL);
        Random r = new Random(11 + partitions);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 4000; i++) text.append(operation(r, partitions)).append('\n');
        Memtable fromBuffers = MemtableFixtures.create(kind, schema, mode);
        Memtable fromUpdates = MemtableFixtures.create(kind, schema, mode);
        OperationReader reader = new OperationReader(schema, new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)),
                "ops.jsonl", new OperationDecoder(schema, NOW));
        InsertBuffer buffer = reader.newInsertBuffer();
        int buffers = 0;
        try {
            while (true) {
                Object item;
                try {
                    item = reader.next(buffer);
                } catch (BadInputException e) {
                    throw new AssertionError(e.getMessage());
                }
                if (item == null) break;
                if (item == buffer) {
                    buffers++;
                    assertTrue(fromUpdates.apply(buffer.toUpdate()));
                    assertTrue(fromBuffers.apply(buffer));
                } else {
                    assertTrue(fromUpdates.apply(((Mutation) item).update()));
                    assertTrue(fromBuffers.apply(((Mutation) item).update()));
                }
            }
            assertTrue(buffers > 2000, "only " + buffers + " inserts came in buffers");
            assertEquals(MemtableFixtures.dump(fromUpdates), MemtableFixtures.dump(fromBuffers));
            assertEquals(records(fromUpdates), records(fromBuffers));
            assertEquals(fromUpdates.rowCount(), fromBuffers.rowCount());
            assertEquals(fromUpdates.cellCount(), fromBuffers.cellCount());
            assertEquals(fromUpdates.operationCount(), fromBuffers.operationCount());
            assertEquals(fromUpdates.onHeapBytes(), fromBuffers.onHeapBytes());
            assertEquals(fromUpdates.offHeapBytes(), fromBuffers.offHeapBytes());
            assertEquals(fromUpdates.minTimestamp(), fromBuffers.minTimestamp());
            assertEquals(fromUpdates.minLocalDeletionTime(), fromBuffers.minLocalDeletionTime());
            assertEquals(fromUpdates.maxLocalDeletionTime(), fromBuffers.maxLocalDeletionTime());
            assertEquals(fromUpdates.minTtl(), fromBuffers.minTtl());
            for (int i = 0; i < schema.regularColumns().length; i++) {
                assertEquals(fromUpdates.regularColumnWritten(i), fromBuffers.regularColumnWritten(i), "regular " + i);
            }
            for (int i = 0; i < schema.staticColumns().length; i++) {
                assertEquals(fromUpdates.staticColumnWritten(i), fromBuffers.staticColumnWritten(i), "static " + i);
            }
        } finally {
            fromBuffers.seal();
            fromUpdates.seal();
            fromBuffers.discard();
            fromUpdates.discard();
        }
    }

    /** Every row's stored record, as hex, in order; the Row's own text where rows are objects. */
    private static List<String> records(Memtable m) {
        List<String> out = new ArrayList<>();
        for (Iterator<MemtablePartition> it = m.partitionIterator(); it.hasNext(); ) {
            MemtablePartition p = it.next();
            for (RowList.Node n = p.rows().first(); n != null; n = n.next()) {
                if (n.row != null) {
                    out.add(n.row.toString());
                } else if (n.slab != null) {
                    int length = RowRecord.length(n.slab, (int) n.record);
                    out.add(dev.flushline.data.Hex.of(Arrays.copyOfRange(n.slab, (int) n.record, (int) n.record + length)));
                } else {
                    byte[] copy = new byte[RowRecord.nativeLength(n.record)];
                    NativeMemory.copyToArray(n.record, copy, 0, copy.length);
                    out.add(dev.flushline.data.Hex.of(copy));
                }
            }
        }
        return out;
    }

    /** Mostly plain inserts over few keys; now and then a delete, a static column or a list. */
    static String operation(Random r, int partitions) {
        int pk = r.nextInt(partitions), ck = r.nextInt(8);
        long ts = 1000 + r.nextInt(100);
        int what = r.nextInt(40);
        if (what == 0) return "{\"op\":\"delete\",\"timestamp\":" + ts + ",\"key\":{\"pk\":" + pk + "}}";
        if (what == 1) return "{\"op\":\"delete\",\"timestamp\":" + ts + ",\"key\":{\"pk\":" + pk + ",\"ck\":" + ck + "}}";
        if (what == 2) {
            return "{\"op\":\"delete\",\"timestamp\":" + ts + ",\"key\":{\"pk\":" + pk + "},\"range\":{\"ck\":{\">\":" + ck
                    + ",\"<=\":" + (ck + 2) + "}}}";
        }
        if (what == 3) {
            return "{\"op\":\"delete\",\"timestamp\":" + ts + ",\"key\":{\"pk\":" + pk + ",\"ck\":" + ck + "},\"columns\":[\"v1\"]}";
        }
        StringBuilder v = new StringBuilder("\"pk\":" + pk + ",\"ck\":" + ck);
        if (r.nextInt(4) != 0) v.append(",\"v1\":").append(r.nextInt(5) == 0 ? "null" : Integer.toString(r.nextInt()));
        if (r.nextInt(4) != 0) {
            v.append(",\"v2\":").append(r.nextInt(6) == 0 ? "null" : "\"" + "t".repeat(r.nextInt(r.nextInt(10) == 0 ? 400 : 20)) + "\"");
        }
        if (r.nextInt(3) == 0) v.append(",\"v3\":").append(r.nextInt(1000)).append(".25");
        if (r.nextInt(15) == 0) v.append(",\"s\":\"st").append(r.nextInt(3)).append('"');
        if (r.nextInt(20) == 0) v.append(",\"l\":[1,2]");
        String ttl = r.nextInt(4) == 0 ? ",\"ttl\":" + (1 + r.nextInt(1000)) : "";
        return "{\"op\":\"insert\",\"timestamp\":" + ts + ttl + ",\"values\":{" + v + "}}";
    }
}
