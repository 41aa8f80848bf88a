package dev.flushline.sstable.bti;

import dev.flushline.sstable.CorruptSSTableException;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Walks one on-disk trie ({@link TrieNodeLayout}) held whole in memory: checked access to its
 * nodes, the descent to the first payload under a node, and the in-order iteration of its payload
 * nodes with the transition bytes that lead to each. Every node is checked to lie within the
 * trie's bytes before it is decoded, and every transition to point back (a lower position, as a
 * trie written children first has), so a corrupt file cannot send a walk outside the array or
 * round a cycle: it throws {@link CorruptSSTableException} naming the file and the node's offset.
 *
 * <p>In order means: a node's payload before its children, children by increasing transition
 * byte. That is the order of the keys the trie maps (byte-comparable order).
 *
 * <p>Memory: the iteration's stack and path grow to the trie's depth once and are reused by each
 * {@link #start}; nothing is allocated per node.
 *
 * <p>Thread safety: none; one walker per thread.
 */
public final class TrieReader {
    /** No node: the end of an iteration, an absent transition. */
    public static final long NONE = -1;

    private final Path file;
    private final byte[] bytes;
    /** Nodes lie in [floor, limit): the trie's bytes (one partition's, for a row index). */
    private int floor;
    private int limit;

    // The iteration: nodes on the path from the root, the slot last taken at each, the bytes taken.
    private int[] stackNodes = new int[32];
    private int[] stackSlots = new int[32];
    private byte[] path = new byte[32];
    private int depth = -1;
    private boolean rootPending;

    /** A walker of the trie nodes in {@code bytes[0, limit)}, which are {@code file}'s bytes from offset 0. */
    public TrieReader(Path file, byte[] bytes, int limit) {
        this.file = file;
        this.bytes = bytes;
        this.limit = limit;
    }

    /** Narrows the nodes to {@code bytes[floor, limit)}: one of several tries in a file (Rows.db). */
    public void bounds(int floor, int limit) {
        if (floor < 0 || floor > limit || limit > bytes.length) throw new IllegalArgumentException(floor + ".." + limit);
        this.floor = floor;
        this.limit = limit;
    }

    public int limit() { return limit; }

    public Path file() { return file; }

    public byte[] bytes() { return bytes; }

    CorruptSSTableException corrupt(long offset, String reason) {
        return new CorruptSSTableException(file, offset, reason);
    }

    /** The node at {@code position}, checked to lie whole within the trie's bytes. */
    public int node(long position) {
        if (position < floor || position >= limit) {
            throw corrupt(Math.max(0, Math.min(position, limit)), "trie node position " + position + " is outside the trie's bytes ["
                    + floor + ", " + limit + ")");
        }
        int node = (int) position;
        int type = TrieNodeLayout.type(bytes, node);
        if (node + TrieNodeLayout.fixedPrefixBytes(type) > limit || TrieNodeLayout.payloadOffset(bytes, node) > limit) {
            throw corrupt(node, "trie node " + TrieNodeLayout.name(type) + " runs past the trie's end at " + limit);
        }
        if (TrieNodeLayout.isSparse(type) && TrieNodeLayout.slots(bytes, node) == 0) {
            throw corrupt(node, "sparse trie node with no transitions");
        }
        return node;
    }

    public int payloadFlags(int node) {
        return TrieNodeLayout.payloadFlags(bytes, node);
    }

    public int payloadOffset(int node) {
        return TrieNodeLayout.payloadOffset(bytes, node);
    }

    public int slots(int node) {
        return TrieNodeLayout.slots(bytes, node);
    }

    public int transitionByte(int node, int slot) {
        return TrieNodeLayout.transitionByte(bytes, node, slot);
    }

    public int search(int node, int value) {
        return TrieNodeLayout.search(bytes, node, value);
    }

    /** The position of slot {@code slot}'s target, or {@link #NONE} for an empty dense slot. */
    public long child(int node, int slot) {
        long delta = TrieNodeLayout.delta(bytes, node, slot);
        if (delta == 0) {
            if (TrieNodeLayout.isDense(TrieNodeLayout.type(bytes, node))) return NONE;
            throw corrupt(node, "trie transition " + slot + " points at its own node");
        }
        if (delta < 0 || delta > node) {
            throw corrupt(node, "trie transition " + slot + " points " + Long.toUnsignedString(delta) + " bytes back, before the file");
        }
        return node - delta;
    }

    /** The first slot at or after {@code slot} that has a target, or -1. */
    public int nextSlotWithChild(int node, int slot) {
        int n = slots(node);
        for (int s = Math.max(0, slot); s < n; s++) {
            if (child(node, s) != NONE) return s;
        }
        return -1;
    }

    /** The first node with a payload in in-order below (or at) {@code position}, or {@link #NONE} if there is none. */
    public long firstPayloadAtOrBelow(long position) {
        int node = node(position);
        while (true) {
            if (payloadFlags(node) != 0) return node;
            int slot = nextSlotWithChild(node, 0);
            if (slot < 0) return NONE;
            node = node(child(node, slot));
        }
    }

    // ---- in-order iteration --------------------------------------------------------------------

    /** Starts an in-order iteration of the payload nodes under (and at) {@code root}. */
    public void start(long root) {
        int node = node(root);
        depth = 0;
        stackNodes[0] = node;
        stackSlots[0] = -1;
        rootPending = payloadFlags(node) != 0;
    }

    /**
     * The next payload node in order, or {@link #NONE} after the last. {@link #pathLength()} bytes
     * of {@link #path()} are then the transition bytes from the root to it.
     */
    public long nextPayload() {
        if (rootPending) {
            rootPending = false;
            return stackNodes[0];
        }
        while (depth >= 0) {
            int node = stackNodes[depth];
            int slot = nextSlotWithChild(node, stackSlots[depth] + 1);
            if (slot < 0) {
                depth--;
                continue;
            }
            stackSlots[depth] = slot;
            int child = node(child(node, slot));
            push(child, transitionByte(node, slot));
            if (payloadFlags(child) != 0) return child;
        }
        return NONE;
    }

    private void push(int node, int transition) {
        int d = depth + 1;
        if (d == stackNodes.length) {
            stackNodes = Arrays.copyOf(stackNodes, d * 2);
            stackSlots = Arrays.copyOf(stackSlots, d * 2);
            path = Arrays.copyOf(path, d * 2);
        }
        path[depth] = (byte) transition;
        stackNodes[d] = node;
        stackSlots[d] = -1;
        depth = d;
    }

    /** The transition bytes from the root to the node {@link #nextPayload} returned last. */
    public byte[] path() { return path; }

    public int pathLength() { return depth; }
}
