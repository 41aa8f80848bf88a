package dev.flushline.sstable.bti;

import java.util.Arrays;

/**
 * The node layouts of the on-disk tries of the BTI format (Partitions.db and each partition's
 * row index in Rows.db): the one place their bytes are drawn and decoded, for the readers here and
 * for a writer to share.
 *
 * <p>A trie is a sequence of nodes written children first (every transition points back, to a
 * lower file position), ending with the root. A node starts with one byte: its type in the high
 * four bits and, for the types that can carry one, four bits of payload flags in the low four. A
 * node with non-zero payload flags has a payload right after its transition data; what the flags
 * and the payload mean is the trie's user's (see {@link PartitionsLayout}, {@link RowsLayout}).
 * Transition targets are stored as positive distances back from the node's own position
 * ({@code child = node - delta}), big-endian, in as few bits as the node's type allows:
 *
 * <pre>
 *  type                      bytes after the type/flags byte                              payload?
 *  0  PAYLOAD_ONLY           (none)                                                       yes
 *  1  SINGLE_NOPAYLOAD_4     byte                 (delta: the low 4 bits of byte 0)       no
 *  2  SINGLE_8               byte delta:u8                                                yes
 *  3  SINGLE_NOPAYLOAD_12    delta_lo:u8 byte     (delta: low 4 bits of byte 0, delta_lo)  no
 *  4  SINGLE_16              byte delta:u16                                               yes
 *  5  SPARSE_8               count:u8 byte[count] delta:u8[count]                         yes
 *  6  SPARSE_12              count:u8 byte[count] delta:12 bits[count], packed            yes
 *  7  SPARSE_16              count:u8 byte[count] delta:u16[count]                        yes
 *  8  SPARSE_24              count:u8 byte[count] delta:u24[count]                        yes
 *  9  SPARSE_40              count:u8 byte[count] delta:u40[count]                        yes
 * 10  DENSE_12               first:u8 (count-1):u8 delta:12 bits[count], packed           yes
 * 11  DENSE_16               first:u8 (count-1):u8 delta:u16[count]                       yes
 * 12  DENSE_24               first:u8 (count-1):u8 delta:u24[count]                       yes
 * 13  DENSE_32               first:u8 (count-1):u8 delta:u32[count]                       yes
 * 14  DENSE_40               first:u8 (count-1):u8 delta:u40[count]                       yes
 * 15  LONG_DENSE             first:u8 (count-1):u8 delta:i64[count]                       yes
 * </pre>
 *
 * <ul>
 *   <li>Sparse nodes list their transition bytes in increasing order, then the deltas in the same
 *       order. Dense nodes have a slot for every byte from {@code first} to
 *       {@code first + count - 1}; delta 0 in a slot means no transition on that byte.</li>
 *   <li>12-bit packing: slot {@code i}'s delta is in the big-endian 16-bit word at
 *       {@code base + 3 * i / 2}, its high 12 bits for an even {@code i} and its low 12 bits for an
 *       odd one; an odd count is padded with 4 zero bits to a whole byte.</li>
 *   <li>A writer picks the type ({@link #typeFor}) from the node's largest delta: it climbs the
 *       ladder of pointer widths 4, 8, 12, 16, 24, 32, 40 and 64 bits to the first rung that holds
 *       it, then takes that rung's type:
 *       <pre>
 *  rung (bits)    4                   8          12                   16         24        32        40        64
 *  one child      SINGLE_NOPAYLOAD_4  SINGLE_8   SINGLE_NOPAYLOAD_12  SINGLE_16  DENSE_24  DENSE_32  DENSE_40  LONG_DENSE
 *  more, sparse   SPARSE_8            SPARSE_8   SPARSE_12            SPARSE_16  SPARSE_24 SPARSE_40 SPARSE_40 LONG_DENSE
 *  more, dense    DENSE_12            DENSE_12   DENSE_12             DENSE_16   DENSE_24  DENSE_32  DENSE_40  LONG_DENSE
 *       </pre>
 *       A single-transition node with a payload on the 4- or 12-bit rung steps up one rung (to a
 *       type that has room for the flags). With more transitions the rung's sparse type is taken
 *       when it is strictly smaller than its dense type, else the dense one (so 256 transitions
 *       are always dense, and the sparse count fits its byte). A node with no transitions is
 *       {@link #PAYLOAD_ONLY}, with or without a payload (an empty trie is one zero byte).</li>
 *   <li>The 12-bit types exist because a page-aware writer ({@link TrieWriter}) keeps most of a
 *       node's children within the same 4 KiB page ({@link #PAGE_BYTES}).</li>
 * </ul>
 *
 * <p>The read methods decode a node at an offset of a byte array. REQUIRES: the node's bytes up to
 * {@link #payloadOffset} lie in the array; {@link TrieReader} checks that before it calls them.
 * The write methods ({@link #typeFor}, {@link #nodeBytes}, {@link #writeNode}) are the same layout
 * in the other direction: a node's type, its size without the payload, and its bytes.
 *
 * <p>Thread safety: stateless.
 */
public final class TrieNodeLayout {
    private TrieNodeLayout() {}

    /** The node type is the high four bits of a node's first byte. */
    public static final int TYPE_SHIFT = 4;
    /** The payload flags are the low four bits of a node's first byte (0: no payload). */
    public static final int PAYLOAD_FLAGS_MASK = 0x0F;
    /** A page-aware writer keeps a node and (where it can) its children in one page of this size. */
    public static final int PAGE_BYTES = 4096;

    public static final int PAYLOAD_ONLY = 0;
    public static final int SINGLE_NOPAYLOAD_4 = 1;
    public static final int SINGLE_8 = 2;
    public static final int SINGLE_NOPAYLOAD_12 = 3;
    public static final int SINGLE_16 = 4;
    public static final int SPARSE_8 = 5;
    public static final int SPARSE_12 = 6;
    public static final int SPARSE_16 = 7;
    public static final int SPARSE_24 = 8;
    public static final int SPARSE_40 = 9;
    public static final int DENSE_12 = 10;
    public static final int DENSE_16 = 11;
    public static final int DENSE_24 = 12;
    public static final int DENSE_32 = 13;
    public static final int DENSE_40 = 14;
    public static final int LONG_DENSE = 15;

    /** A pointer width of less than a byte: {@link #SINGLE_NOPAYLOAD_4} (4 bits) or a 12-bit type. */
    public static final int FRACTIONAL_POINTER = 0;
    /** Bytes per delta of each type, by ordinal ({@link #FRACTIONAL_POINTER} for 4 and 12 bits). */
    private static final int[] POINTER_BYTES = {0, 0, 1, 0, 2, 1, 0, 2, 3, 5, 0, 2, 3, 4, 5, 8};
    /** Bytes of each type's start that say how long the node is (type byte, count or range). */
    private static final int[] FIXED_PREFIX_BYTES = {1, 2, 3, 3, 4, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3};
    /** Names for messages, by ordinal. */
    private static final String[] NAMES = {"PAYLOAD_ONLY", "SINGLE_NOPAYLOAD_4", "SINGLE_8", "SINGLE_NOPAYLOAD_12", "SINGLE_16",
            "SPARSE_8", "SPARSE_12", "SPARSE_16", "SPARSE_24", "SPARSE_40", "DENSE_12", "DENSE_16", "DENSE_24", "DENSE_32",
            "DENSE_40", "LONG_DENSE"};
    /** Largest delta of a 4-bit and a 12-bit pointer. */
    public static final int MAX_DELTA_4 = 0xF, MAX_DELTA_12 = 0xFFF;

    public static int type(byte[] b, int node) {
        return (b[node] & 0xFF) >>> TYPE_SHIFT;
    }

    public static String name(int type) {
        return NAMES[type];
    }

    /** Bytes per delta of {@code type}; {@link #FRACTIONAL_POINTER} for the 4- and 12-bit types. */
    public static int pointerBytes(int type) {
        return POINTER_BYTES[type];
    }

    /** Bytes from the node's start that must be readable before {@link #payloadOffset} can be computed. */
    public static int fixedPrefixBytes(int type) {
        return FIXED_PREFIX_BYTES[type];
    }

    public static boolean isSparse(int type) {
        return type >= SPARSE_8 && type <= SPARSE_40;
    }

    public static boolean isDense(int type) {
        return type >= DENSE_12;
    }

    /** The payload flags; 0 for the types that cannot carry a payload. */
    public static int payloadFlags(byte[] b, int node) {
        int type = type(b, node);
        if (type == SINGLE_NOPAYLOAD_4 || type == SINGLE_NOPAYLOAD_12) return 0;
        return b[node] & PAYLOAD_FLAGS_MASK;
    }

    /** Transition slots of the node: 0, 1, a sparse node's count, or a dense node's range. */
    public static int slots(byte[] b, int node) {
        int type = type(b, node);
        if (type == PAYLOAD_ONLY) return 0;
        if (type <= SINGLE_16) return 1;
        if (isSparse(type)) return b[node + 1] & 0xFF;
        return (b[node + 2] & 0xFF) + 1;
    }

    /** Where the node's payload starts (its first byte past the node's transitions). */
    public static int payloadOffset(byte[] b, int node) {
        int type = type(b, node);
        switch (type) {
            case PAYLOAD_ONLY: return node + 1;
            case SINGLE_NOPAYLOAD_4: return node + 2;
            case SINGLE_8: return node + 3;
            case SINGLE_NOPAYLOAD_12: return node + 3;
            case SINGLE_16: return node + 4;
            case SPARSE_12: {
                int count = b[node + 1] & 0xFF;
                return node + 2 + count + (3 * count + 1) / 2;
            }
            case DENSE_12: {
                int count = (b[node + 2] & 0xFF) + 1;
                return node + 3 + (3 * count + 1) / 2;
            }
            default:
                if (isSparse(type)) {
                    int count = b[node + 1] & 0xFF;
                    return node + 2 + count * (1 + POINTER_BYTES[type]);
                }
                return node + 3 + ((b[node + 2] & 0xFF) + 1) * POINTER_BYTES[type];
        }
    }

    /** The transition byte of slot {@code slot} (0 to {@link #slots} - 1). */
    public static int transitionByte(byte[] b, int node, int slot) {
        int type = type(b, node);
        switch (type) {
            case SINGLE_NOPAYLOAD_4:
            case SINGLE_8:
            case SINGLE_16:
                return b[node + 1] & 0xFF;
            case SINGLE_NOPAYLOAD_12:
                return b[node + 2] & 0xFF;
            default:
                if (isSparse(type)) return b[node + 2 + slot] & 0xFF;
                return (b[node + 1] & 0xFF) + slot;
        }
    }

    /**
     * The distance back from the node to the target of slot {@code slot}: positive, or 0 for an
     * empty dense slot.
     */
    public static long delta(byte[] b, int node, int slot) {
        int type = type(b, node);
        switch (type) {
            case SINGLE_NOPAYLOAD_4: return b[node] & MAX_DELTA_4;
            case SINGLE_8: return b[node + 2] & 0xFF;
            case SINGLE_NOPAYLOAD_12: return ((b[node] & 0x0F) << 8) | (b[node + 1] & 0xFF);
            case SINGLE_16: return unsigned(b, node + 2, 2);
            case SPARSE_12: return twelveBits(b, node + 2 + (b[node + 1] & 0xFF), slot);
            case DENSE_12: return twelveBits(b, node + 3, slot);
            case LONG_DENSE: return unsigned(b, node + 3 + 8 * slot, 8);
            default:
                if (isSparse(type)) {
                    int count = b[node + 1] & 0xFF;
                    int width = POINTER_BYTES[type];
                    return unsigned(b, node + 2 + count + width * slot, width);
                }
                return unsigned(b, node + 3 + POINTER_BYTES[type] * slot, POINTER_BYTES[type]);
        }
    }

    /**
     * The slot whose transition byte is {@code value}, or {@code -(insertion slot) - 1} if there is
     * none: the slots from the insertion slot on hold greater bytes. A dense slot of {@code value}
     * whose delta is 0 counts as absent.
     */
    public static int search(byte[] b, int node, int value) {
        int type = type(b, node);
        if (type == PAYLOAD_ONLY) return -1;
        if (type <= SINGLE_16) {
            int t = transitionByte(b, node, 0);
            return value == t ? 0 : value < t ? -1 : -2;
        }
        if (isSparse(type)) {
            int lo = 0, hi = (b[node + 1] & 0xFF) - 1;
            int base = node + 2;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int t = b[base + mid] & 0xFF;
                if (t < value) lo = mid + 1;
                else if (t > value) hi = mid - 1;
                else return mid;
            }
            return -lo - 1;
        }
        int first = b[node + 1] & 0xFF;
        int slot = value - first;
        if (slot < 0) return -1;
        int count = (b[node + 2] & 0xFF) + 1;
        if (slot >= count) return -count - 1;
        return delta(b, node, slot) != 0 ? slot : -slot - 1;
    }

    // ---- the write side ----------------------------------------------------------------------

    /** Largest delta of each rung of the pointer-width ladder: 4, 8, 12, 16, 24, 32, 40, 64 bits. */
    private static final long[] RUNG_MAX_DELTA = {MAX_DELTA_4, 0xFF, MAX_DELTA_12, 0xFFFF, 0xFF_FFFFL, 0xFFFF_FFFFL,
            0xFF_FFFF_FFFFL, Long.MAX_VALUE};
    private static final int[] RUNG_SINGLE = {SINGLE_NOPAYLOAD_4, SINGLE_8, SINGLE_NOPAYLOAD_12, SINGLE_16, DENSE_24, DENSE_32,
            DENSE_40, LONG_DENSE};
    private static final int[] RUNG_SPARSE = {SPARSE_8, SPARSE_8, SPARSE_12, SPARSE_16, SPARSE_24, SPARSE_40, SPARSE_40,
            LONG_DENSE};
    private static final int[] RUNG_DENSE = {DENSE_12, DENSE_12, DENSE_12, DENSE_16, DENSE_24, DENSE_32, DENSE_40, LONG_DENSE};
    /** The most transitions a node has: one per byte value. */
    public static final int MAX_TRANSITIONS = 256;

    /**
     * The type of a node with {@code childCount} transitions, the lowest {@code firstTransition}
     * and the highest {@code lastTransition}, whose farthest child is {@code maxDelta} bytes back
     * (ignored without transitions), with or without a payload; see the ladder in the class comment.
     */
    public static int typeFor(int childCount, boolean hasPayload, int firstTransition, int lastTransition, long maxDelta) {
        if (childCount == 0) return PAYLOAD_ONLY;
        if (maxDelta <= 0) throw new IllegalArgumentException("a transition must point back: delta " + maxDelta);
        int rung = 0;
        while (maxDelta > RUNG_MAX_DELTA[rung]) rung++;
        if (childCount == 1) {
            int type = RUNG_SINGLE[rung];
            if (hasPayload && (type == SINGLE_NOPAYLOAD_4 || type == SINGLE_NOPAYLOAD_12)) type = RUNG_SINGLE[rung + 1];
            return type;
        }
        int sparse = RUNG_SPARSE[rung];
        int dense = RUNG_DENSE[rung];
        return nodeBytes(sparse, childCount, firstTransition, lastTransition)
                < nodeBytes(dense, childCount, firstTransition, lastTransition) ? sparse : dense;
    }

    /** Bytes of a node of {@code type} before its payload (what {@link #payloadOffset} skips). */
    public static int nodeBytes(int type, int childCount, int firstTransition, int lastTransition) {
        switch (type) {
            case PAYLOAD_ONLY: return 1;
            case SINGLE_NOPAYLOAD_4: return 2;
            case SINGLE_8:
            case SINGLE_NOPAYLOAD_12: return 3;
            case SINGLE_16: return 4;
            case SPARSE_12: return 2 + childCount + (3 * childCount + 1) / 2;
            case DENSE_12: return 3 + (3 * (lastTransition - firstTransition + 1) + 1) / 2;
            default:
                if (isSparse(type)) return 2 + childCount * (1 + POINTER_BYTES[type]);
                return 3 + (lastTransition - firstTransition + 1) * POINTER_BYTES[type];
        }
    }

    /**
     * Writes a node of {@code type} (from {@link #typeFor}) at {@code b[at]}: the type and
     * {@code payloadFlags}, then child {@code i}'s transition byte {@code transitions[i]} (increasing)
     * and its distance back {@code deltas[i]} (positive), for {@code i < childCount}. The payload
     * itself is the caller's to append. Returns the bytes written, {@link #nodeBytes}.
     * REQUIRES: room in {@code b}; throws IllegalArgumentException if a delta does not fit the type
     * or a payload-less type is given flags.
     */
    public static int writeNode(byte[] b, int at, int type, int payloadFlags, int childCount, byte[] transitions, long[] deltas) {
        if ((payloadFlags & ~PAYLOAD_FLAGS_MASK) != 0) throw new IllegalArgumentException("payload flags " + payloadFlags);
        int header = type << TYPE_SHIFT;
        switch (type) {
            case PAYLOAD_ONLY:
                b[at] = (byte) (header | payloadFlags);
                return 1;
            case SINGLE_NOPAYLOAD_4: {
                noPayload(type, payloadFlags);
                long d = checkedDelta(type, deltas[0], MAX_DELTA_4);
                b[at] = (byte) (header | (int) d);
                b[at + 1] = transitions[0];
                return 2;
            }
            case SINGLE_NOPAYLOAD_12: {
                noPayload(type, payloadFlags);
                long d = checkedDelta(type, deltas[0], MAX_DELTA_12);
                b[at] = (byte) (header | (int) (d >>> 8));
                b[at + 1] = (byte) d;
                b[at + 2] = transitions[0];
                return 3;
            }
            case SINGLE_8:
            case SINGLE_16: {
                int width = POINTER_BYTES[type];
                b[at] = (byte) (header | payloadFlags);
                b[at + 1] = transitions[0];
                putUnsigned(b, at + 2, checkedDelta(type, deltas[0], widthMax(width)), width);
                return 2 + width;
            }
            case SPARSE_12: {
                b[at] = (byte) (header | payloadFlags);
                b[at + 1] = (byte) checkedSparseCount(childCount);
                System.arraycopy(transitions, 0, b, at + 2, childCount);
                int base = at + 2 + childCount;
                int packedBytes = (3 * childCount + 1) / 2;
                Arrays.fill(b, base, base + packedBytes, (byte) 0);
                for (int i = 0; i < childCount; i++) putTwelveBits(b, base, i, (int) checkedDelta(type, deltas[i], MAX_DELTA_12));
                return 2 + childCount + packedBytes;
            }
            case DENSE_12: {
                int first = transitions[0] & 0xFF;
                int range = (transitions[childCount - 1] & 0xFF) - first + 1;
                b[at] = (byte) (header | payloadFlags);
                b[at + 1] = (byte) first;
                b[at + 2] = (byte) (range - 1);
                int base = at + 3;
                int packedBytes = (3 * range + 1) / 2;
                Arrays.fill(b, base, base + packedBytes, (byte) 0);
                for (int i = 0; i < childCount; i++) {
                    putTwelveBits(b, base, (transitions[i] & 0xFF) - first, (int) checkedDelta(type, deltas[i], MAX_DELTA_12));
                }
                return 3 + packedBytes;
            }
            default: {
                int width = POINTER_BYTES[type];
                long max = widthMax(width);
                b[at] = (byte) (header | payloadFlags);
                if (isSparse(type)) {
                    b[at + 1] = (byte) checkedSparseCount(childCount);
                    System.arraycopy(transitions, 0, b, at + 2, childCount);
                    int base = at + 2 + childCount;
                    for (int i = 0; i < childCount; i++) putUnsigned(b, base + i * width, checkedDelta(type, deltas[i], max), width);
                    return 2 + childCount * (1 + width);
                }
                int first = transitions[0] & 0xFF;
                int range = (transitions[childCount - 1] & 0xFF) - first + 1;
                b[at + 1] = (byte) first;
                b[at + 2] = (byte) (range - 1);
                int base = at + 3;
                Arrays.fill(b, base, base + range * width, (byte) 0); // 0: no transition on that byte
                for (int i = 0; i < childCount; i++) {
                    putUnsigned(b, base + ((transitions[i] & 0xFF) - first) * width, checkedDelta(type, deltas[i], max), width);
                }
                return 3 + range * width;
            }
        }
    }

    private static long widthMax(int width) {
        return width >= 8 ? Long.MAX_VALUE : (1L << (8 * width)) - 1;
    }

    private static void noPayload(int type, int payloadFlags) {
        if (payloadFlags != 0) throw new IllegalArgumentException(NAMES[type] + " cannot carry payload flags " + payloadFlags);
    }

    private static int checkedSparseCount(int childCount) {
        if (childCount < 1 || childCount >= MAX_TRANSITIONS) throw new IllegalArgumentException("sparse node of " + childCount + " transitions");
        return childCount;
    }

    private static long checkedDelta(int type, long delta, long max) {
        if (delta <= 0 || delta > max) {
            throw new IllegalArgumentException(NAMES[type] + " cannot point " + delta + " bytes back (1 to " + max + ")");
        }
        return delta;
    }

    /** Writes the low {@code width} bytes of {@code value} at {@code at}, big-endian. */
    static void putUnsigned(byte[] b, int at, long value, int width) {
        for (int i = width - 1; i >= 0; i--) {
            b[at + i] = (byte) value;
            value >>>= 8;
        }
    }

    /** Sets slot {@code slot}'s 12-bit delta in the packed array at {@code base}, whose bytes start zeroed. */
    static void putTwelveBits(byte[] b, int base, int slot, int value) {
        int at = base + (3 * slot) / 2;
        if ((slot & 1) == 0) {
            b[at] = (byte) (value >>> 4);
            b[at + 1] = (byte) ((b[at + 1] & 0x0F) | ((value & 0x0F) << 4));
        } else {
            b[at] = (byte) ((b[at] & 0xF0) | (value >>> 8));
            b[at + 1] = (byte) value;
        }
    }

    /** {@code width} bytes at {@code at}, big-endian, unsigned (8 bytes: as stored). */
    static long unsigned(byte[] b, int at, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) v = (v << 8) | (b[at + i] & 0xFF);
        return v;
    }

    /** Slot {@code slot}'s 12-bit delta in the packed array at {@code base}. */
    static int twelveBits(byte[] b, int base, int slot) {
        int at = base + (3 * slot) / 2;
        int word = ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
        return (slot & 1) == 0 ? word >>> 4 : word & 0xFFF;
    }
}
