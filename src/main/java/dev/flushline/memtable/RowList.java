package dev.flushline.memtable;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.RowRecord;
import dev.flushline.data.Row;
import dev.flushline.io.NativeMemory;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The rows of one memtable partition: a skip list ordered by clustering. A flush walks level 0
 * with {@link Node#next()}, so iteration allocates nothing (unlike a TreeMap or
 * ConcurrentSkipListMap iterator per partition).
 *
 * <p>Each node holds its row in the memtable's allocation mode: a {@link Row} object
 * ({@code unslabbed_heap}), or a {@link RowRecord} in a heap slab ({@code heap_buffers}) or in
 * native memory ({@code offheap_objects}). A record holds its row's clustering, so in the slab
 * modes a row is one node and nothing else on the heap: lookups compare a probe with the values in
 * the record ({@link Lookup#view}). A node's first forward link is a field and only the higher
 * levels (a quarter of the nodes) have an array, so a one-level node is a single object.
 *
 * <p>The list's head is not a node: its links are fields here ({@link #first} and the tower above
 * it), and a search path holds null for it. A partition is its own row list
 * ({@link MemtablePartition} is this class's one subclass), so a partition with its rows is one object and its
 * nodes: the flush's walk touches one object per partition before the rows, not three.
 *
 * <p>Thread safety: single writer. REQUIRES: callers of the mutators hold the partition's lock;
 * readers hold the same lock, or read after the memtable is sealed (sealing waits for every
 * writer to leave, which orders all writes before the flush's reads).
 *
 * <p>Invariants: level-0 order is strictly increasing by clustering; {@code size} is the number
 * of nodes; outside a mutator every node holds a row.
 */
public abstract sealed class RowList permits MemtablePartition {
    private static final int MAX_LEVEL = 16;
    private static final Node[] NO_TOWER = new Node[0];
    // A node's height when it has no tower array: two distinct empty arrays, told apart by identity.
    private static final Node[] ONE_LEVEL = new Node[0], TWO_LEVELS = new Node[0];

    /** A row slot. Its row is replaced in place when a later write to the same clustering merges. */
    public static final class Node {
        /** unslabbed_heap: the row. Null when the row is a record. */
        Row row;
        /** heap_buffers: the slab holding the record, at {@link #record}. */
        byte[] slab;
        /** heap_buffers: the record's offset in {@link #slab}; offheap_objects: its address. 0 while unset. */
        long record;
        private Node next0;
        /**
         * The level-1 link, a field rather than a tower slot: the node's fields take 36 bytes, so
         * this one fills the padding to 40 and costs nothing, while three in four nodes that have a
         * second level need no tower array for it.
         */
        private Node next1;
        /**
         * Forward links of levels 2.. (length = levels - 2); for a node of one or two levels, the
         * shared empty array that says which.
         */
        private Node[] tower;

        Node(int levels) {
            this.tower = levels == 1 ? ONE_LEVEL : levels == 2 ? TWO_LEVELS : new Node[levels - 2];
        }

        /** Whether the row is a record (the slab modes) rather than a Row object. */
        public boolean isRecord() { return row == null; }

        /**
         * The row. For a record this builds a Row of fresh ArrayCells and clustering arrays
         * (allocates): the write path's merges and tests use it; the flush reads records through
         * {@link MemtableRowReader}. REQUIRES: the memtable is not discarded.
         */
        public Row row() {
            if (row != null) return row;
            if (slab != null) return RowRecord.materialize(slab, (int) record);
            byte[] copy = new byte[RowRecord.nativeLength(record)];
            NativeMemory.copyToArray(record, copy, 0, copy.length);
            return RowRecord.materialize(copy, 0);
        }

        /** The next row in clustering order, or null. */
        public Node next() { return next0; }

        int levels() {
            Node[] t = tower;
            return t == ONE_LEVEL ? 1 : t == TWO_LEVELS ? 2 : t.length + 2;
        }

        Node next(int level) { return level == 0 ? next0 : level == 1 ? next1 : tower[level - 2]; }

        void setNext(int level, Node n) {
            if (level == 0) next0 = n;
            else if (level == 1) next1 = n;
            else tower[level - 2] = n;
        }

        boolean isUnset() { return row == null && slab == null && record == 0; }
    }

    /**
     * One writer thread's scratch for a lookup: the search path, the caller's key ({@link #probe})
     * and views of nodes' clusterings. A mutator runs under one partition's monitor and never
     * re-enters, so one per writer thread serves every partition. A view is valid until the next
     * view of the same kind.
     */
    static final class Lookup {
        final Node[] update = new Node[MAX_LEVEL];
        /** The key being looked up, set by the caller ({@link #probe(byte[][])} or an insert's ranges). */
        final ClusteringBuffer probe = new ClusteringBuffer(1);
        private final ClusteringBuffer view = new ClusteringBuffer(1);
        private final ClusteringBuffer target = new ClusteringBuffer(1);
        // Where a native record's head is copied to compare its clustering, one per view kind.
        private byte[] viewBytes = new byte[64], targetBytes = new byte[64];

        /** Sets {@link #probe} to these values and returns it. */
        ClusteringBuffer probe(byte[][] values) {
            return probe.wrap(ClusteringBound.CLUSTERING, values);
        }

        /** {@code n}'s clustering. REQUIRES: {@code n} holds a row. */
        ClusteringBuffer view(Node n) {
            return clusteringOf(n, view, false);
        }

        /** As {@link #view}, into a second buffer that the next {@link #view} leaves alone. */
        private ClusteringBuffer target(Node n) {
            return clusteringOf(n, target, true);
        }

        private ClusteringBuffer clusteringOf(Node n, ClusteringBuffer into, boolean second) {
            if (n.row != null) return into.wrap(ClusteringBound.CLUSTERING, n.row.clustering());
            if (n.slab != null) {
                RowRecord.clusteringView(n.slab, (int) n.record, into);
                return into;
            }
            byte[] head = second ? (targetBytes = copyHead(n.record, targetBytes)) : (viewBytes = copyHead(n.record, viewBytes));
            RowRecord.clusteringView(head, 0, into);
            return into;
        }

        private static byte[] copyHead(long address, byte[] into) {
            int length = RowRecord.nativeClusteringEnd(address);
            if (length > into.length) into = new byte[Math.max(length, 2 * into.length)];
            NativeMemory.copyToArray(address, into, 0, length);
            return into;
        }
    }

    private static final ThreadLocal<Lookup> LOOKUP = ThreadLocal.withInitial(Lookup::new);

    /** This thread's lookup scratch. */
    static Lookup lookup() {
        return LOOKUP.get();
    }

    /** The head's level-0 link: the first row in clustering order, or null. */
    private Node first;
    /**
     * The last row in clustering order, or null: writes often arrive in clustering order (a time
     * series, a bulk file, one update's sorted rows), and such a row is appended after one comparison
     * with this node instead of a descent that compares at every level.
     */
    private Node last;
    /** The head's links of levels 1..level-1; grows with {@link #level}, so an empty partition pays for none. */
    private Node[] headTower = NO_TOWER;
    private int level = 1;
    private int size;

    RowList() {}

    public final int size() { return size; }

    /** The first row in clustering order, or null. */
    public final Node first() { return first; }

    /** The link of level {@code i} out of {@code x}, where a null {@code x} is the head. */
    private Node next(Node x, int i) {
        if (x != null) return x.next(i);
        return i == 0 ? first : headTower[i - 1];
    }

    private void setNext(Node x, int i, Node n) {
        if (x != null) x.setNext(i, n);
        else if (i == 0) first = n;
        else headTower[i - 1] = n;
    }

    /** The node for this clustering, or null. Allocates nothing; for tests and checks. */
    public final Node find(byte[][] clustering, ClusteringComparator comparator) {
        Lookup lk = lookup();
        ClusteringBuffer key = lk.probe(clustering);
        Node x = null;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = next(x, i)) != null) {
                int c = comparator.compare(lk.view(n), key);
                if (c < 0) x = n;
                else if (c == 0) return n;
                else break;
            }
        }
        return null;
    }

    /**
     * The node for {@code lk.probe}, found or inserted in one descent. An inserted node holds no
     * row yet ({@link Node#isUnset}): the caller must store one in it, or {@link #remove} it, before
     * it releases the partition's monitor.
     */
    final Node getOrAdd(Lookup lk, ClusteringComparator comparator) {
        final ClusteringBuffer key = lk.probe;
        final Node[] update = lk.update;
        final Node tail = last;
        if (tail != null) {
            int c = comparator.compare(lk.view(tail), key);
            if (c == 0) return tail;
            if (c < 0) return append(tail, update);
        }
        Node x = null;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = next(x, i)) != null) {
                int c = comparator.compare(lk.view(n), key);
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
        return link(randomLevel(), update);
    }

    /**
     * Adds a node after {@code tail}, the last node, whose clustering is below the probe's. A
     * one-level node (three in four) links to the tail alone; a taller one needs the last node of
     * each of its levels, which the walk along each level's links finds without comparing keys.
     */
    private Node append(Node tail, Node[] update) {
        int levels = randomLevel();
        if (levels == 1) {
            Node node = new Node(1);
            tail.next0 = node;
            last = node;
            size++;
            return node;
        }
        Node x = null;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = next(x, i)) != null) x = n;
            update[i] = x;
        }
        return link(levels, update);
    }

    /** Links a new node of {@code levels} after {@code update[i]} on each level i below its height. */
    private Node link(int levels, Node[] update) {
        if (levels > level) {
            headTower = Arrays.copyOf(headTower, levels - 1);
            for (int i = level; i < levels; i++) update[i] = null;
            level = levels;
        }
        Node node = new Node(levels);
        for (int i = 0; i < levels; i++) {
            node.setNext(i, next(update[i], i));
            setNext(update[i], i, node);
        }
        if (node.next0 == null) last = node;
        size++;
        return node;
    }

    /** Unlinks {@code node}, which holds a row. REQUIRES: it is in this list. */
    final void remove(Node node, ClusteringComparator comparator) {
        Lookup lk = lookup();
        remove(node, lk.target(node), lk, comparator);
    }

    /**
     * Unlinks {@code node}, whose clustering is {@code key}: for a node that may hold no row yet
     * (a store that failed). REQUIRES: it is in this list.
     */
    final void remove(Node node, ClusteringBuffer key, Lookup lk, ClusteringComparator comparator) {
        Node x = null;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = next(x, i)) != null && n != node && comparator.compare(lk.view(n), key) < 0) {
                x = n;
            }
            if (i < node.levels() && next(x, i) == node) setNext(x, i, node.next(i));
            if (i == 0 && last == node) last = x; // x: the node before it, or null (the head) when it was the only one
        }
        size--;
    }

    /**
     * Heap bytes charged for a node, clustering not included (a record holds it; a Row object's is
     * charged with the row): the 40-byte node plus its tower's expected share (one node in
     * sixteen has one, mostly of one link). A constant and not the node's own random
     * height, so that the same writes always fill a memtable to the same size and a flush at a size
     * limit cuts at the same row every time.
     */
    static final long NODE_HEAP_BYTES = 42;

    private static int randomLevel() {
        // p = 1/4 per level: two random bits per level.
        int r = ThreadLocalRandom.current().nextInt();
        int levels = 1 + (Integer.numberOfTrailingZeros(r | (1 << 30)) >>> 1);
        return Math.min(levels, MAX_LEVEL);
    }
}
