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
 * <p>Packed form: a partition whose records arrived in increasing clustering order, in one heap
 * slab or in native memory, has no nodes at all: its records' places are one {@code long[]}
 * ({@link #packedRecord}), with the heap slab beside it ({@link #packedSlab}). Bulk loads, time
 * series and the bench write that way, and a node per row was most of what a fill left for the
 * young collections to copy (40 bytes and one object per row, against 8 bytes in one array per
 * partition), and most of what a flush's walk touched besides the records. The first write that
 * does not append (an older clustering, the last row again, a deletion over rows, a record in
 * another slab) links the packed rows into nodes ({@link #linkPacked}) and the list is a skip list
 * from then on. Rows held as Row objects ({@code unslabbed_heap}) are never packed.
 *
 * <p>Thread safety: single writer. REQUIRES: callers of the mutators hold the partition's lock;
 * readers hold the same lock, or read after the memtable is sealed (sealing waits for every
 * writer to leave, which orders all writes before the flush's reads).
 *
 * <p>Invariants: level-0 order, and packed order, is strictly increasing by clustering; a list is
 * packed or has nodes, never both; {@code size} is the number of packed records or of nodes (the
 * flush walks that many); outside a mutator every node holds a row.
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

        /**
         * Where a row about to be packed gets its record ({@link #packedSlot}): a store fills a node,
         * and this one is never linked, so a packed row allocates no node.
         */
        private final Node slot = new Node(1);

        /** {@link #slot}, emptied. */
        Node packedSlot() {
            slot.row = null;
            slot.slab = null;
            slot.record = 0;
            return slot;
        }

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

        /** The clustering of a packed record, into the buffer {@link #view} uses. */
        ClusteringBuffer view(byte[] slab, long record) {
            return clusteringOf(null, slab, record, view, false);
        }

        private ClusteringBuffer clusteringOf(Node n, ClusteringBuffer into, boolean second) {
            return clusteringOf(n.row, n.slab, n.record, into, second);
        }

        private ClusteringBuffer clusteringOf(Row row, byte[] slab, long record, ClusteringBuffer into, boolean second) {
            if (row != null) return into.wrap(ClusteringBound.CLUSTERING, row.clustering());
            if (slab != null) {
                RowRecord.clusteringView(slab, (int) record, into);
                return into;
            }
            byte[] head = second ? (targetBytes = copyHead(record, targetBytes)) : (viewBytes = copyHead(record, viewBytes));
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
    /** Rows held, packed or linked. */
    private int size;
    /**
     * Packed form: the places of the records, in clustering order, in {@code [0, size)}; null when
     * the list is linked (or empty and not yet packed). While non-null, there are no nodes.
     */
    private long[] packed;
    /** Packed heap records: the slab that holds all of them; null for native records. */
    private byte[] packedSlab;

    /** A packed row's share of the heap: its 8-byte place, and the slack of an array grown by doubling. */
    static final long PACKED_ROW_HEAP_BYTES = 12;

    RowList() {}

    public final int size() { return size; }

    /** Whether the rows are packed records ({@link #packedRecord}) rather than linked nodes. */
    public final boolean isPacked() { return packed != null; }

    /** Packed heap records: the slab holding them; null for native records. REQUIRES: {@link #isPacked}. */
    public final byte[] packedSlab() { return packedSlab; }

    /**
     * The place of the {@code i}-th packed row's record: its offset in {@link #packedSlab}, or its
     * native address. REQUIRES: {@link #isPacked}, {@code i < size()}.
     */
    public final long packedRecord(int i) { return packed[i]; }

    /**
     * The first row in clustering order, or null. A packed list has no nodes: for it this returns a
     * fresh chain of unlinked nodes over its records (allocates; for tests and checks, as
     * {@link #find} is), and the list itself is left as it is. The flush reads packed rows with
     * {@link #packedRecord}.
     */
    public final Node first() {
        if (packed == null) return first;
        Node head = null, tail = null;
        for (int i = 0; i < size; i++) {
            Node n = new Node(1);
            n.slab = packedSlab;
            n.record = packed[i];
            if (tail == null) head = n; else tail.next0 = n;
            tail = n;
        }
        return head;
    }

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

    /**
     * The node for this clustering, or null. For tests and checks: allocates nothing for a linked
     * list, and for a packed one returns an unlinked node as {@link #first} does.
     */
    public final Node find(byte[][] clustering, ClusteringComparator comparator) {
        Lookup lk = lookup();
        ClusteringBuffer key = lk.probe(clustering);
        if (packed != null) {
            for (Node n = first(); n != null; n = n.next()) if (comparator.compare(lk.view(n), key) == 0) return n;
            return null;
        }
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
        if (packed != null) throw new IllegalStateException("a packed row list must be linked before a node is looked up");
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

    /**
     * Whether the row for {@code lk.probe} can be packed: the list holds no nodes, and the probe is
     * above the last packed row (or the list is empty). REQUIRES: a record allocation mode.
     */
    final boolean appendsPacked(Lookup lk, ClusteringComparator comparator) {
        if (first != null) return false;
        if (size == 0) return true;
        return comparator.compare(lk.view(packedSlab, packed[size - 1]), lk.probe) < 0;
    }

    /**
     * Adds the record a store put in {@code slot} ({@link Lookup#packedSlot}) as the last packed
     * row, or returns false, adding nothing, if it lies in another heap slab than the packed rows
     * (the caller links the list and adds the row as a node). {@code expected}: how many rows the
     * list is about to hold, to size a new array. REQUIRES: {@link #appendsPacked} said so for
     * this row.
     */
    final boolean addPacked(Node slot, int expected) {
        if (size == 0) {
            packed = new long[Math.max(4, expected)];
            packedSlab = slot.slab;
        } else if (slot.slab != packedSlab) {
            return false;
        } else if (size == packed.length) {
            packed = Arrays.copyOf(packed, 2 * size);
        }
        packed[size++] = slot.record;
        return true;
    }

    /**
     * Turns packed rows into linked nodes, in order; returns how many (0 if the list was not packed).
     * Every write that is not a packed append calls this first.
     */
    final int linkPacked() {
        final long[] records = packed;
        if (records == null) return 0;
        final byte[] slab = packedSlab;
        final int n = size;
        packed = null;
        packedSlab = null;
        size = 0;
        for (int i = 0; i < n; i++) {
            Node node = addLast();
            node.slab = slab;
            node.record = records[i];
        }
        return n;
    }

    /**
     * A new node after the last one, holding no row yet. REQUIRES: the list is linked and the row
     * it will hold sorts after every row in it.
     */
    final Node addLast() {
        final Node[] update = lookup().update;
        if (last != null) return append(last, update);
        for (int i = 0; i < level; i++) update[i] = null;
        return link(randomLevel(), update);
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
