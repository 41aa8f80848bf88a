package dev.flushline.sstable.bti;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.sstable.CorruptSSTableException;
import org.apache.cassandra.io.tries.IncrementalTrieWriter;
import org.apache.cassandra.io.tries.SerializationNode;
import org.apache.cassandra.io.tries.TrieNode;
import org.apache.cassandra.io.tries.TrieSerializer;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.apache.cassandra.io.util.DataOutputPlus;
import org.apache.cassandra.utils.bytecomparable.ByteSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our trie reader on tries Cassandra 5.0.9 writes: every one of the sixteen node types as
 * Cassandra's own {@code TrieNode} serializes it (sparse and dense, gaps, odd and even counts of
 * 12-bit pointers, with and without a payload), and random tries from its page-aware incremental
 * writer, walked in order and followed key by key. A transition that points forward, or out of
 * the trie, is reported with the node's offset.
 */
class TrieReaderTest {
    private static final Path FILE = Path.of("test-trie");

    /** A payload: its width in the node's flags (1 to 7), then the value big-endian. */
    static final TrieSerializer<Long, DataOutputPlus> SERIALIZER = new TrieSerializer<>() {
        @Override
        public int sizeofNode(SerializationNode<Long> node, long nodePosition) {
            Long p = node.payload();
            return TrieNode.typeFor(node, nodePosition).sizeofNode(node) + (p == null ? 0 : SizedInts.nonZeroSize(p));
        }

        @Override
        public void write(DataOutputPlus dest, SerializationNode<Long> node, long nodePosition) throws IOException {
            Long p = node.payload();
            TrieNode type = TrieNode.typeFor(node, nodePosition);
            int width = p == null ? 0 : SizedInts.nonZeroSize(p);
            type.serialize(dest, node, width, nodePosition);
            if (p != null) dest.writeMostSignificantBytes(p << ((8 - width) * 8), width);
        }
    };

    /** Cassandra's node type of ordinal {@code i} (TrieNode.Types.values). */
    static TrieNode cassandraType(int i) throws ReflectiveOperationException {
        Class<?> types = Class.forName("org.apache.cassandra.io.tries.TrieNode$Types");
        Field values = types.getDeclaredField("values");
        values.setAccessible(true);
        return ((TrieNode[]) values.get(null))[i];
    }

    /** A node to serialize: transitions to children at given positions, and an optional payload. */
    record Node(int[] transitions, long[] childPositions, Long payload) implements SerializationNode<Long> {
        public int childCount() { return transitions.length; }

        public Long payload() { return payload; }

        public int transition(int i) { return transitions[i]; }

        public long serializedPositionDelta(int i, long nodePosition) { return childPositions[i] - nodePosition; }

        public long maxPositionDelta(long nodePosition) {
            long min = 0;
            for (long c : childPositions) min = Math.min(min, c - nodePosition);
            return min;
        }
    }

    /** Writes each leaf as a PAYLOAD_ONLY node of payload 100 + its index, then the parent of type {@code type}. */
    static byte[] parentOverLeaves(TrieNode type, int[] transitions, Long parentPayload, int gapBytes) throws Exception {
        DataOutputBuffer out = new DataOutputBuffer();
        long[] positions = new long[transitions.length];
        for (int i = 0; i < transitions.length; i++) {
            positions[i] = out.position();
            Node leaf = new Node(new int[0], new long[0], 100L + i);
            cassandraType(TrieNodeLayout.PAYLOAD_ONLY).serialize(out, leaf, 1, out.position());
            out.writeByte(100 + i);
        }
        for (int i = 0; i < gapBytes; i++) out.writeByte(0);
        Node parent = new Node(transitions, positions, parentPayload);
        long at = out.position();
        type.serialize(out, parent, parentPayload == null ? 0 : 1, at);
        if (parentPayload != null) out.writeByte(parentPayload.intValue());
        return out.toByteArray();
    }

    @Test
    void everyNodeTypeAsCassandraSerializesIt() throws Exception {
        CassandraOracle.init();
        int[][] transitionSets = {{0x41}, {0x00, 0x7F, 0xFF}, {0x10, 0x11, 0x12, 0x13}, {0x20, 0x22, 0x25, 0x26, 0x30},
                {0x01, 0x02}, {0x05, 0x09, 0x0A}};
        int checked = 0;
        for (int t = 0; t < 16; t++) {
            TrieNode type = cassandraType(t);
            boolean single = t >= TrieNodeLayout.SINGLE_NOPAYLOAD_4 && t <= TrieNodeLayout.SINGLE_16;
            boolean payloadLess = t == TrieNodeLayout.SINGLE_NOPAYLOAD_4 || t == TrieNodeLayout.SINGLE_NOPAYLOAD_12;
            for (int[] transitions : transitionSets) {
                if (t == TrieNodeLayout.PAYLOAD_ONLY && transitions.length > 0) transitions = new int[0];
                if (single && transitions.length != 1) continue;
                for (Long payload : payloadLess ? new Long[] {null} : new Long[] {null, 77L}) {
                    if (t == TrieNodeLayout.PAYLOAD_ONLY && payload == null) continue;
                    // the 4-bit single reaches 15 bytes back at most; the others are pushed further with a gap
                    int gap = t == TrieNodeLayout.SINGLE_NOPAYLOAD_4 ? 3 : t == TrieNodeLayout.SINGLE_NOPAYLOAD_12
                            || t == TrieNodeLayout.SPARSE_12 || t == TrieNodeLayout.DENSE_12 ? 1000 : 20;
                    if (TrieNodeLayout.pointerBytes(t) >= 2) gap = 300;
                    byte[] b = parentOverLeaves(type, transitions, payload, gap);
                    checkParent(b, t, transitions, payload);
                    checked++;
                }
            }
        }
        assertTrue(checked > 40, "node shapes checked: " + checked);
    }

    private static void checkParent(byte[] b, int type, int[] transitions, Long payload) {
        String what = TrieNodeLayout.name(type) + " " + Arrays.toString(transitions) + " payload " + payload;
        int parentAt = 2 * transitions.length;
        while (parentAt < b.length && b[parentAt] == 0 && parentAt < b.length - 1 && TrieNodeLayout.type(b, parentAt) == 0
                && (b[parentAt] & 0x0F) == 0) {
            parentAt++; // the zero gap
        }
        TrieReader r = new TrieReader(FILE, b, b.length);
        int node = r.node(parentAt);
        assertEquals(type, TrieNodeLayout.type(b, node), what);
        assertEquals(payload == null ? 0 : 1, r.payloadFlags(node), what);
        int end = r.payloadOffset(node) + (payload == null ? 0 : 1);
        assertEquals(b.length, end, what + ": the node's size");
        if (payload != null) assertEquals(payload.intValue(), b[r.payloadOffset(node)] & 0xFF, what);
        // children, by search and by slot
        for (int i = 0; i < transitions.length; i++) {
            int slot = r.search(node, transitions[i]);
            assertTrue(slot >= 0, what + ": search " + transitions[i]);
            assertEquals(transitions[i], r.transitionByte(node, slot), what);
            assertEquals(2L * i, r.child(node, slot), what + ": child " + i);
        }
        for (int v = 0; v < 256; v++) {
            final int value = v;
            boolean present = Arrays.stream(transitions).anyMatch(x -> x == value);
            int slot = r.search(node, v);
            assertEquals(present, slot >= 0, what + ": search " + v);
            if (!present) {
                // the insertion slot's next child is the first greater transition
                int next = r.nextSlotWithChild(node, -slot - 1);
                int expected = Arrays.stream(transitions).filter(x -> x > value).findFirst().orElse(-1);
                assertEquals(expected, next < 0 ? -1 : r.transitionByte(node, next), what + ": after " + v);
            }
        }
        // in order: the parent's payload, then the leaves by transition
        r.start(parentAt);
        List<String> seen = new ArrayList<>();
        long n;
        while ((n = r.nextPayload()) != TrieReader.NONE) {
            seen.add(Arrays.toString(Arrays.copyOf(r.path(), r.pathLength())) + "=" + (b[r.payloadOffset((int) n)] & 0xFF));
        }
        List<String> expected = new ArrayList<>();
        if (payload != null) expected.add("[]=" + payload);
        for (int i = 0; i < transitions.length; i++) expected.add("[" + (byte) transitions[i] + "]=" + (100 + i));
        assertEquals(expected, seen, what);
    }

    @Test
    void randomTriesFromCassandrasWriter() throws Exception {
        CassandraOracle.init();
        Random random = new Random(3);
        int[] types = new int[16];
        for (int round = 0; round < 12; round++) {
            TreeMap<byte[], Long> keys = new TreeMap<>(Arrays::compareUnsigned);
            int count = round < 4 ? 1 + random.nextInt(20) : 2000 + random.nextInt(30000);
            int alphabet = 1 + random.nextInt(256);
            int maxLength = 1 + random.nextInt(round % 3 == 0 ? 3 : 12);
            for (int attempt = 0; attempt < 4 * count && keys.size() < count; attempt++) { // small alphabets run out of keys
                byte[] k = new byte[1 + random.nextInt(maxLength)];
                for (int i = 0; i < k.length; i++) k[i] = (byte) random.nextInt(alphabet);
                keys.put(k, (long) random.nextInt(round % 2 == 0 ? 200 : Integer.MAX_VALUE));
            }
            DataOutputBuffer out = new PagedBuffer();
            long root;
            try (IncrementalTrieWriter<Long> w = IncrementalTrieWriter.open(SERIALIZER, out)) {
                for (var e : keys.entrySet()) {
                    byte[] k = e.getKey();
                    w.add(v -> ByteSource.fixedLength(k), e.getValue());
                }
                root = w.complete();
            }
            byte[] b = out.toByteArray();
            TrieReader r = new TrieReader(FILE, b, b.length);
            String what = "round " + round + ", " + keys.size() + " keys, " + b.length + " bytes";

            // in order, each key is the path to its payload
            r.start(root);
            var it = keys.entrySet().iterator();
            long node;
            int n = 0;
            while ((node = r.nextPayload()) != TrieReader.NONE) {
                assertTrue(it.hasNext(), what + ": more payloads than keys");
                var e = it.next();
                assertArrayEquals(e.getKey(), Arrays.copyOf(r.path(), r.pathLength()), what + ": key " + n);
                assertEquals((long) e.getValue(), payload(r, (int) node), what + ": value " + n);
                n++;
            }
            assertEquals(keys.size(), n, what);

            // followed byte by byte, each key ends on its payload
            for (var e : keys.entrySet()) {
                int at = r.node(root);
                for (byte x : e.getKey()) {
                    int slot = r.search(at, x & 0xFF);
                    assertTrue(slot >= 0, what);
                    at = r.node(r.child(at, slot));
                }
                assertEquals((long) e.getValue(), payload(r, at), what);
            }
            countTypes(r, b, root, types);
        }
        // What the page-aware writer picks for tries of this size (it keeps most pointers within a page, so
        // the wider types are rare; everyNodeTypeAsCassandraSerializesIt covers each of them).
        for (int t : new int[] {TrieNodeLayout.PAYLOAD_ONLY, TrieNodeLayout.SINGLE_NOPAYLOAD_4, TrieNodeLayout.SINGLE_8,
                TrieNodeLayout.SPARSE_8, TrieNodeLayout.SPARSE_12, TrieNodeLayout.DENSE_12, TrieNodeLayout.DENSE_16}) {
            assertTrue(types[t] > 0, TrieNodeLayout.name(t) + " never written: " + Arrays.toString(types));
        }
    }

    /** An in-memory destination with 4 KiB pages, as the page-aware writer needs (a file writer has them). */
    static final class PagedBuffer extends DataOutputBuffer {
        @Override
        public int maxBytesInPage() { return TrieNodeLayout.PAGE_BYTES; }

        @Override
        public int bytesLeftInPage() { return TrieNodeLayout.PAGE_BYTES - (int) (position() % TrieNodeLayout.PAGE_BYTES); }

        @Override
        public long paddedPosition() {
            long p = position();
            return (p + TrieNodeLayout.PAGE_BYTES - 1) / TrieNodeLayout.PAGE_BYTES * TrieNodeLayout.PAGE_BYTES;
        }
    }

    private static long payload(TrieReader r, int node) {
        int flags = r.payloadFlags(node);
        assertTrue(flags > 0 && flags <= 8, "flags " + flags);
        return SizedInts.read(r.bytes(), r.payloadOffset(node), flags);
    }

    /** Counts the node types reachable from {@code root}. */
    private static void countTypes(TrieReader r, byte[] b, long root, int[] types) {
        List<Long> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            int node = r.node(todo.remove(todo.size() - 1));
            types[TrieNodeLayout.type(b, node)]++;
            for (int s = 0; s < r.slots(node); s++) {
                long c = r.child(node, s);
                if (c != TrieReader.NONE) todo.add(c);
            }
        }
    }

    @Test
    void transitionsThatDoNotPointBackAreCorrupt() {
        // SINGLE_8 at 2 whose delta (5) points before the file; at 0 a leaf
        byte[] b = {0x01, 0x07, (byte) 0x21, 0x41, 0x05, 0x09};
        TrieReader r = new TrieReader(FILE, b, b.length);
        int node = r.node(2);
        CorruptSSTableException e = assertThrows(CorruptSSTableException.class, () -> r.child(node, 0));
        assertEquals(2, e.offset());
        // a sparse node whose count runs past the end
        byte[] s = {0x50, 0x09, 0x41};
        assertThrows(CorruptSSTableException.class, () -> new TrieReader(FILE, s, s.length).node(0));
        // a node outside the trie
        assertThrows(CorruptSSTableException.class, () -> r.node(b.length));
        assertThrows(CorruptSSTableException.class, () -> r.node(-1));
        // a dense node's zero slot is no child; a sparse node's zero delta is corrupt
        byte[] z = {0x00, 0x50, 0x01, 0x41, 0x00};
        TrieReader rz = new TrieReader(FILE, z, z.length);
        assertThrows(CorruptSSTableException.class, () -> rz.child(rz.node(1), 0));
    }
}
