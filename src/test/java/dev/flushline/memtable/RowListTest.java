package dev.flushline.memtable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.Row;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The row list against a sorted-set model, with writes that mostly arrive in clustering order (the
 * append path after one comparison with the last row) mixed with writes below the last row, repeats
 * of existing rows and removals of the last, first and middle rows: after every step level 0 holds
 * exactly the model's keys in order, every key is found through the upper levels, and a write of
 * an existing key returns its node rather than a second one.
 */
class RowListTest {
    private static final TableSchema SCHEMA = MemtableFixtures.schema("CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck))");
    private static final ClusteringComparator COMPARATOR = new ClusteringComparator(SCHEMA);

    @Test
    void appendsInsertsAndRemovalsKeepOrderAndTheLastRow() {
        for (long seed = 1; seed <= 20; seed++) {
            Random r = new Random(seed);
            MemtablePartition list = new MemtablePartition(PartitionKey.of(ValueCodec.int32(1)));
            TreeSet<Integer> model = new TreeSet<>();
            int next = 0;
            for (int step = 0; step < 3_000; step++) {
                int op = r.nextInt(100);
                if (op < 70) {
                    add(list, next, model); // in clustering order: the append path
                    next += 1 + r.nextInt(3);
                } else if (op < 80) {
                    add(list, r.nextInt(next + 1), model); // anywhere, often an existing key
                } else if (op < 86 && !model.isEmpty()) {
                    remove(list, model.last(), model);
                } else if (op < 90 && !model.isEmpty()) {
                    remove(list, model.first(), model);
                } else if (op < 95 && !model.isEmpty()) {
                    Integer k = model.ceiling(r.nextInt(next + 1));
                    if (k != null) remove(list, k, model);
                } else if (op < 97) {
                    // Everything above some key goes, so the next appends follow a new last row.
                    int from = r.nextInt(next + 1);
                    for (Integer k : new ArrayList<>(model.tailSet(from))) remove(list, k, model);
                    next = from;
                }
                if (step % 50 == 0 || op >= 80) check(list, model);
            }
            check(list, model);
        }
    }

    @Test
    void anExistingLastRowIsFoundNotAddedAgain() {
        MemtablePartition list = new MemtablePartition(PartitionKey.of(ValueCodec.int32(1)));
        TreeSet<Integer> model = new TreeSet<>();
        for (int k = 0; k < 100; k++) add(list, k, model);
        RowList.Node last = list.find(key(99), COMPARATOR);
        RowList.Lookup lk = RowList.lookup();
        lk.probe(key(99));
        assertSame(last, list.getOrAdd(lk, COMPARATOR));
        assertEquals(100, list.size());
    }

    private static void add(MemtablePartition list, int k, TreeSet<Integer> model) {
        RowList.Lookup lk = RowList.lookup();
        lk.probe(key(k));
        RowList.Node node = list.getOrAdd(lk, COMPARATOR);
        if (node.isUnset()) {
            assertTrue(model.add(k), "a new node for " + k + ", which the list already holds");
            node.row = row(k);
        } else {
            assertTrue(model.contains(k), "an existing node for " + k + ", which the list does not hold");
            assertEquals(k, java.nio.ByteBuffer.wrap(node.row.clustering()[0]).getInt());
        }
    }

    private static void remove(MemtablePartition list, int k, TreeSet<Integer> model) {
        RowList.Node node = list.find(key(k), COMPARATOR);
        assertNotNull(node, "row " + k);
        list.remove(node, COMPARATOR);
        model.remove(k);
        assertNull(list.find(key(k), COMPARATOR), "row " + k + " after its removal");
    }

    private static void check(MemtablePartition list, TreeSet<Integer> model) {
        List<Integer> walked = new ArrayList<>();
        for (RowList.Node n = list.first(); n != null; n = n.next()) walked.add(java.nio.ByteBuffer.wrap(n.row.clustering()[0]).getInt());
        assertEquals(new ArrayList<>(model), walked);
        assertEquals(model.size(), list.size());
        for (int k : model) assertNotNull(list.find(key(k), COMPARATOR), "row " + k);
    }

    private static byte[][] key(int k) {
        return new byte[][] {ValueCodec.int32(k)};
    }

    private static Row row(int k) {
        return new Row(false, key(k), 1L, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[] {Cell.live(1L, ValueCodec.int32(k), null)}, new ComplexColumn[0]);
    }
}
