package dev.flushline.sstable.bti;

import dev.flushline.io.SyncedFileOutput;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Writes one on-disk trie ({@link TrieNodeLayout}) at a time from keys given in increasing order,
 * page-aware, producing the same bytes as Cassandra 5.0's incremental trie writer for the same
 * keys, payloads and start position: Partitions.db and each partition's row index in Rows.db are
 * such tries, and their bytes must match the files Cassandra writes.
 *
 * <p><b>Post-order.</b> A node is written after all its children, so every transition points
 * back to a lower position and a node's type can be picked from its largest backward distance.
 * Only the path of the last key added is open (it may still get children); every node off it is
 * complete. A completed node is not written at once: it waits, with its unwritten branch, until
 * that branch is too big for a page or its parent needs the room.
 *
 * <p><b>Pages.</b> Each node tracks the bytes of its unwritten branch ({@code branchBytes}, its
 * descendants) and of itself ({@code nodeBytes}, payload included). When a node completes and the
 * two together reach {@link TrieNodeLayout#PAGE_BYTES}, its unwritten children are laid out:
 * repeatedly the largest child branch that fits in what is left of the current page is written
 * there whole (ties: the highest transition byte); when none fits, the file is padded with zeros
 * to the next page boundary and the largest is written. A child branch that turns out bigger than
 * a whole page has its own children laid out first. So a branch smaller than a page is never
 * split across a page boundary, and a lookup that enters it reads one page. At {@link #complete()}
 * the root and what is left of the trie go into the current page if they fit, else into a fresh
 * page if they fit in one, else the root's children are laid out as above.
 *
 * <p><b>Estimates.</b> A node with children already written (out of page) is sized against the
 * position it would have now; its size (and its ancestors' branch sizes) are recomputed against
 * the real position just before its branch is placed, and that recomputation may move it to a
 * fresh page or make it split. The exact order of these estimates and recomputations decides the
 * bytes, so it follows Cassandra's writer step for step; the tests compare the bytes.
 *
 * <p><b>Storage.</b> Nodes live in slots of reused arrays; a node's child arrays come from idle
 * ones of their size class and go back when it is written (a slot's payload array grows and is
 * kept); a written node's slot is freed at once and its position kept in its parent's child entry. The walks over branches (re-sizing, writing, laying out) use explicit
 * stacks, so keys thousands of bytes long do not recurse on the Java stack. In steady state
 * {@link #add} allocates nothing; {@link #reset()} keeps the grown storage, and {@link #release()}
 * hands it to a small process-wide pool that the next writer takes it from: a trie of a few
 * hundred thousand keys holds thousands of nodes back until their pages fill, and growing their
 * slots again for every sstable would cost each flush megabytes.
 *
 * <p>Invariants: the open path is {@code open[0, openDepth)}, root first, and its transition
 * bytes are the last key; a completed unwritten node's branch and its own size together were
 * below a page when it completed, or it has no unwritten children; a child entry is either a live
 * slot or a written position, never both; positions written only grow.
 *
 * <p>Thread safety: none; one thread. REQUIRES: nothing else writes to the output between the
 * first {@link #add} of a trie and its {@link #complete()} (nodes are placed at the output's
 * positions as they go).
 */
public final class TrieWriter {
    private static final int PAGE = TrieNodeLayout.PAGE_BYTES;
    private static final byte[] ZERO_PAGE = new byte[PAGE];
    private static final int NO_SLOT = -1;
    private static final long NOT_WRITTEN = -1;
    private static final int INITIAL_CHILDREN = 4;
    /** Size classes of child arrays: 4, 8, ..., 256 entries. */
    private static final int CHILD_CLASSES = Integer.numberOfTrailingZeros(TrieNodeLayout.MAX_TRANSITIONS / INITIAL_CHILDREN) + 1;
    private static final byte[] NO_BYTES = new byte[0];
    private static final int[] NO_INTS = new int[0];
    private static final long[] NO_LONGS = new long[0];
    /**
     * Slot storage kept for the next writer only up to this many slots (about 20 MiB when every slot
     * holds a node): a trie that held more back should not pin its storage for the life of the
     * process. Partitions.db tries of short cut keys hold the most: while each of the root's
     * children's branches is under a page, no node is written before the end, which for random tokens
     * is the case from a few thousand to about a hundred thousand partitions (up to about 260,000
     * nodes); a larger key count writes each child's branch as it completes (the bench's 260,000
     * partitions hold about 4,000 at once).
     */
    static final int MAX_POOLED_SLOTS = 1 << 18;
    /**
     * Idle slot storage: one for each of two sstable writers at once (a flush and a compaction, say).
     * A writer takes the largest (Partitions.db's trie is made first, and holds the most; Rows.db's
     * trie, which holds a partition's few blocks, then grows a small one); a full pool keeps the
     * largest it is offered, so storage grown by a big trie is not pushed out by small ones. Entries
     * are claimed and filled with compare-and-set, so any thread may take or give, and an entry is
     * held by one writer at a time; the set that gives an entry happens-before the compare-and-set that
     * takes it, so the taker sees every array as the giver left it.
     */
    private static final AtomicReferenceArray<SlotStorage> IDLE = new AtomicReferenceArray<>(2);
    /** Bytes of a key shown in a message before it is cut short. */
    private static final int KEY_HEX_LIMIT = 256;

    private final SyncedFileOutput out;

    // ---- node slots: one per unwritten node, reused ------------------------------------------
    /** The holder the slot arrays below go back into on release; null once released. */
    private SlotStorage storage;
    private int slotCapacity;
    /** Slots in [0, freshSlots) have been handed out since the last reset; freed ones are in freeSlots. */
    private int freshSlots;
    private int[] freeSlots = new int[0];
    private int freeCount;
    private int[] childCount = new int[0];
    /** Per slot: transition byte of each child, increasing. */
    private byte[][] childByte = new byte[0][];
    /** Per slot: the child's slot while it is unwritten, else {@link #NO_SLOT}. */
    private int[][] childSlot = new int[0][];
    /** Per slot: the child's position once written, else {@link #NOT_WRITTEN}. */
    private long[][] childPosition = new long[0][];
    /** Bytes of the node's unwritten descendants as last estimated. */
    private int[] branchBytes = new int[0];
    /** Bytes of the node itself, payload included, as last estimated. */
    private int[] nodeBytes = new int[0];
    /** A child is already written (so the node's size depends on where it goes). New nodes start true, as Cassandra's. */
    private boolean[] outOfPageChildren = new boolean[0];
    /** An unwritten descendant below the children has a written child (so the branch's size depends on where it goes). */
    private boolean[] outOfPageInBranch = new boolean[0];
    private int[] payloadFlags = new int[0];
    private byte[][] payload = new byte[0][];
    private int[] payloadLength = new int[0];
    /**
     * Child arrays no slot holds, by size class (class c: {@code INITIAL_CHILDREN << c} entries, up to
     * {@link TrieNodeLayout#MAX_TRANSITIONS}); each class is a stack of the three parallel arrays.
     */
    private byte[][][] idleBytes = new byte[CHILD_CLASSES][0][];
    private int[][][] idleSlots = new int[CHILD_CLASSES][0][];
    private long[][][] idlePositions = new long[CHILD_CLASSES][0][];
    private int[] idleCount = new int[CHILD_CLASSES];

    // ---- the open path (the last key) ----------------------------------------------------------
    private int[] open = new int[64];
    private int openDepth;
    private byte[] openPath = new byte[64];
    private boolean hasKey;
    private long count;
    private long rootPosition = NOT_WRITTEN;

    // ---- explicit stacks of the walks ----------------------------------------------------------
    private int[] walkSlot = new int[64];
    private int[] walkNext = new int[64];
    private long[] walkStart = new long[64];
    private int[] walkSum = new int[64];
    private int[] laySlot = new int[16];
    private int[] layBytesLeft = new int[16];
    /** The child a frame is waiting on (laid out by the frame above it), else -1. */
    private int[] layWaiting = new int[16];
    /**
     * Per frame: its node's unwritten children as candidate keys ({@link #candidateKey}), increasing,
     * in [0, layCandidateCount[d]); arrays of {@link TrieNodeLayout#MAX_TRANSITIONS}, made when a
     * frame first reaches that depth and reused.
     */
    private long[][] layCandidates = new long[16][];
    private int[] layCandidateCount = new int[16];

    // ---- serialization scratch -----------------------------------------------------------------
    /**
     * The nodes of the branch being written, serialized here and handed to the output once per
     * branch (or when full) rather than once per node: most nodes are leaves of a few bytes, and a
     * write per node cost more than the node. {@code branchOut[0]} goes at file position
     * {@code branchOutStart}. Sized for the largest node (256 wide pointers and a payload), as the
     * one-node scratch it replaces was, so a writer allocates no more than before: a page of small
     * nodes goes out in a few writes.
     */
    private byte[] branchOut = new byte[3 + 8 * TrieNodeLayout.MAX_TRANSITIONS + 64];
    private int branchOutLength;
    private long branchOutStart;
    private final long[] deltaScratch = new long[TrieNodeLayout.MAX_TRANSITIONS];

    /** Writes nodes to out, at out's current position (absolute file positions matter: pages are 4096-byte aligned in the file). */
    public TrieWriter(SyncedFileOutput out) {
        this.out = out;
        SlotStorage pooled = takeLargest();
        if (pooled != null) {
            adopt(pooled);
        } else {
            storage = new SlotStorage();
            growSlots(64);
        }
        reset();
    }

    /**
     * Gives the slot storage back to the pool for the next writer (when it is not too large to keep);
     * the writer is unusable afterwards. Idempotent, so both a finish and a later abort may call it.
     * Thread safety: after release the storage belongs to whichever writer takes it next; this writer's
     * fields still name its arrays, but add, complete and reset refuse to run, so it never touches them again.
     */
    public void release() {
        if (storage == null) return;
        SlotStorage s = storage;
        storage = null;
        s.capacity = slotCapacity;
        s.freeSlots = freeSlots;
        s.childCount = childCount;
        s.childByte = childByte;
        s.childSlot = childSlot;
        s.childPosition = childPosition;
        s.branchBytes = branchBytes;
        s.nodeBytes = nodeBytes;
        s.outOfPageChildren = outOfPageChildren;
        s.outOfPageInBranch = outOfPageInBranch;
        s.payloadFlags = payloadFlags;
        s.payload = payload;
        s.payloadLength = payloadLength;
        s.idleBytes = idleBytes;
        s.idleSlots = idleSlots;
        s.idlePositions = idlePositions;
        s.idleCount = idleCount;
        if (s.capacity <= MAX_POOLED_SLOTS) give(s);
    }

    private static SlotStorage takeLargest() {
        while (true) {
            int best = -1;
            SlotStorage largest = null;
            for (int i = 0; i < IDLE.length(); i++) {
                SlotStorage s = IDLE.get(i);
                if (s != null && (largest == null || s.capacity > largest.capacity)) {
                    largest = s;
                    best = i;
                }
            }
            if (largest == null) return null;
            if (IDLE.compareAndSet(best, largest, null)) return largest;
            // another thread took or replaced it meanwhile: look again
        }
    }

    private static void give(SlotStorage s) {
        while (true) {
            int smallest = -1;
            SlotStorage smallestStorage = null;
            for (int i = 0; i < IDLE.length(); i++) {
                SlotStorage idle = IDLE.get(i);
                if (idle == null) {
                    if (IDLE.compareAndSet(i, null, s)) return;
                    continue;
                }
                if (smallestStorage == null || idle.capacity < smallestStorage.capacity) {
                    smallestStorage = idle;
                    smallest = i;
                }
            }
            if (smallestStorage == null) continue; // every slot emptied under us: try the empty ones again
            if (smallestStorage.capacity >= s.capacity) return; // the pool holds larger ones: drop this
            if (IDLE.compareAndSet(smallest, smallestStorage, s)) return; // the smaller one goes to the GC
        }
    }

    private void adopt(SlotStorage s) {
        storage = s;
        slotCapacity = s.capacity;
        freeSlots = s.freeSlots;
        childCount = s.childCount;
        childByte = s.childByte;
        childSlot = s.childSlot;
        childPosition = s.childPosition;
        branchBytes = s.branchBytes;
        nodeBytes = s.nodeBytes;
        outOfPageChildren = s.outOfPageChildren;
        outOfPageInBranch = s.outOfPageInBranch;
        payloadFlags = s.payloadFlags;
        payload = s.payload;
        payloadLength = s.payloadLength;
        idleBytes = s.idleBytes;
        idleSlots = s.idleSlots;
        idlePositions = s.idlePositions;
        idleCount = s.idleCount;
    }

    private void checkNotReleased() {
        if (storage == null) throw new IllegalStateException("trie writer used after release()");
    }

    /**
     * Adds key[0,keyLength) with a payload: payloadFlags (1..15, the low nibble of the node's header byte)
     * and payload bytes payload[0,payloadLength), copied (the caller reuses its arrays).
     * Keys come in strictly increasing unsigned-lexicographic order; a key may be a prefix of the next
     * (then the shorter key's node carries the payload and has children). The empty key is allowed
     * (first, as the root's payload). Anything else out of order: IllegalArgumentException naming both keys in hex.
     */
    public void add(byte[] key, int keyLength, int payloadFlags, byte[] payload, int payloadLength) throws IOException {
        checkNotReleased();
        if (keyLength < 0 || keyLength > key.length) {
            throw new IllegalArgumentException("key length " + keyLength + " outside the key array of " + key.length + " bytes");
        }
        if (payloadFlags < 1 || payloadFlags > TrieNodeLayout.PAYLOAD_FLAGS_MASK) {
            throw new IllegalArgumentException("payload flags " + payloadFlags + " of key " + hex(key, keyLength)
                    + " outside 1..15 (0 would mean no payload)");
        }
        if (payloadLength < 0 || (payloadLength > 0 && (payload == null || payloadLength > payload.length))) {
            throw new IllegalArgumentException("payload length " + payloadLength + " outside the payload array of key "
                    + hex(key, keyLength));
        }
        if (rootPosition != NOT_WRITTEN) {
            throw new IllegalStateException("the trie was completed at " + rootPosition + "; reset() before adding " + hex(key, keyLength));
        }
        int common = 0;
        if (hasKey) {
            int previousLength = openDepth - 1;
            int limit = Math.min(previousLength, keyLength);
            byte[] previous = openPath;
            while (common < limit && previous[common] == key[common]) common++;
            if (common == keyLength || (common < previousLength && (key[common] & 0xFF) < (previous[common] & 0xFF))) {
                throw outOfOrder(key, keyLength, common);
            }
        }
        while (openDepth > common + 1) completeNode(open[--openDepth]);

        int node = open[openDepth - 1];
        for (int i = common; i < keyLength; i++) {
            int child = allocateSlot();
            appendChild(node, key[i], child);
            if (openDepth == open.length) {
                open = Arrays.copyOf(open, openDepth * 2);
                openPath = Arrays.copyOf(openPath, openDepth * 2);
            }
            openPath[openDepth - 1] = key[i];
            open[openDepth++] = child;
            node = child;
        }
        this.payloadFlags[node] = payloadFlags;
        byte[] p = this.payload[node];
        if (p.length < payloadLength) p = this.payload[node] = new byte[Math.max(Math.max(payloadLength, 16), 2 * p.length)];
        if (payloadLength > 0) System.arraycopy(payload, 0, p, 0, payloadLength);
        this.payloadLength[node] = payloadLength;
        hasKey = true;
        count++;
    }

    /** Writes every node not yet written and returns the root's position. */
    public long complete() throws IOException {
        if (rootPosition != NOT_WRITTEN) return rootPosition;
        checkNotReleased();
        while (openDepth > 0) completeNode(open[--openDepth]);
        int root = open[0];

        int size = resize(root, out.position());
        int bytesLeft = bytesLeftInPage();
        if (size > bytesLeft) {
            if (size <= PAGE) {
                padToPage();
                bytesLeft = PAGE;
                size = resize(root, out.position());
            }
            if (size > bytesLeft) {
                layOutChildren(root);
                if (nodeBytes[root] > bytesLeftInPage()) {
                    padToPage();
                    resize(root, out.position()); // the root's pointers may need other widths from the new page
                }
            }
        }
        rootPosition = writeBranch(root);
        freeSlot(root);
        return rootPosition;
    }

    /** Forgets everything (after complete(), or to drop a partial trie) so the object serves the next trie in the same file. */
    public void reset() {
        checkNotReleased();
        freeCount = 0;
        freshSlots = 0;
        hasKey = false;
        count = 0;
        rootPosition = NOT_WRITTEN;
        open[0] = allocateSlot();
        openDepth = 1;
    }

    /** Keys added since the last reset. */
    public long count() {
        return count;
    }

    // ---- completing and laying out ---------------------------------------------------------------

    /** A node leaves the open path: its branch waits for its parent if it fits in a page with it, else its children are written. */
    private void completeNode(int node) throws IOException {
        int n = childCount[node];
        int[] slots = childSlot[node];
        int branch = 0;
        boolean writtenChild = false, outOfPageBelow = false;
        for (int k = 0; k < n; k++) {
            int c = slots[k];
            if (c == NO_SLOT) {
                writtenChild = true;
            } else {
                branch += branchBytes[c] + nodeBytes[c];
                if (outOfPageChildren[c] || outOfPageInBranch[c]) outOfPageBelow = true;
            }
        }
        branchBytes[node] = branch;
        int size = sizeOf(node, out.position());
        if (size + branch < PAGE) {
            nodeBytes[node] = size;
            outOfPageChildren[node] = writtenChild;
            outOfPageInBranch[node] = outOfPageBelow;
            return;
        }
        layOutChildren(node);
    }

    /**
     * Writes every unwritten child branch of {@code top}, page by page as the class comment says, then
     * re-sizes {@code top} (now without a branch) against the current position. A child branch bigger
     * than a page is itself laid out first: a frame on the layout stack, not a Java call.
     *
     * <p>Each frame keeps its node's unwritten children sorted by size (then transition byte), so
     * picking the largest that fits is a binary search rather than a scan of every child: a node of
     * 256 children would otherwise cost 256 scans of 256. A sibling's size changes only when it is
     * re-sized here or its own children are laid out above, and its key moves with it then.
     */
    private void layOutChildren(int top) throws IOException {
        int d = 0;
        pushLayout(0, top);
        while (true) {
            int node = laySlot[d];
            long[] candidates = layCandidates[d];
            int waiting = layWaiting[d];
            if (waiting >= 0) {
                // Back from laying out that child's children: it is smaller now; pick again from here.
                layWaiting[d] = -1;
                int child = childSlot[node][waiting];
                moveCandidate(d, waiting, candidateKey(branchBytes[child] + nodeBytes[child], waiting));
                layBytesLeft[d] = bytesLeftInPage();
                continue;
            }
            int count = layCandidateCount[d];
            if (count == 0) {
                branchBytes[node] = 0;
                outOfPageChildren[node] = true;
                outOfPageInBranch[node] = false;
                nodeBytes[node] = sizeOf(node, out.position());
                if (d == 0) return;
                d--;
                continue;
            }
            int bytesLeft = layBytesLeft[d];
            int at = largestFitting(candidates, count, bytesLeft);
            if (at < 0) {
                padToPage();
                bytesLeft = PAGE;
                layBytesLeft[d] = PAGE;
                at = count - 1;
            }
            int k = candidateIndex(candidates[at]);
            int child = childSlot[node][k];
            if (outOfPageChildren[child] || outOfPageInBranch[child]) {
                // Its size was an estimate; now that its place is known, size it again.
                int size = resize(child, out.position());
                if (size > bytesLeft) {
                    moveCandidate(d, k, candidateKey(size, k));
                    if (bytesLeft == PAGE) {
                        layWaiting[d] = k;
                        pushLayout(++d, child);
                    }
                    // Else it may fit a fresh page: it stays among the candidates with its new size.
                    continue;
                }
            }
            removeCandidate(d, at);
            long position = writeBranch(child);
            childPosition[node][k] = position;
            childSlot[node][k] = NO_SLOT;
            freeSlot(child);
            layBytesLeft[d] = bytesLeftInPage();
        }
    }

    private void pushLayout(int d, int node) {
        if (d == laySlot.length) {
            laySlot = Arrays.copyOf(laySlot, d * 2);
            layBytesLeft = Arrays.copyOf(layBytesLeft, d * 2);
            layWaiting = Arrays.copyOf(layWaiting, d * 2);
            layCandidates = Arrays.copyOf(layCandidates, d * 2);
            layCandidateCount = Arrays.copyOf(layCandidateCount, d * 2);
        }
        laySlot[d] = node;
        layBytesLeft[d] = bytesLeftInPage();
        layWaiting[d] = -1;
        long[] candidates = layCandidates[d];
        if (candidates == null) candidates = layCandidates[d] = new long[TrieNodeLayout.MAX_TRANSITIONS];
        int n = childCount[node];
        int[] slots = childSlot[node];
        int count = 0;
        for (int k = 0; k < n; k++) {
            int c = slots[k];
            if (c != NO_SLOT) candidates[count++] = candidateKey(branchBytes[c] + nodeBytes[c], k);
        }
        Arrays.sort(candidates, 0, count);
        layCandidateCount[d] = count;
    }

    /**
     * A child's place among its frame's candidates: its branch and node bytes, then its index (so of
     * equal sizes the highest transition byte sorts last, and is the one picked: the most recently
     * completed, which may have its own children nearest). Indexes are below 256.
     */
    private static long candidateKey(int size, int index) {
        return ((long) size << 8) | index;
    }

    private static int candidateIndex(long key) {
        return (int) key & 0xFF;
    }

    /** Where in {@code keys[0, count)} (increasing) the largest candidate of at most {@code limit} bytes is; -1 if none. */
    private static int largestFitting(long[] keys, int count, int limit) {
        long bound = candidateKey(limit, 0xFF);
        int lo = 0, hi = count; // the answer is lo - 1: keys[< lo] <= bound < keys[>= hi]
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keys[mid] <= bound) lo = mid + 1;
            else hi = mid;
        }
        return lo - 1;
    }

    private void removeCandidate(int d, int at) {
        long[] keys = layCandidates[d];
        int count = layCandidateCount[d] - 1;
        System.arraycopy(keys, at + 1, keys, at, count - at);
        layCandidateCount[d] = count;
    }

    /** Gives child {@code index} of frame {@code d} the candidate key {@code key} in place of its old one. */
    private void moveCandidate(int d, int index, long key) {
        long[] keys = layCandidates[d];
        int count = layCandidateCount[d];
        int at = 0;
        while (candidateIndex(keys[at]) != index) at++; // present: only written children leave
        System.arraycopy(keys, at + 1, keys, at, count - 1 - at);
        count--;
        int to = 0; // linear, as the search for the old key: a re-sized child is the rare case
        while (to < count && keys[to] < key) to++;
        System.arraycopy(keys, to, keys, to + 1, count - to);
        keys[to] = key;
        layCandidateCount[d] = count + 1;
    }

    /**
     * Re-sizes the unwritten branch of {@code top} as if it started at {@code start}: the branches
     * with out-of-page nodes are walked again and those nodes sized at their would-be positions.
     * Returns the branch's bytes with the node's own.
     */
    private int resize(int top, long start) {
        if (!outOfPageInBranch[top]) {
            if (outOfPageChildren[top]) nodeBytes[top] = sizeOf(top, start + branchBytes[top]);
            return branchBytes[top] + nodeBytes[top];
        }
        int d = 0;
        pushWalk(0, top, start);
        while (true) {
            int node = walkSlot[d];
            int k = walkNext[d];
            if (k < childCount[node]) {
                walkNext[d] = k + 1;
                int c = childSlot[node][k];
                if (c == NO_SLOT) continue; // written: no bytes here
                long at = walkStart[d] + walkSum[d];
                if (outOfPageInBranch[c]) {
                    pushWalk(++d, c, at);
                    continue;
                }
                if (outOfPageChildren[c]) nodeBytes[c] = sizeOf(c, at + branchBytes[c]);
                walkSum[d] += branchBytes[c] + nodeBytes[c];
                continue;
            }
            int branch = walkSum[d];
            branchBytes[node] = branch;
            nodeBytes[node] = sizeOf(node, walkStart[d] + branch);
            int total = branch + nodeBytes[node];
            if (d == 0) return total;
            d--;
            walkSum[d] += total;
        }
    }

    /**
     * Writes the unwritten branch of {@code top} and then {@code top}, children first, from the
     * current position; frees the slots of the descendants written and returns {@code top}'s position.
     */
    private long writeBranch(int top) throws IOException {
        branchOutStart = out.position();
        branchOutLength = 0;
        int d = 0;
        pushWalk(0, top, branchOutStart);
        while (true) {
            int node = walkSlot[d];
            int n = childCount[node];
            int[] slots = childSlot[node];
            int k = walkNext[d];
            while (k < n && slots[k] == NO_SLOT) k++;
            if (k < n) {
                walkNext[d] = k + 1;
                pushWalk(++d, slots[k], branchOutStart + branchOutLength);
                continue;
            }
            long position = walkStart[d] + branchBytes[node];
            if (branchOutStart + branchOutLength != position) {
                throw new IllegalStateException("trie node expected at " + position + " after its branch, but the branch ended at "
                        + (branchOutStart + branchOutLength) + " (" + n + " transitions, branch estimate " + branchBytes[node] + " bytes)");
            }
            writeNode(node, position);
            if (d == 0) {
                flushBranchOut();
                return position;
            }
            d--;
            int parent = walkSlot[d];
            int index = walkNext[d] - 1;
            childPosition[parent][index] = position;
            childSlot[parent][index] = NO_SLOT;
            freeSlot(node);
        }
    }

    private void pushWalk(int d, int node, long start) {
        if (d == walkSlot.length) {
            walkSlot = Arrays.copyOf(walkSlot, d * 2);
            walkNext = Arrays.copyOf(walkNext, d * 2);
            walkStart = Arrays.copyOf(walkStart, d * 2);
            walkSum = Arrays.copyOf(walkSum, d * 2);
        }
        walkSlot[d] = node;
        walkNext[d] = 0;
        walkStart[d] = start;
        walkSum[d] = 0;
    }

    // ---- one node --------------------------------------------------------------------------------

    /**
     * The node's bytes, payload included, if it were at {@code position}. Its farthest child is the
     * first unwritten one (at the start of the node's branch) or a written one, whichever is
     * farther; with no child written (as {@link #completeNode} found) only the first counts.
     */
    private int sizeOf(int node, long position) {
        int n = childCount[node];
        long maxDelta = 0;
        if (n > 0) {
            int[] slots = childSlot[node];
            if (!outOfPageChildren[node]) {
                if (slots[0] == NO_SLOT) {
                    throw new IllegalStateException("trie node sized as having no written child, but its first child is written");
                }
                maxDelta = branchBytes[node] - branchBytes[slots[0]];
            } else {
                long[] positions = childPosition[node];
                boolean unwrittenSeen = false;
                for (int k = 0; k < n; k++) {
                    int c = slots[k];
                    if (c == NO_SLOT) {
                        maxDelta = Math.max(maxDelta, position - positions[k]);
                    } else if (!unwrittenSeen) {
                        unwrittenSeen = true;
                        maxDelta = Math.max(maxDelta, branchBytes[node] - branchBytes[c]);
                    }
                }
            }
        }
        byte[] transitions = childByte[node];
        int first = n == 0 ? 0 : transitions[0] & 0xFF;
        int last = n == 0 ? 0 : transitions[n - 1] & 0xFF;
        boolean hasPayload = payloadFlags[node] != 0;
        int type = TrieNodeLayout.typeFor(n, hasPayload, first, last, maxDelta);
        return TrieNodeLayout.nodeBytes(type, n, first, last) + (hasPayload ? payloadLength[node] : 0);
    }

    /** Hands the branch's serialized nodes to the output. */
    private void flushBranchOut() throws IOException {
        out.write(branchOut, 0, branchOutLength);
        branchOutStart += branchOutLength;
        branchOutLength = 0;
    }

    /** Serializes the node at {@code position} (where the branch has reached), its children all written. */
    private void writeNode(int node, long position) throws IOException {
        int n = childCount[node];
        long[] positions = childPosition[node];
        long[] deltas = deltaScratch;
        long maxDelta = 0;
        for (int k = 0; k < n; k++) {
            long delta = position - positions[k];
            deltas[k] = delta;
            if (delta > maxDelta) maxDelta = delta;
        }
        byte[] transitions = childByte[node];
        int first = n == 0 ? 0 : transitions[0] & 0xFF;
        int last = n == 0 ? 0 : transitions[n - 1] & 0xFF;
        int flags = payloadFlags[node];
        int type = TrieNodeLayout.typeFor(n, flags != 0, first, last, maxDelta);
        int payloadBytes = flags != 0 ? payloadLength[node] : 0;
        int total = TrieNodeLayout.nodeBytes(type, n, first, last) + payloadBytes;
        if (branchOut.length - branchOutLength < total) {
            flushBranchOut();
            if (branchOut.length < total) branchOut = new byte[Math.max(total, 2 * branchOut.length)];
        }
        byte[] b = branchOut;
        int at = branchOutLength;
        int length = TrieNodeLayout.writeNode(b, at, type, flags, n, transitions, deltas);
        System.arraycopy(payload[node], 0, b, at + length, payloadBytes);
        length += payloadBytes;
        if (length != nodeBytes[node]) {
            throw new IllegalStateException("trie node " + TrieNodeLayout.name(type) + " at " + position + " takes " + length
                    + " bytes, sized as " + nodeBytes[node]);
        }
        branchOutLength = at + length;
    }

    private int bytesLeftInPage() {
        return PAGE - (int) (out.position() & (PAGE - 1));
    }

    private void padToPage() throws IOException {
        int pad = (int) (-out.position() & (PAGE - 1));
        if (pad > 0) out.write(ZERO_PAGE, 0, pad);
    }

    // ---- slots -----------------------------------------------------------------------------------

    private int allocateSlot() {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (freshSlots == slotCapacity) growSlots(slotCapacity * 2);
            slot = freshSlots++;
        }
        childCount[slot] = 0;
        branchBytes[slot] = 0;
        nodeBytes[slot] = 0;
        outOfPageChildren[slot] = true;
        outOfPageInBranch[slot] = false;
        payloadFlags[slot] = 0;
        payloadLength[slot] = 0;
        return slot;
    }

    private void freeSlot(int slot) {
        detachChildArrays(slot);
        freeSlots[freeCount++] = slot;
    }

    /** Size class of child arrays of {@code length} entries: {@code length == INITIAL_CHILDREN << class}. */
    private static int sizeClass(int length) {
        return Integer.numberOfTrailingZeros(length / INITIAL_CHILDREN);
    }

    /**
     * Puts the slot's child arrays (if it has any) among the idle ones of their size class and leaves it
     * none. REQUIRES: nothing reads the slot's children afterwards (it was written, or it is taking new arrays).
     */
    private void detachChildArrays(int slot) {
        int length = childSlot[slot].length;
        if (length == 0) return;
        int cls = sizeClass(length);
        int c = idleCount[cls];
        if (c == idleSlots[cls].length) {
            int grown = Math.max(16, 2 * c);
            idleBytes[cls] = Arrays.copyOf(idleBytes[cls], grown);
            idleSlots[cls] = Arrays.copyOf(idleSlots[cls], grown);
            idlePositions[cls] = Arrays.copyOf(idlePositions[cls], grown);
        }
        idleBytes[cls][c] = childByte[slot];
        idleSlots[cls][c] = childSlot[slot];
        idlePositions[cls][c] = childPosition[slot];
        idleCount[cls] = c + 1;
        childByte[slot] = NO_BYTES;
        childSlot[slot] = NO_INTS;
        childPosition[slot] = NO_LONGS;
    }

    private void growSlots(int capacity) {
        int old = slotCapacity;
        freeSlots = Arrays.copyOf(freeSlots, capacity);
        childCount = Arrays.copyOf(childCount, capacity);
        childByte = Arrays.copyOf(childByte, capacity);
        childSlot = Arrays.copyOf(childSlot, capacity);
        childPosition = Arrays.copyOf(childPosition, capacity);
        branchBytes = Arrays.copyOf(branchBytes, capacity);
        nodeBytes = Arrays.copyOf(nodeBytes, capacity);
        outOfPageChildren = Arrays.copyOf(outOfPageChildren, capacity);
        outOfPageInBranch = Arrays.copyOf(outOfPageInBranch, capacity);
        payloadFlags = Arrays.copyOf(payloadFlags, capacity);
        payload = Arrays.copyOf(payload, capacity);
        payloadLength = Arrays.copyOf(payloadLength, capacity);
        // A slot gets child arrays only while a node in it has children (most held nodes are leaves),
        // taken from and given back to the idle arrays of their size class, and a payload array when a
        // node in it first has a payload, which then stays.
        for (int s = old; s < capacity; s++) {
            childByte[s] = NO_BYTES;
            childSlot[s] = NO_INTS;
            childPosition[s] = NO_LONGS;
            payload[s] = NO_BYTES;
        }
        slotCapacity = capacity;
    }

    private void appendChild(int node, byte transition, int child) {
        int n = childCount[node];
        if (n == childSlot[node].length) {
            // Move to arrays of the next size class (from the idle ones when there are any), and give
            // the outgrown ones back: the nodes with many children (near the root) come and go in slots
            // that held leaves before, so growing each slot's own arrays would allocate every sstable.
            int cls = n == 0 ? 0 : sizeClass(n) + 1;
            byte[] bytes;
            int[] slots;
            long[] positions;
            int c = idleCount[cls];
            if (c > 0) {
                idleCount[cls] = --c;
                bytes = idleBytes[cls][c];
                slots = idleSlots[cls][c];
                positions = idlePositions[cls][c];
                idleBytes[cls][c] = null;
                idleSlots[cls][c] = null;
                idlePositions[cls][c] = null;
            } else {
                int length = INITIAL_CHILDREN << cls;
                bytes = new byte[length];
                slots = new int[length];
                positions = new long[length];
            }
            if (n > 0) {
                System.arraycopy(childByte[node], 0, bytes, 0, n);
                System.arraycopy(childSlot[node], 0, slots, 0, n);
                System.arraycopy(childPosition[node], 0, positions, 0, n);
            }
            detachChildArrays(node);
            childByte[node] = bytes;
            childSlot[node] = slots;
            childPosition[node] = positions;
        }
        childByte[node][n] = transition;
        childSlot[node][n] = child;
        childPosition[node][n] = NOT_WRITTEN;
        childCount[node] = n + 1;
    }

    // ---- messages --------------------------------------------------------------------------------

    private IllegalArgumentException outOfOrder(byte[] key, int keyLength, int common) {
        int previousLength = openDepth - 1;
        String how = keyLength == previousLength && common == keyLength ? "equal to" : "not after";
        return new IllegalArgumentException("trie keys must be added in strictly increasing unsigned order: key "
                + hex(key, keyLength) + " is " + how + " the previous key " + hex(openPath, previousLength)
                + " (they first differ at byte " + common + ")");
    }

    private static String hex(byte[] b, int length) {
        int shown = Math.min(length, KEY_HEX_LIMIT);
        StringBuilder s = new StringBuilder(2 * shown + 32);
        s.append("0x");
        for (int i = 0; i < shown; i++) {
            s.append(Character.forDigit((b[i] >>> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        if (shown < length) s.append("... (").append(length).append(" bytes)");
        return s.toString();
    }

    /** The slot arrays of a released writer, waiting in the pool for the next one. */
    private static final class SlotStorage {
        int capacity;
        int[] freeSlots;
        int[] childCount;
        byte[][] childByte;
        int[][] childSlot;
        long[][] childPosition;
        int[] branchBytes;
        int[] nodeBytes;
        boolean[] outOfPageChildren;
        boolean[] outOfPageInBranch;
        int[] payloadFlags;
        byte[][] payload;
        int[] payloadLength;
        byte[][][] idleBytes;
        int[][][] idleSlots;
        long[][][] idlePositions;
        int[] idleCount;
    }
}
