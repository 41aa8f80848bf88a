package dev.flushline.memtable;

import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.Row;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The rows of one memtable partition: a skip list ordered by clustering. A flush walks level 0
 * with {@link Node#next()}, so iteration allocates nothing (unlike a TreeMap or
 * ConcurrentSkipListMap iterator per partition).
 *
 * <p>Thread safety: single writer. REQUIRES: callers of {@link #put} hold the partition's lock;
 * readers hold the same lock, or read after the memtable is sealed (sealing waits for every
 * writer to leave, which orders all writes before the flush's reads).
 *
 * <p>Invariants: level-0 order is strictly increasing by clustering; {@code size} is the number
 * of nodes; node rows are never null.
 */
public final class RowList {
    private static final int MAX_LEVEL = 16;

    /** A row slot. Its row is replaced in place when a later write to the same clustering merges. */
    public static final class Node {
        private final byte[][] clustering;
        private Row row;
        private final Node[] next;

        Node(byte[][] clustering, Row row, int levels) {
            this.clustering = clustering;
            this.row = row;
            this.next = new Node[levels];
        }

        public Row row() { return row; }

        /** The next row in clustering order, or null. */
        public Node next() { return next[0]; }
    }

    private final Node head = new Node(null, null, MAX_LEVEL);
    /**
     * Per-thread scratch for the search path of {@link #put}: a put runs under the partition's
     * monitor and never re-enters, so one array per writer thread serves every partition.
     */
    private static final ThreadLocal<Node[]> UPDATE_SCRATCH = ThreadLocal.withInitial(() -> new Node[MAX_LEVEL]);
    private int level = 1;
    private int size;

    public int size() { return size; }

    /** The first row in clustering order, or null. */
    public Node first() { return head.next[0]; }

    /** The node for this clustering, or null. */
    public Node find(byte[][] clustering, ClusteringComparator comparator) {
        Node x = head;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = x.next[i]) != null) {
                int c = comparator.compare(n.clustering, clustering);
                if (c < 0) x = n;
                else if (c == 0) return n;
                else break;
            }
        }
        return null;
    }

    /**
     * Sets the row for its clustering: replaces an existing node's row, or inserts a node.
     * {@code row} null removes the node. Returns the row that was there before, or null.
     */
    public Row put(byte[][] clustering, Row row, ClusteringComparator comparator) {
        Node[] update = UPDATE_SCRATCH.get();
        Node x = head;
        for (int i = level - 1; i >= 0; i--) {
            Node n;
            while ((n = x.next[i]) != null && comparator.compare(n.clustering, clustering) < 0) {
                x = n;
            }
            update[i] = x;
        }
        Node found = x.next[0];
        if (found != null && comparator.compare(found.clustering, clustering) == 0) {
            Row old = found.row;
            if (row != null) {
                found.row = row;
            } else {
                for (int i = 0; i < found.next.length; i++) {
                    update[i].next[i] = found.next[i];
                }
                size--;
            }
            return old;
        }
        if (row == null) {
            return null;
        }
        int levels = randomLevel();
        if (levels > level) {
            for (int i = level; i < levels; i++) update[i] = head;
            level = levels;
        }
        Node node = new Node(clustering, row, levels);
        for (int i = 0; i < levels; i++) {
            node.next[i] = update[i].next[i];
            update[i].next[i] = node;
        }
        size++;
        return null;
    }

    private static int randomLevel() {
        // p = 1/4 per level: two random bits per level.
        int r = ThreadLocalRandom.current().nextInt();
        int levels = 1 + (Integer.numberOfTrailingZeros(r | (1 << 30)) >>> 1);
        return Math.min(levels, MAX_LEVEL);
    }
}
