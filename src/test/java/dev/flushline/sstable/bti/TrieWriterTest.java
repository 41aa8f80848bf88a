package dev.flushline.sstable.bti;

import dev.flushline.io.SyncedFileOutput;
import dev.flushline.oracle.CassandraOracle;
import org.apache.cassandra.io.tries.IncrementalTrieWriter;
import org.apache.cassandra.io.tries.SerializationNode;
import org.apache.cassandra.io.tries.TrieNode;
import org.apache.cassandra.io.tries.TrieSerializer;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.apache.cassandra.io.util.DataOutputPlus;
import org.apache.cassandra.io.util.SequentialWriter;
import org.apache.cassandra.utils.bytecomparable.ByteSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Our page-aware trie writer against Cassandra 5.0.9's ({@code IncrementalTrieWriter.open}, the
 * deep page-aware writer both BTI components use), with a serializer that does what Cassandra's
 * two do (the node as {@code TrieNode.typeFor} picks it, then the payload bytes): for random key
 * sets of every shape a trie index meets, written from position 0 and from positions past filler
 * bytes, the two files must be equal byte for byte and the roots equal; our file is then read back
 * with {@link TrieReader}, every key to its payload. Several tries in one file through
 * {@link TrieWriter#reset()} (as Rows.db holds one per partition), the node layouts on their own,
 * the refusals, and the allocation per key in steady state are checked too.
 *
 * <p>Seeds: a fixed list and one random seed per run; every failure message names its seed, and
 * {@code -Dflushline.trieSeed=N} runs seed N alone.
 */
class TrieWriterTest {
    private static final long[] FIXED_SEEDS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    private static final int MAX_KEYS = 100_000;

    @TempDir
    Path dir;
    private int files;

    @BeforeAll
    static void cassandra() {
        CassandraOracle.init();
    }

    /** A payload as the trie sees it: flags for the node's low nibble, then opaque bytes. */
    record Payload(int flags, byte[] bytes) {}

    /** Does what PartitionIndex's and RowIndexReader's serializers do: the node, then its payload's bytes. */
    static final TrieSerializer<Payload, DataOutputPlus> SERIALIZER = new TrieSerializer<>() {
        @Override
        public int sizeofNode(SerializationNode<Payload> node, long nodePosition) {
            Payload p = node.payload();
            return TrieNode.typeFor(node, nodePosition).sizeofNode(node) + (p == null ? 0 : p.bytes.length);
        }

        @Override
        public void write(DataOutputPlus dest, SerializationNode<Payload> node, long nodePosition) throws IOException {
            Payload p = node.payload();
            TrieNode.typeFor(node, nodePosition).serialize(dest, node, p == null ? 0 : p.flags, nodePosition);
            if (p != null) dest.write(p.bytes);
        }
    };

    /** Keys in increasing unsigned order, each with its payload. */
    record KeySet(String shape, byte[][] keys, Payload[] payloads) {
        int size() { return keys.length; }

        long keyBytes() {
            long n = 0;
            for (byte[] k : keys) n += k.length;
            return n;
        }
    }

    // ---- the comparison ------------------------------------------------------------------------

    @Test
    void sameBytesAsCassandraForRandomKeySets() throws Exception {
        String fixed = System.getProperty("flushline.trieSeed");
        List<Long> seeds = new ArrayList<>();
        if (fixed != null) {
            seeds.add(Long.parseLong(fixed));
        } else {
            for (long s : FIXED_SEEDS) seeds.add(s);
            seeds.add(new Random().nextLong());
        }
        int tries = 0;
        long keys = 0;
        int[] types = new int[16];
        for (long seed : seeds) {
            Random random = new Random(seed);
            for (Shape shape : Shape.values()) {
                KeySet set = shape.make(random, keyCount(random, shape));
                byte[] filler = filler(random);
                String what = "seed " + seed + ", " + shape + " of " + set.size() + " keys (" + set.keyBytes()
                        + " key bytes), starting at " + filler.length;
                Written ours = writeOurs(List.of(set), filler, what);
                Written theirs = writeCassandras(List.of(set), filler, what);
                assertSameTries(theirs, ours, what);
                readBack(ours, 0, set, what);
                countTypes(ours.bytes, ours.roots[0], types);
                tries++;
                keys += set.size();
            }
        }
        // The page-aware layout is what puts the 12-bit and the wide types to use; they must all have met Cassandra.
        for (int t : new int[] {TrieNodeLayout.PAYLOAD_ONLY, TrieNodeLayout.SINGLE_NOPAYLOAD_4, TrieNodeLayout.SINGLE_8,
                TrieNodeLayout.SINGLE_NOPAYLOAD_12, TrieNodeLayout.SINGLE_16, TrieNodeLayout.SPARSE_8, TrieNodeLayout.SPARSE_12,
                TrieNodeLayout.SPARSE_16, TrieNodeLayout.DENSE_12, TrieNodeLayout.DENSE_16}) {
            assertTrue(types[t] > 0, TrieNodeLayout.name(t) + " never written in " + tries + " tries: " + Arrays.toString(types));
        }
        System.out.println("TrieWriterTest: " + tries + " tries, " + keys + " keys, seeds " + seeds + ", node types "
                + Arrays.toString(types));
    }

    @Test
    void hundredThousandKeysOfEachBigShape() throws Exception {
        long seed = 20_261_205L;
        Random random = new Random(seed);
        for (Shape shape : new Shape[] {Shape.TOKENS, Shape.SHORT, Shape.PREFIXES, Shape.DENSE_FANS}) {
            KeySet set = shape.make(random, MAX_KEYS);
            byte[] filler = filler(random);
            String what = "seed " + seed + ", " + shape + " of " + set.size() + " keys, starting at " + filler.length;
            assertTrue(set.size() > MAX_KEYS / 2, what);
            Written ours = writeOurs(List.of(set), filler, what);
            assertSameTries(writeCassandras(List.of(set), filler, what), ours, what);
            readBack(ours, 0, set, what);
        }
    }

    @Test
    void startPositionsAroundPageBoundaries() throws Exception {
        Random random = new Random(77);
        KeySet set = Shape.TOKENS.make(random, 3000);
        KeySet small = Shape.SHORT.make(random, 40);
        for (int filler : new int[] {0, 1, 2, 15, 16, 4095 - 40, 4094, 4095, 4096, 4097, 8191, 3 * 4096 - 7}) {
            for (KeySet s : new KeySet[] {set, small}) {
                String what = s.shape() + " of " + s.size() + " keys starting at " + filler;
                byte[] f = new byte[filler];
                random.nextBytes(f);
                Written ours = writeOurs(List.of(s), f, what);
                assertSameTries(writeCassandras(List.of(s), f, what), ours, what);
                readBack(ours, 0, s, what);
            }
        }
    }

    @Test
    void rootsWhoseRemainderOutgrowsAPageAtCompletion() throws Exception {
        // Rare in random sets: what is left unwritten at complete() was estimated under a page, but sized again at
        // its real position (pointers to nodes written long before grow wider) it no longer fits a page, so the
        // root's children are laid out there; for 624, 17162 and 26606 the root then does not fit the rest of the
        // page either and goes to a fresh one with its pointers sized again. These seeds were found by a search
        // over this derivation with counters on those branches of TrieWriter.complete().
        for (long seed : new long[] {624, 1171, 7132, 17162, 26606}) {
            Random random = new Random(seed);
            Shape shape = random.nextBoolean() ? Shape.PREFIXES : Shape.LONG_SHARED;
            int n = 1000 + random.nextInt(3000);
            KeySet set = shape.make(random, n);
            byte[] filler = new byte[random.nextInt(4096)];
            String what = "seed " + seed + ", " + shape + " of " + set.size() + " keys, starting at " + filler.length;
            Written ours = writeOurs(List.of(set), filler, what);
            assertSameTries(writeCassandras(List.of(set), filler, what), ours, what);
            readBack(ours, 0, set, what);
        }
    }

    @Test
    void keysThousandsOfBytesDeepDoNotRecurse() throws Exception {
        // 200 KiB deep: a recursion per byte would overflow the Java stack at its default size.
        Random random = new Random(5);
        byte[] base = new byte[200_000];
        random.nextBytes(base);
        List<byte[]> keys = new ArrayList<>();
        keys.add(Arrays.copyOf(base, 150_000));
        keys.add(base);
        byte[] branch = Arrays.copyOf(base, 199_999);
        branch[199_998] = (byte) (base[199_998] + 1);
        keys.add(branch);
        keys.sort(Arrays::compareUnsigned);
        Payload[] payloads = new Payload[keys.size()];
        for (int i = 0; i < payloads.length; i++) payloads[i] = new Payload(1 + i, new byte[] {(byte) i, 9});
        KeySet set = new KeySet("deep", keys.toArray(new byte[0][]), payloads);
        Written ours = writeOurs(List.of(set), new byte[100], "deep");
        assertSameTries(writeCassandras(List.of(set), new byte[100], "deep"), ours, "deep");
        readBack(ours, 0, set, "deep");
    }

    @Test
    void severalTriesInOneFileThroughReset() throws Exception {
        // As Rows.db: a trie per partition, each followed by the partition's entry, one writer reset between them;
        // and, once in a while, a trie dropped half way (its nodes already written stay in the file).
        for (long seed : new long[] {31, 32, 33, new Random().nextLong()}) {
            Random random = new Random(seed);
            List<KeySet> sets = new ArrayList<>();
            List<Integer> dropAfter = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                Shape shape = Shape.values()[random.nextInt(Shape.values().length)];
                int n = random.nextInt(6) == 0 ? 2000 + random.nextInt(6000) : random.nextInt(300);
                KeySet set = shape.make(random, n);
                sets.add(set);
                dropAfter.add(random.nextInt(8) == 0 && set.size() > 1 ? random.nextInt(set.size()) : -1);
            }
            byte[][] between = new byte[sets.size() + 1][];
            for (int i = 0; i < between.length; i++) {
                between[i] = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(600)];
                random.nextBytes(between[i]);
            }
            String what = "seed " + seed + ", " + sets.size() + " tries in one file";

            Path file = dir.resolve("multi-" + (files++));
            long[] ourRoots = new long[sets.size()];
            try (SyncedFileOutput out = new SyncedFileOutput(file, 1 << 16)) {
                TrieWriter w = new TrieWriter(out);
                for (int i = 0; i < sets.size(); i++) {
                    out.write(between[i], 0, between[i].length);
                    KeySet set = sets.get(i);
                    int stop = dropAfter.get(i) >= 0 ? dropAfter.get(i) : set.size();
                    for (int k = 0; k < stop; k++) {
                        Payload p = set.payloads()[k];
                        w.add(set.keys()[k], set.keys()[k].length, p.flags(), p.bytes(), p.bytes().length);
                    }
                    ourRoots[i] = dropAfter.get(i) >= 0 ? -1 : w.complete();
                    assertEquals(stop, w.count(), what);
                    w.reset();
                }
                out.write(between[sets.size()], 0, between[sets.size()].length);
            }
            byte[] ours = Files.readAllBytes(file);

            // Cassandra's into its own file writer, as its BTI writer does.
            Path theirFile = dir.resolve("multi-cassandra-" + (files++));
            long[] theirRoots = new long[sets.size()];
            SequentialWriter sw = new SequentialWriter(new org.apache.cassandra.io.util.File(theirFile));
            try (IncrementalTrieWriter<Payload> w = IncrementalTrieWriter.open(SERIALIZER, sw)) {
                for (int i = 0; i < sets.size(); i++) {
                    sw.write(between[i]);
                    KeySet set = sets.get(i);
                    int stop = dropAfter.get(i) >= 0 ? dropAfter.get(i) : set.size();
                    for (int k = 0; k < stop; k++) {
                        byte[] key = set.keys()[k];
                        w.add(v -> ByteSource.fixedLength(key), set.payloads()[k]);
                    }
                    theirRoots[i] = dropAfter.get(i) >= 0 ? -1 : w.complete();
                    w.reset();
                }
                sw.write(between[sets.size()]);
            }
            sw.finish();
            byte[] theirs = Files.readAllBytes(theirFile);

            assertArrayEquals(theirRoots, ourRoots, what + ": roots");
            assertSameBytes(theirs, ours, what);
            Written written = new Written(ours, ourRoots, file);
            for (int i = 0; i < sets.size(); i++) {
                if (ourRoots[i] >= 0) readBack(written, i, sets.get(i), what + ", trie " + i);
            }
        }
    }

    // ---- the node layouts on their own ---------------------------------------------------------

    @Test
    void nodeTypesSizesAndBytesAsCassandrasTrieNode() throws Exception {
        Random random = new Random(11);
        long[] rungEdges = {1, 2, 0xF, 0x10, 0xFF, 0x100, 0xFFF, 0x1000, 0xFFFF, 0x10000, 0xFF_FFFFL, 0x100_0000L,
                0xFFFF_FFFFL, 0x1_0000_0000L, 0xFF_FFFF_FFFFL, 0x100_0000_0000L, 1L << 45};
        int[] seenTypes = new int[16];
        for (int round = 0; round < 30_000; round++) {
            int count = round % 7 == 0 ? 0 : round % 5 == 0 ? 1 : round % 11 == 0 ? 256 : 1 + random.nextInt(random.nextBoolean() ? 8 : 256);
            TreeSet<Integer> bytes = new TreeSet<>();
            if (count == 256) {
                for (int b = 0; b < 256; b++) bytes.add(b);
            } else {
                // clustered transitions so that dense nodes win as often as sparse ones
                int lo = random.nextInt(256), span = Math.min(256 - lo, count + random.nextInt(3 * count + 1));
                while (bytes.size() < count) bytes.add(span >= count && random.nextInt(4) > 0 ? lo + random.nextInt(span) : random.nextInt(256));
            }
            int[] transitions = bytes.stream().mapToInt(Integer::intValue).toArray();
            long maxDelta = random.nextBoolean() ? rungEdges[random.nextInt(rungEdges.length)] : 1 + random.nextInt(70_000);
            long position = 1L << 50;
            long[] childPositions = new long[count];
            long[] deltas = new long[count];
            int far = count == 0 ? -1 : random.nextInt(count);
            for (int i = 0; i < count; i++) {
                deltas[i] = i == far ? maxDelta : 1 + (long) (random.nextDouble() * maxDelta);
                childPositions[i] = position - deltas[i];
            }
            boolean hasPayload = count == 0 || random.nextBoolean();
            int flags = hasPayload ? 1 + random.nextInt(15) : 0;
            TrieReaderTest.Node node = new TrieReaderTest.Node(transitions, childPositions, hasPayload ? 1L : null);
            String what = "round " + round + ": " + count + " transitions " + Arrays.toString(transitions) + ", max delta "
                    + maxDelta + ", payload " + hasPayload;

            TrieNode theirType = TrieNode.typeFor(node, position);
            DataOutputBuffer theirs = new DataOutputBuffer();
            theirType.serialize(theirs, node, flags, position);
            byte[] expected = theirs.toByteArray();

            int first = count == 0 ? 0 : transitions[0];
            int last = count == 0 ? 0 : transitions[count - 1];
            int type = TrieNodeLayout.typeFor(count, hasPayload, first, last, count == 0 ? 0 : maxDelta);
            assertEquals(TrieNodeLayout.type(expected, 0), type, what);
            assertEquals(theirType.sizeofNode(node), TrieNodeLayout.nodeBytes(type, count, first, last), what);
            byte[] transitionBytes = new byte[count];
            for (int i = 0; i < count; i++) transitionBytes[i] = (byte) transitions[i];
            byte[] ours = new byte[3 + 8 * 256];
            Arrays.fill(ours, (byte) 0x5A); // stale bytes in the scratch must not leak into the node
            int length = TrieNodeLayout.writeNode(ours, 0, type, flags, count, transitionBytes, deltas);
            assertArrayEquals(expected, Arrays.copyOf(ours, length), what);
            seenTypes[type]++;
        }
        for (int t = 0; t < 16; t++) assertTrue(seenTypes[t] > 0, TrieNodeLayout.name(t) + ": " + Arrays.toString(seenTypes));
    }

    // ---- refusals ------------------------------------------------------------------------------

    @Test
    void keysOutOfOrderAreRefusedNamingBothInHex() throws Exception {
        Path file = dir.resolve("refused");
        try (SyncedFileOutput out = new SyncedFileOutput(file, 4096)) {
            TrieWriter w = new TrieWriter(out);
            byte[] p = {7};
            w.add(new byte[] {0x01, 0x02}, 2, 1, p, 1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x01, 0x01}, 2, 1, p, 1));
            assertTrue(e.getMessage().contains("0x0101") && e.getMessage().contains("0x0102"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x01, 0x02}, 2, 1, p, 1));
            assertTrue(e.getMessage().contains("equal") && e.getMessage().contains("0x0102"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x01, 0x02, 0x03}, 1, 1, p, 1));
            assertTrue(e.getMessage().contains("0x01 ") && e.getMessage().contains("0x0102"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> w.add(new byte[0], 0, 1, p, 1));
            assertTrue(e.getMessage().contains("0x ") && e.getMessage().contains("0x0102"), e.getMessage());
            // unsigned order: 0x80 sorts after 0x7f
            w.add(new byte[] {0x01, 0x7F}, 2, 2, p, 1);
            w.add(new byte[] {0x01, (byte) 0x80}, 2, 3, p, 1);
            e = assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x01, (byte) 0x7F, 0}, 3, 1, p, 1));
            assertTrue(e.getMessage().contains("0x017f00") && e.getMessage().contains("0x0180"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x02}, 1, 0, p, 1));
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x02}, 1, 16, p, 1));
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x02}, 1, 1, p, 2));
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[] {0x02}, 2, 1, p, 1));
            // the refusals left nothing behind: the trie is the three keys accepted
            w.add(new byte[] {0x02}, 1, 4, p, 1);
            long root = w.complete();
            assertEquals(root, w.complete(), "complete() twice returns the same root and writes nothing more");
            assertThrows(IllegalStateException.class, () -> w.add(new byte[] {0x03}, 1, 1, p, 1));
            out.flush();
            byte[][] keys = {{0x01, 0x02}, {0x01, 0x7F}, {0x01, (byte) 0x80}, {0x02}};
            Payload[] payloads = {new Payload(1, p), new Payload(2, p), new Payload(3, p), new Payload(4, p)};
            KeySet set = new KeySet("accepted", keys, payloads);
            Written theirs = writeCassandras(List.of(set), new byte[0], "accepted");
            byte[] ours = Files.readAllBytes(file);
            assertSameBytes(theirs.bytes, ours, "accepted keys");
            assertEquals(theirs.roots[0], root);
        }
    }

    @Test
    void emptyTrieAndEmptyKey() throws Exception {
        KeySet none = new KeySet("none", new byte[0][], new Payload[0]);
        Written ours = writeOurs(List.of(none), new byte[3], "empty trie");
        assertSameTries(writeCassandras(List.of(none), new byte[3], "empty trie"), ours, "empty trie");
        assertEquals(3, ours.roots[0]);
        assertEquals(4, ours.bytes.length, "one payload-less PAYLOAD_ONLY node");

        KeySet root = new KeySet("empty key", new byte[][] {{}, {0x41}, {0x41, 0x42}},
                new Payload[] {new Payload(5, new byte[] {1, 2, 3}), new Payload(1, new byte[0]), new Payload(15, new byte[40])});
        ours = writeOurs(List.of(root), new byte[0], "empty key");
        assertSameTries(writeCassandras(List.of(root), new byte[0], "empty key"), ours, "empty key");
        readBack(ours, 0, root, "empty key");
    }

    // ---- allocation ----------------------------------------------------------------------------

    @Test
    void steadyStateAddsAllocateNothingPerKey() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        KeySet set = Shape.TOKENS.make(new Random(9), 20_000);
        byte[][] keys = set.keys();
        Payload[] payloads = set.payloads();
        long allocated = Long.MAX_VALUE;
        try (SyncedFileOutput out = new SyncedFileOutput(dir.resolve("alloc"), 1 << 16)) {
            TrieWriter w = new TrieWriter(out);
            for (int round = 0; round < 8; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int k = 0; k < keys.length; k++) {
                    w.add(keys[k], keys[k].length, payloads[k].flags(), payloads[k].bytes(), payloads[k].bytes().length);
                }
                w.complete();
                w.reset();
                long after = mx.getThreadAllocatedBytes(tid);
                if (round >= 3) allocated = Math.min(allocated, after - before); // the first rounds grow the storage
            }
        }
        // 20,000 keys: one object per key or per node would be hundreds of KiB.
        assertTrue(allocated < 16 * 1024, "bytes allocated writing 20,000 keys after warm-up: " + allocated);
    }

    @Test
    void aReleasedWritersStorageServesTheNextWriterWithTheSameBytes() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        // Partitions.db-like keys: a token cut to its first bytes. 10,000 of them hold every node
        // back until the end (each root child's branch stays under a page), within what the pool keeps.
        byte[][] keys = cutTokens(new Random(11), 10_000);
        Payload[] payloads = new Payload[keys.length];
        for (int k = 0; k < keys.length; k++) payloads[k] = new Payload(1, new byte[] {(byte) k, (byte) (k >>> 8), 7});
        byte[][] written = new byte[3][];
        long[] allocated = new long[3];
        for (int round = 0; round < 3; round++) {
            Path file = dir.resolve("pooled-" + round);
            try (SyncedFileOutput out = new SyncedFileOutput(file, 1 << 16)) {
                long before = mx.getThreadAllocatedBytes(tid);
                TrieWriter w = new TrieWriter(out);
                for (int k = 0; k < keys.length; k++) {
                    w.add(keys[k], keys[k].length, payloads[k].flags(), payloads[k].bytes(), payloads[k].bytes().length);
                }
                w.complete();
                w.release();
                allocated[round] = mx.getThreadAllocatedBytes(tid) - before;
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.add(keys[0], keys[0].length, 1, null, 0));
                assertTrue(e.getMessage().contains("release"), e.getMessage());
                w.release(); // idempotent, and must not put the storage into the pool twice
            }
            written[round] = Files.readAllBytes(file);
        }
        assertArrayEquals(written[0], written[1], "the trie through pooled storage");
        assertArrayEquals(written[0], written[2], "the trie through pooled storage, again");
        // A writer that grows its own slots for these keys allocates megabytes; one that takes them
        // from the pool, only its small stacks.
        assertTrue(allocated[2] < 64 * 1024, "bytes allocated by a writer on pooled storage: " + Arrays.toString(allocated));
    }

    @Test
    void aBigTrieGetsTheLargestPooledStorageWhateverOrderTheyCameBack() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        byte[][] keys = cutTokens(new Random(12), 10_000);
        byte[] payload = {1, 2, 3};
        long[] allocated = new long[3];
        for (int round = 0; round < 3; round++) {
            // As a BTI sstable writer: the partition trie (big) and the row trie (tiny) open together, and the
            // row trie is released first. A pool that hands out what came back first would give the next
            // partition trie the tiny storage, and it would grow its slots again for every sstable.
            try (SyncedFileOutput bigOut = new SyncedFileOutput(dir.resolve("big-" + round), 1 << 16);
                 SyncedFileOutput tinyOut = new SyncedFileOutput(dir.resolve("tiny-" + round), 1 << 16)) {
                long before = mx.getThreadAllocatedBytes(tid);
                TrieWriter big = new TrieWriter(bigOut);
                TrieWriter tiny = new TrieWriter(tinyOut);
                for (int k = 0; k < keys.length; k++) big.add(keys[k], keys[k].length, 1, payload, payload.length);
                tiny.add(keys[0], keys[0].length, 1, payload, payload.length);
                tiny.complete();
                tiny.release();
                big.complete();
                big.release();
                allocated[round] = mx.getThreadAllocatedBytes(tid) - before;
            }
        }
        // Round 0 may grow its storage; every later round must find it pooled.
        assertTrue(Math.max(allocated[1], allocated[2]) < 64 * 1024,
                "bytes allocated by a big trie and a tiny one on pooled storage: " + Arrays.toString(allocated));
    }

    @Test
    void triesOfOtherShapesOnPooledStorageAllocateNothingOnceGrown() throws Exception {
        // Two Partitions.db-like tries of different sizes in turn, as a warm-up's small flushes and a big
        // one: the nodes with many children land in slots that held leaves in the other trie. Child
        // arrays therefore follow the nodes (by size class), not the slots, or every trie grows some again.
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        byte[][][] sets = {cutTokens(new Random(13), 10_000), cutTokens(new Random(14), 3_000)};
        byte[] payload = {1, 2, 3};
        long[] allocated = new long[6];
        for (int round = 0; round < allocated.length; round++) {
            byte[][] keys = sets[round % 2];
            try (SyncedFileOutput out = new SyncedFileOutput(dir.resolve("shapes-" + round), 1 << 16)) {
                long before = mx.getThreadAllocatedBytes(tid);
                TrieWriter w = new TrieWriter(out);
                for (int k = 0; k < keys.length; k++) w.add(keys[k], keys[k].length, 1, payload, payload.length);
                w.complete();
                w.release();
                allocated[round] = mx.getThreadAllocatedBytes(tid) - before;
            }
        }
        for (int round = 2; round < allocated.length; round++) {
            assertTrue(allocated[round] < 64 * 1024, "bytes allocated per trie, alternating two key sets: " + Arrays.toString(allocated));
        }
    }

    @Test
    void writersOnSeveralThreadsShareThePoolWithoutSharingStorage() throws Exception {
        // A flush and a compaction write BTI sstables at once, and their tries take slot storage from the
        // same pool: each must get storage no other writer holds. Four threads, each writing tries of
        // its own key sets in turn, must write exactly the bytes one writer alone writes for them.
        byte[][][] sets = new byte[4][][];
        byte[][] expected = new byte[4][];
        for (int i = 0; i < sets.length; i++) {
            sets[i] = cutTokens(new Random(100 + i), 2_000 + 3_000 * i);
            expected[i] = writeAlone(sets[i], dir.resolve("alone-" + i));
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<String>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                final int thread = t;
                results.add(pool.submit(() -> {
                    for (int round = 0; round < 12; round++) {
                        int set = (thread + round) % sets.length;
                        byte[] got = writeAlone(sets[set], dir.resolve("thread-" + thread + "-" + round));
                        if (!Arrays.equals(expected[set], got)) return "thread " + thread + " round " + round + ": key set " + set + " differs";
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<String> r : results) {
                String failure = r.get(120, java.util.concurrent.TimeUnit.SECONDS);
                if (failure != null) fail(failure);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** One trie of {@code keys} through a fresh writer, released afterwards; the file's bytes. */
    private static byte[] writeAlone(byte[][] keys, Path file) throws IOException {
        byte[] payload = {4, 5, 6};
        try (SyncedFileOutput out = new SyncedFileOutput(file, 1 << 16)) {
            TrieWriter w = new TrieWriter(out);
            try {
                for (int k = 0; k < keys.length; k++) w.add(keys[k], keys[k].length, 2, payload, payload.length);
                w.complete();
            } finally {
                w.release();
            }
        }
        return Files.readAllBytes(file);
    }

    /** Partitions.db-like keys: {@code n} distinct random 4-byte keys (a token cut short), in unsigned order. */
    private static byte[][] cutTokens(Random random, int n) {
        TreeSet<byte[]> cut = new TreeSet<>(Arrays::compareUnsigned);
        while (cut.size() < n) {
            byte[] k = new byte[4];
            random.nextBytes(k);
            cut.add(k);
        }
        return cut.toArray(new byte[0][]);
    }

    // ---- writing both ways ---------------------------------------------------------------------

    record Written(byte[] bytes, long[] roots, Path file) {}

    /** Filler, then each set's trie through one writer (reset between), into a file of ours. */
    private Written writeOurs(List<KeySet> sets, byte[] filler, String what) throws IOException {
        Path file = dir.resolve("ours-" + (files++));
        long[] roots = new long[sets.size()];
        try (SyncedFileOutput out = new SyncedFileOutput(file, 1 << 16)) {
            out.write(filler, 0, filler.length);
            TrieWriter w = new TrieWriter(out);
            for (int i = 0; i < sets.size(); i++) {
                KeySet set = sets.get(i);
                for (int k = 0; k < set.size(); k++) {
                    Payload p = set.payloads()[k];
                    w.add(set.keys()[k], set.keys()[k].length, p.flags(), p.bytes(), p.bytes().length);
                }
                roots[i] = w.complete();
                w.reset();
            }
            // Back to the pool: every later trie of these tests starts from storage an earlier one grew.
            w.release();
        }
        return new Written(Files.readAllBytes(file), roots, file);
    }

    private static Written writeCassandras(List<KeySet> sets, byte[] filler, String what) throws IOException {
        DataOutputBuffer out = new TrieReaderTest.PagedBuffer();
        out.write(filler);
        long[] roots = new long[sets.size()];
        try (IncrementalTrieWriter<Payload> w = IncrementalTrieWriter.open(SERIALIZER, out)) {
            for (int i = 0; i < sets.size(); i++) {
                KeySet set = sets.get(i);
                for (int k = 0; k < set.size(); k++) {
                    byte[] key = set.keys()[k];
                    w.add(v -> ByteSource.fixedLength(key), set.payloads()[k]);
                }
                roots[i] = w.complete();
                w.reset();
            }
        }
        return new Written(out.toByteArray(), roots, null);
    }

    private static void assertSameTries(Written theirs, Written ours, String what) {
        assertArrayEquals(theirs.roots, ours.roots, what + ": root positions");
        assertSameBytes(theirs.bytes, ours.bytes, what);
    }

    private static void assertSameBytes(byte[] theirs, byte[] ours, String what) {
        int at = Arrays.mismatch(theirs, ours);
        if (at < 0) return;
        int from = Math.max(0, at - 16);
        fail(what + ": the files differ first at byte " + at + " (Cassandra's " + theirs.length + " bytes, ours " + ours.length
                + "); from " + from + ": Cassandra's " + hex(theirs, from, 48) + ", ours " + hex(ours, from, 48));
    }

    private static String hex(byte[] b, int from, int length) {
        return HexFormat.of().formatHex(b, from, Math.min(b.length, from + length));
    }

    /** Walks the trie at roots[index] in order with our reader: the keys, in order, each to its flags and payload. */
    private static void readBack(Written w, int index, KeySet set, String what) {
        TrieReader r = new TrieReader(w.file == null ? Path.of("cassandra") : w.file, w.bytes, w.bytes.length);
        r.start(w.roots[index]);
        int n = 0;
        long node;
        while ((node = r.nextPayload()) != TrieReader.NONE) {
            assertTrue(n < set.size(), what + ": more payloads than keys");
            byte[] key = set.keys()[n];
            if (r.pathLength() != key.length || Arrays.mismatch(r.path(), 0, key.length, key, 0, key.length) >= 0) {
                fail(what + ": key " + n + " read back as " + hex(r.path(), 0, Math.min(64, r.pathLength())) + " ("
                        + r.pathLength() + " bytes), written as " + hex(key, 0, 64) + " (" + key.length + " bytes)");
            }
            Payload p = set.payloads()[n];
            assertEquals(p.flags(), r.payloadFlags((int) node), what + ": flags of key " + n);
            int at = r.payloadOffset((int) node);
            assertArrayEquals(p.bytes(), Arrays.copyOfRange(w.bytes, at, at + p.bytes().length), what + ": payload of key " + n);
            n++;
        }
        assertEquals(set.size(), n, what + ": keys read back");
    }

    private static void countTypes(byte[] b, long root, int[] types) {
        TrieReader r = new TrieReader(Path.of("count"), b, b.length);
        long[] todo = new long[64];
        int top = 0;
        todo[top++] = root;
        while (top > 0) {
            int node = r.node(todo[--top]);
            types[TrieNodeLayout.type(b, node)]++;
            for (int s = 0; s < r.slots(node); s++) {
                long c = r.child(node, s);
                if (c == TrieReader.NONE) continue;
                if (top == todo.length) todo = Arrays.copyOf(todo, top * 2);
                todo[top++] = c;
            }
        }
    }

    // ---- key sets ------------------------------------------------------------------------------

    /** Where the trie starts: at 0, just before or at a page boundary, or anywhere in the first pages. */
    private static byte[] filler(Random random) {
        int n;
        switch (random.nextInt(5)) {
            case 0: n = 0; break;
            case 1: n = 4096 * (1 + random.nextInt(3)) - 1 - random.nextInt(64); break;
            case 2: n = 4096 * (1 + random.nextInt(3)); break;
            default: n = 1 + random.nextInt(12_000);
        }
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static int keyCount(Random random, Shape shape) {
        switch (random.nextInt(6)) {
            case 0: return random.nextInt(4);      // 0 to 3 keys
            case 1: return random.nextInt(40);
            default:
                int max = Math.min(shape.maxKeys, MAX_KEYS);
                return (int) Math.exp(random.nextDouble() * Math.log(max)); // log-uniform up to the shape's limit
        }
    }

    enum Shape {
        /** 1 to 8 bytes over a random alphabet (often all 256 values): wide fans near the root. */
        SHORT(MAX_KEYS) {
            KeySet make(Random random, int n) {
                int maxLength = 1 + random.nextInt(8);
                int alphabet = random.nextInt(3) == 0 ? 1 + random.nextInt(256) : 256;
                TreeSet<byte[]> keys = sorted();
                for (int attempt = 0; attempt < 3 * n && keys.size() < n; attempt++) {
                    byte[] k = new byte[random.nextInt(maxLength + 1)];
                    for (int i = 0; i < k.length; i++) k[i] = (byte) random.nextInt(alphabet);
                    keys.add(k);
                }
                return withPayloads(this, keys, random);
            }
        },
        /** 0 to 24 bytes over 2 to 4 byte values: many keys are prefixes of others; long single chains. */
        PREFIXES(MAX_KEYS) {
            KeySet make(Random random, int n) {
                int[] alphabet = new int[2 + random.nextInt(3)];
                for (int i = 0; i < alphabet.length; i++) alphabet[i] = random.nextInt(256);
                int maxLength = 4 + random.nextInt(21);
                TreeSet<byte[]> keys = sorted();
                for (int attempt = 0; attempt < 3 * n && keys.size() < n; attempt++) {
                    byte[] k = new byte[random.nextInt(maxLength + 1)];
                    for (int i = 0; i < k.length; i++) k[i] = (byte) alphabet[random.nextInt(alphabet.length)];
                    keys.add(k);
                }
                return withPayloads(this, keys, random);
            }
        },
        /** Two or three levels of dense fans (contiguous runs of byte values, some complete 0..255), with payloads inside. */
        DENSE_FANS(MAX_KEYS) {
            KeySet make(Random random, int n) {
                TreeSet<byte[]> keys = sorted();
                byte[] prefix = new byte[random.nextInt(3)];
                random.nextBytes(prefix);
                for (int attempt = 0; attempt < 3 * n && keys.size() < n; attempt++) {
                    int levels = 1 + random.nextInt(3);
                    byte[] k = Arrays.copyOf(prefix, prefix.length + levels);
                    for (int l = 0; l < levels; l++) {
                        // a run of values per level: full, or starting somewhere with a random width
                        int lo = random.nextBoolean() ? 0 : random.nextInt(200);
                        int width = random.nextBoolean() ? 256 - lo : 1 + random.nextInt(256 - lo);
                        k[prefix.length + l] = (byte) (lo + random.nextInt(width));
                    }
                    keys.add(k);
                }
                return withPayloads(this, keys, random);
            }
        },
        /** Partition-index-like: an 8-byte token, then 0 to 20 key bytes. */
        TOKENS(MAX_KEYS) {
            KeySet make(Random random, int n) {
                TreeSet<byte[]> keys = sorted();
                while (keys.size() < n) {
                    byte[] k = new byte[8 + random.nextInt(21)];
                    random.nextBytes(k);
                    keys.add(k);
                }
                return withPayloads(this, keys, random);
            }
        },
        /** Keys of 500 bytes to several KiB sharing long prefixes: chains longer than pages, branches along them. */
        LONG_SHARED(1500) {
            KeySet make(Random random, int n) {
                byte[][] bases = new byte[1 + random.nextInt(4)][];
                for (int i = 0; i < bases.length; i++) {
                    bases[i] = new byte[500 + random.nextInt(6000)];
                    random.nextBytes(bases[i]);
                    if (random.nextBoolean()) Arrays.fill(bases[i], 0, bases[i].length / 2, (byte) random.nextInt(3));
                }
                TreeSet<byte[]> keys = sorted();
                for (int attempt = 0; attempt < 3 * n && keys.size() < n; attempt++) {
                    byte[] base = bases[random.nextInt(bases.length)];
                    int cut = random.nextInt(base.length + 1);
                    int tail = random.nextInt(4) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 4 : 300);
                    byte[] k = Arrays.copyOf(base, cut + tail);
                    for (int i = cut; i < k.length; i++) k[i] = (byte) random.nextInt(random.nextBoolean() ? 4 : 256);
                    keys.add(k);
                }
                return withPayloads(this, keys, random);
            }
        },
        /** A few keys tens of KiB long, branching deep down. */
        DEEP(12) {
            KeySet make(Random random, int n) {
                byte[] base = new byte[10_000 + random.nextInt(30_000)];
                random.nextBytes(base);
                TreeSet<byte[]> keys = sorted();
                for (int attempt = 0; attempt < 3 * n && keys.size() < n; attempt++) {
                    byte[] k = Arrays.copyOf(base, random.nextInt(base.length + 1));
                    if (k.length > 0 && random.nextBoolean()) k[k.length - 1] = (byte) random.nextInt(256);
                    keys.add(k);
                }
                return withPayloads(this, keys, random);
            }
        };

        final int maxKeys;

        Shape(int maxKeys) {
            this.maxKeys = maxKeys;
        }

        abstract KeySet make(Random random, int n);

        private static TreeSet<byte[]> sorted() {
            return new TreeSet<>(Arrays::compareUnsigned);
        }

        /** Payloads of random flags; 0 to ~40 random bytes, or a fixed small width, as the two BTI components store. */
        private static KeySet withPayloads(Shape shape, TreeSet<byte[]> keys, Random random) {
            int mode = random.nextInt(3);
            int fixed = 1 + random.nextInt(9);
            Payload[] payloads = new Payload[keys.size()];
            for (int i = 0; i < payloads.length; i++) {
                int length = mode == 0 ? random.nextInt(41) : mode == 1 ? fixed : random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
                byte[] b = new byte[length];
                random.nextBytes(b);
                payloads[i] = new Payload(1 + random.nextInt(15), b);
            }
            return new KeySet(shape.name(), keys.toArray(new byte[0][]), payloads);
        }
    }
}
