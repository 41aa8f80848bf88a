package dev.flushline.memtable;

import dev.flushline.data.RowRecord;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.Row;
import dev.flushline.io.NativeMemory;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The rows of one memtable partition: a skip list ordered by clustering. A flush walks level 0
 * with {@link Node#next()}, so iteration allocates nothing (unlike a TreeMap or
 * ConcurrentSkipListMap iterator per partition).
 *
 * <p>Each node holds its clustering and its row in the memtable's allocation mode: a {@link Row}
 * object ({@code unslabbed_heap}), or a {@link RowRecord} in a heap slab ({@code heap_buffers}) or
 * in native memory ({@code offheap_objects}). A node's first forward link is a field and only the
 * higher levels (a quarter of the nodes) have an array, so a one-level node is a single object.
 *
 * <p>Thread safety: single writer. REQUIRES: callers of the mutators hold the partition's lock;
 * readers hold the same lock, or read after the memtable is sealed (sealing waits for every
 * writer to leave, which orders all writes before the flush's reads).
 *
 * <p>Invariants: level-0 order is strictly increasing by clustering; {@code size} is the number
 * of nodes; outside a mutator every node holds a row.
 */
public final class RowList {
    private static final int MAX_LEVEL = 16;
    private static final Node[] NO_TOWER = new Node[0];

    /** A row slot. Its row is replaced in place when a later write to the same clustering merges. */
    public static final class Node {
        private final byte[][] clustering;
        /** unslabbed_heap: the row. Null when the row is a record. */
        Row row;
        /** heap_buffers: the slab holding the record, at {@link #record}. */
        byte[] slab;
        /** heap_buffers: the record's offset in {@link #slab}; offheap_objects: its address. 0 while unset. */
        long record;
        private Node next0;
        /** Forward links of levels 1.. (length = levels - 1). */
        private Node[] tower;

        Node(byte[][] clustering, int levels) {
            this.clustering = clustering;
            this.tower = levels == 1 ? NO_TOWER : new Node[levels - 1];
        }

        /** The clustering values. Do not modify. */
        public byte[][] clustering() { return clustering; }

        /** Whether the row is a record (the slab modes) rather than a Row object. */
        public boolean isRecord() { return row == null; }

        /**
         * The row. For a record this builds a Row of fresh ArrayCells (allocates): the write path's
         * merges and tests use it; the flush reads records through {@link MemtableRowReader}.
         * REQUIRES: the memtable is not discarded.
         */
        public Row row() {
            if (row != null) return row;
            if (slab != null) return RowRecord.materialize(slab, (int) record, clustering);
            byte[] copy = new byte[RowRecord.nativeLength(record)];
            NativeMemory.copyToArray(record, copy, 0, copy.length);
            return RowRecord.materialize(copy, 0, clustering);
        }

        /** The next row in clustering order, or null. */
        public Node next() { return next0; }

        int levels() { return tower.length + 1; }

        Node next(int level) { return level == 0 ? next0 : tower[level - 1]; }

        void setNext(int level, Node n) {
            if (level == 0) next0 = n;
            else tower[level - 1] = n;
        }

        boolean isUnset() { return row == null && slab == null && record == 0; }
    }

    /** The head's tower grows with {@link #level}: an empty partition does not pay for 16 links. */
    private final Node head = new Node(null, 1);
    /**
     * Per-thread scratch for the search path of {@link #getOrAdd}: a mutator runs under the
     * partition's monitor and never re-enters, so one array per writer thread serves every partition.
     */
    private static final ThreadLocal<Node[]> UPDATE_SCRATCH = ThreadLocal.withInitial(() -> new Node[MAX_LEVEL]);
    private int level = 1;
    private int size;

    public int size() { return size; }

    /** The first row in clustering order, or null. */
    public Node first() { return head.next0; }

    /** The node for this clustering, or null. */
    public Node find(byte[][] clustering, ClusteringComparator comparator) {
        Node x = head;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = x.next(i)) != null) {
                int c = comparator.compare(n.clustering, clustering);
                if (c < 0) x = n;
                else if (c == 0) return n;
                else break;
            }
        }
        return null;
    }

    /**
     * The node for this clustering, found or inserted in one descent. An inserted node holds no
     * row yet ({@link Node#isUnset}): the caller must store one in it, or {@link #remove} it, before
     * it releases the partition's monitor.
     */
    Node getOrAdd(byte[][] clustering, ClusteringComparator comparator) {
        Node[] update = UPDATE_SCRATCH.get();
        Node x = head;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = x.next(i)) != null) {
                int c = comparator.compare(n.clustering, clustering);
                if (c < 0) {
                    x = n;
                } else if (c == 0) {
                    return n;
                } else {
                    break;
                }
            }
            update[i] = x;
        }
        int levels = randomLevel();
        if (levels > level) {
            head.tower = Arrays.copyOf(head.tower, levels - 1);
            for (int i = level; i < levels; i++) update[i] = head;
            level = levels;
        }
        Node node = new Node(clustering, levels);
        for (int i = 0; i < levels; i++) {
            node.setNext(i, update[i].next(i));
            update[i].setNext(i, node);
        }
        size++;
        return node;
    }

    /** Unlinks {@code node}. REQUIRES: it is in this list. */
    void remove(Node node, ClusteringComparator comparator) {
        Node x = head;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = x.next(i)) != null && n != node && comparator.compare(n.clustering, node.clustering) < 0) {
                x = n;
            }
            if (i < node.levels() && x.next(i) == node) x.setNext(i, node.next(i));
        }
        size--;
    }

    /**
     * Heap bytes charged for a node, clustering not included: the 40-byte node plus its tower's
     * expected share (a quarter of the nodes have one, mostly of one or two links). A constant and
     * not the node's own random height, so that the same writes always fill a memtable to the same
     * size and a flush at a size limit cuts at the same row every time.
     */
    static final long NODE_HEAP_BYTES = 48;

    private static int randomLevel() {
        // p = 1/4 per level: two random bits per level.
        int r = ThreadLocalRandom.current().nextInt();
        int levels = 1 + (Integer.numberOfTrailingZeros(r | (1 << 30)) >>> 1);
        return Math.min(levels, MAX_LEVEL);
    }
}
