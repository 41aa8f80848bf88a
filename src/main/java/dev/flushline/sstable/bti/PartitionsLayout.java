package dev.flushline.sstable.bti;

/**
 * Partitions.db, the BTI format's partition index: a trie ({@link TrieNodeLayout}) that maps the
 * shortest prefix of each partition key's byte-comparable form ({@link DecoratedKeyBytes}) that
 * tells it apart from its neighbours to where the partition is, then the first and last keys and
 * a fixed footer.
 *
 * <pre>
 * Partitions.db := trie_node*                        (children first; the root is the footer's)
 *                  first_key_length:u16 first_key    (at first_key_position)
 *                  last_key_length:u16 last_key
 *                  first_key_position:i64 key_count:i64 root_position:i64     (FOOTER_BYTES)
 *
 * payload of a node with payload flags f (1 to 15):
 *   f >= HASH_FLAG:  hash:u8  position:(f - HASH_FLAG + 1) bytes, signed big-endian
 *   f <  HASH_FLAG:  position:f bytes, signed big-endian        (read; Cassandra always writes a hash)
 *   hash      := the low byte of the second half of the key's 128-bit Murmur3 hash (the bloom
 *                filter's), so a lookup can reject a key that merely shares the prefix
 *   position  >= 0: the offset in Rows.db of the partition's entry (it has a row index; see {@link RowsLayout})
 *             <  0: ~position is the partition's offset in Data.db
 * </pre>
 * Either way the bytes at the position start with the partition key (u16 length + bytes), which
 * is how a reader learns the whole key from a prefix. The positions are sized as the fewest bytes
 * that hold the value with its sign (1 to 8). An sstable with no partitions has two empty keys.
 *
 * <p>Thread safety: stateless.
 */
public final class PartitionsLayout {
    private PartitionsLayout() {}

    /** first_key_position, key_count and root_position. */
    public static final int FOOTER_BYTES = 3 * Long.BYTES;
    /** Payload flags at or above this carry the hash byte before the position. */
    public static final int HASH_FLAG = 8;
    public static final int HASH_BYTES = 1;
    /** The u16 length before each key (first, last, and at every position the trie points to). */
    public static final int KEY_LENGTH_BYTES = 2;
    /** The fewest bytes of the two keys: two empty ones. */
    public static final int MIN_KEYS_BYTES = 2 * KEY_LENGTH_BYTES;

    /** Bytes of the position in a payload of flags {@code flags} (1 to 8). REQUIRES: flags in 1..15. */
    public static int positionBytes(int flags) {
        return flags >= HASH_FLAG ? flags - HASH_FLAG + 1 : flags;
    }

    public static boolean hasHash(int flags) {
        return flags >= HASH_FLAG;
    }

    /** Payload bytes of a node with {@code flags}. */
    public static int payloadBytes(int flags) {
        return flags == 0 ? 0 : (hasHash(flags) ? HASH_BYTES : 0) + positionBytes(flags);
    }

    /** The position of the payload at {@code at} with {@code flags}. REQUIRES: its bytes in the array. */
    public static long position(byte[] b, int at, int flags) {
        return SizedInts.read(b, hasHash(flags) ? at + HASH_BYTES : at, positionBytes(flags));
    }

    /** The hash byte a key's payload carries: see the class comment. */
    public static int hashByte(long secondHashHalf) {
        return (int) secondHashHalf & 0xFF;
    }

    public static boolean isDataPosition(long position) {
        return position < 0;
    }

    /** The Data.db offset a negative position stands for. */
    public static long dataPosition(long position) {
        return ~position;
    }
}
