package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A write goes to the partition of its own key whatever the partition of the write before it: the
 * memtable remembers the last partition written (so grouped input skips the skip list), and must
 * never hand it to a write for another key. Every kind and allocation mode, grouped and
 * interleaved orders.
 */
class MemtableLastPartitionTest {
    static final TableSchema SCHEMA = CqlParser.parse("CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck))");

    static PartitionUpdate write(int pk, int ck) {
        Cell[] cells = {Cell.live(1_000 + ck, ("v" + pk + "." + ck).getBytes(StandardCharsets.UTF_8), null)};
        Row row = new Row(false, new byte[][] {ValueCodec.int32(ck)}, 1_000 + ck, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells,
                new ComplexColumn[0]);
        return new PartitionUpdate(PartitionKey.of(ValueCodec.int32(pk)), DeletionTime.LIVE, List.of(), null, List.of(row));
    }

    @Test
    void eachWriteLandsInItsOwnPartition() {
        Random r = new Random(7);
        for (MemtableKind kind : MemtableKind.values()) {
            for (AllocationMode mode : AllocationMode.values()) {
                // Runs of one partition (grouped input), single writes that hop between partitions, and returns to earlier ones.
                List<int[]> order = new ArrayList<>();
                int ck = 0;
                for (int run = 0; run < 400; run++) {
                    int pk = r.nextInt(run % 3 == 0 ? 5 : 60);
                    int length = run % 2 == 0 ? 1 : 1 + r.nextInt(8);
                    for (int i = 0; i < length; i++) order.add(new int[] {pk, ck++});
                }
                Memtable m = MemtableFixtures.create(kind, SCHEMA, mode);
                TreeMap<Integer, TreeSet<Integer>> expected = new TreeMap<>();
                for (int[] w : order) {
                    m.apply(write(w[0], w[1]));
                    expected.computeIfAbsent(w[0], k -> new TreeSet<>()).add(w[1]);
                }
                m.seal();
                try {
                    assertEquals(expected.size(), m.partitionCount(), "kind=" + kind + " " + mode);
                    for (var e : expected.entrySet()) {
                        MemtablePartition p = m.get(PartitionKey.of(ValueCodec.int32(e.getKey())));
                        TreeSet<Integer> clusterings = new TreeSet<>();
                        for (RowList.Node n = p.rows().first(); n != null; n = n.next()) {
                            byte[] c = n.row().clustering()[0];
                            clusterings.add(((c[0] & 0xFF) << 24) | ((c[1] & 0xFF) << 16) | ((c[2] & 0xFF) << 8) | (c[3] & 0xFF));
                        }
                        assertEquals(e.getValue(), clusterings, "partition " + e.getKey() + ", sharded=" + kind + " " + mode);
                    }
                } finally {
                    m.discard();
                }
            }
        }
    }
}
