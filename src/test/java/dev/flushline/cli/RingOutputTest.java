package dev.flushline.cli;

import dev.flushline.data.RingFile;
import dev.flushline.data.TokenRing;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.ReplicaPlacement;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code load --ring} and {@code compact --ring} without a cluster: every node's directory holds
 * exactly the partitions whose replicas include it (tokens from cassandra-all's Murmur3Partitioner,
 * replicas from the ring, which {@code TokenRingTest} checks against cassandra-all's strategies),
 * each once, with the rows that were loaded; nothing is left in the staging folder; what the
 * options cannot do together is refused by name. The three-node cluster test
 * ({@code dev.flushline.node.ClusterLoadTest}) imports such directories into real nodes.
 */
class RingOutputTest {
    static final String CQL = "CREATE TABLE ks.r (k bigint, c int, v text, PRIMARY KEY (k, c))";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    /** Four nodes in two data centers and two racks, eight tokens each from a fixed seed; dc1 keeps 2 copies, dc2 one. */
    static String ringText() {
        Random r = new Random(88);
        String[][] nodes = {{"10.0.0.1", "dc1", "rack1"}, {"10.0.0.2", "dc1", "rack2"}, {"10.0.0.3", "dc1", "rack1"}, {"10.0.0.4", "dc2", "rack1"}};
        StringBuilder sb = new StringBuilder("replication NetworkTopologyStrategy dc1=2 dc2=1\n");
        for (String[] n : nodes) {
            sb.append("node ").append(String.join(" ", n));
            for (int k = 0; k < 8; k++) sb.append(' ').append(r.nextLong());
            sb.append('\n');
        }
        return sb.toString();
    }

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    /** Inserts of keys [from, to), 3 rows each, value "v<k>/<c>@<tag>", at timestamp ts. */
    static String ops(long from, long to, long ts, String tag) {
        StringBuilder sb = new StringBuilder();
        for (long k = from; k < to; k++) {
            for (int c = 0; c < 3; c++) {
                sb.append("{\"op\":\"insert\",\"timestamp\":").append(ts).append(",\"values\":{\"k\":").append(k).append(",\"c\":").append(c)
                        .append(",\"v\":\"v").append(k).append('/').append(c).append('@').append(tag).append("\"}}\n");
            }
        }
        return sb.toString();
    }

    @Test
    void loadAndCompactPlaceEveryPartitionOnExactlyItsReplicas() throws Exception {
        Path schema = write("r.cql", CQL);
        Path ringFile = write("ring.txt", ringText());
        TokenRing ring = RingFile.parse(ringText(), "ring.txt");
        Path out = tmp.resolve("out");

        // Two loads into one --out: the node directories take the second run's sstables beside the first's.
        LoadCommandTest.Result first = LoadCommandTest.main("load", "--schema", schema.toString(), "--input",
                write("a.jsonl", ops(0, 600, 1000, "a")).toString(), "--out", out.toString(), "--now", Long.toString(NOW),
                "--ring", ringFile.toString(), "--flush-threads", "2");
        assertEquals(0, first.status(), first.err());
        assertTrue(first.out().contains("Placed "), first.out());
        assertTrue(first.out().contains(" 0 copied)"), "every component is hard-linked on one file system:\n" + first.out());
        LoadCommandTest.Result second = LoadCommandTest.main("load", "--schema", schema.toString(), "--input",
                write("b.jsonl", ops(600, 900, 1000, "b")).toString(), "--out", out.toString(), "--now", Long.toString(NOW),
                "--ring", ringFile.toString(), "--memtable-size-mb", "1");
        assertEquals(0, second.status(), second.err());
        System.out.println(second.out());
        Map<Long, String> expected = new TreeMap<>();
        for (long k = 0; k < 900; k++) expected.put(k, k < 600 ? "a" : "b");
        checkNodeDirectories(out, ring, expected);
        assertFalse(Files.exists(ReplicaPlacement.stagingRoot(out)), "the staging folder is removed once everything is placed");

        // nb output is placed the same way, as nb.
        Path nb = tmp.resolve("nb");
        LoadCommandTest.Result n = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", tmp.resolve("a.jsonl").toString(),
                "--out", nb.toString(), "--now", Long.toString(NOW), "--ring", ringFile.toString(), "--sstable-version", "nb");
        assertEquals(0, n.status(), n.err());
        Map<Long, String> first600 = new TreeMap<>(((TreeMap<Long, String>) expected).headMap(600L));
        checkNodeDirectories(nb, ring, first600);
        for (int i = 0; i < ring.nodeCount(); i++) {
            Path dir = ReplicaPlacement.nodeRoot(nb, ring.node(i).address()).resolve("ks").resolve("r-" + CqlParser.parse(CQL).idHex());
            for (Path data : dataFiles(dir)) assertTrue(data.getFileName().toString().startsWith("nb-"), data.toString());
        }

        // Compaction of a plain (not ring-split) load, with newer values for some keys in a second input, into node directories.
        Path plain = tmp.resolve("plain");
        assertEquals(0, LoadCommandTest.main("load", "--schema", schema.toString(), "--input", write("c.jsonl", ops(0, 500, 1000, "c")).toString(),
                "--out", plain.toString(), "--now", Long.toString(NOW), "--ranges", "3").status());
        Path newer = tmp.resolve("newer");
        assertEquals(0, LoadCommandTest.main("load", "--schema", schema.toString(), "--input", write("d.jsonl", ops(300, 700, 2000, "d")).toString(),
                "--out", newer.toString(), "--now", Long.toString(NOW)).status());
        Path compacted = tmp.resolve("compacted");
        LoadCommandTest.Result c = LoadCommandTest.main("compact", "--schema", schema.toString(), "--input", plain.toString(), "--input",
                newer.toString(), "--out", compacted.toString(), "--now", Long.toString(NOW), "--ring", ringFile.toString(), "--threads", "2");
        assertEquals(0, c.status(), c.out() + c.err());
        assertTrue(c.out().contains("Compacted ("), c.out());
        System.out.println(c.out());
        Map<Long, String> merged = new TreeMap<>();
        for (long k = 0; k < 700; k++) merged.put(k, k < 300 ? "c" : "d");
        checkNodeDirectories(compacted, ring, merged);
        assertFalse(Files.exists(ReplicaPlacement.stagingRoot(compacted)));
    }

    /**
     * Each node directory holds exactly the keys whose replicas include that node, each in one
     * sstable, each with its 3 rows of the expected tag; nodes replicating nothing have no directory.
     */
    static void checkNodeDirectories(Path out, TokenRing ring, Map<Long, String> expected) throws IOException {
        TableSchema t = CqlParser.parse(CQL);
        for (int node = 0; node < ring.nodeCount(); node++) {
            String address = ring.node(node).address();
            Path dir = ReplicaPlacement.nodeRoot(out, address).resolve("ks").resolve("r-" + t.idHex());
            Map<Long, Integer> seen = new HashMap<>();
            if (Files.isDirectory(dir)) {
                for (Path data : dataFiles(dir)) {
                    for (Partition p : CassandraReader.readAll(data, CQL)) {
                        long k = p.key().toBuffer().getLong(0);
                        long token = (Long) Murmur3Partitioner.instance.getToken(p.key().toBuffer()).getTokenValue();
                        assertTrue(Arrays.binarySearch(ring.replicasOf(token), node) >= 0,
                                address + " holds key " + k + " (token " + token + ") that it does not replicate, in " + data);
                        assertEquals(null, seen.put(k, 1), address + ": key " + k + " in two sstables");
                        List<Row> rows = p.rows();
                        assertEquals(3, rows.size(), address + ": rows of key " + k);
                        for (Row row : rows) {
                            int ck = row.clustering().get(0).toBuffer().getInt(0);
                            Bytes v = null;
                            for (ColumnData cd : row.columns()) if (cd instanceof Cell cell && cell.column().equals("v")) v = cell.value();
                            assertEquals("v" + k + "/" + ck + "@" + expected.get(k), v == null ? null : StandardCharsets.UTF_8.decode(v.toBuffer()).toString(),
                                    address + ": key " + k);
                        }
                    }
                }
            }
            int want = 0;
            for (long k : expected.keySet()) {
                long token = (Long) Murmur3Partitioner.instance.getToken(java.nio.ByteBuffer.allocate(8).putLong(0, k)).getTokenValue();
                if (Arrays.binarySearch(ring.replicasOf(token), node) < 0) continue;
                want++;
                assertTrue(seen.containsKey(k), address + " lacks key " + k + " (token " + token + "), which it replicates");
            }
            assertEquals(want, seen.size(), address + ": keys held");
            assertTrue(want > 0, address + " replicates none of the keys: the ring of the test is not what it means to be");
        }
    }

    static List<Path> dataFiles(Path tableDir) throws IOException {
        try (Stream<Path> s = Files.list(tableDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).sorted().toList();
        }
    }

    @Test
    void whatTheRingCannotDoIsRefusedByName() throws Exception {
        Path schema = write("r.cql", CQL);
        Path ringFile = write("ring.txt", ringText());
        Path ops = write("a.jsonl", ops(0, 10, 1000, "a"));
        Path out = tmp.resolve("out");
        LoadCommandTest.Result r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(),
                "--ring", ringFile.toString(), "--ranges", "4");
        assertEquals(1, r.status());
        assertEquals("flushline load: --ring splits at the ring's ranges; drop --ranges\n", r.err());
        Path bad = write("bad.txt", "replication SimpleStrategy replication_factor=2\nnode 10.0.0.1 dc1 rack1 12 1e9\n");
        r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(), "--ring", bad.toString());
        assertEquals(1, r.status());
        assertEquals("flushline load: " + bad + ":2:28: '1e9' is not a Murmur3 token (a signed 64-bit integer)\n", r.err());
        r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(),
                "--ring", tmp.resolve("none.txt").toString());
        assertEquals("flushline load: --ring " + tmp.resolve("none.txt") + ": no such file\n", r.err());

        assertEquals(0, LoadCommandTest.main("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(),
                "--ring", ringFile.toString()).status());
        r = LoadCommandTest.main("compact", "--schema", schema.toString(), "--input", out.resolve("10.0.0.1").toString(), "--in-place",
                "--ring", ringFile.toString());
        assertEquals(1, r.status());
        assertEquals("flushline compact: --ring writes one directory per node under --out, split at the ring's ranges; drop --in-place\n", r.err());
        r = LoadCommandTest.main("compact", "--schema", schema.toString(), "--input", out.resolve("10.0.0.1").toString(), "--out", out.toString(),
                "--ring", ringFile.toString());
        assertEquals(1, r.status());
        assertTrue(r.err().startsWith("flushline compact: --out " + out + " would write " + out.resolve("10.0.0.1")), r.err());
    }

    /**
     * What the staging folder holds when a run is cut short is placed by the next run; an sstable
     * there that spans ranges with different replicas (not split at this ring) is refused by name
     * and stays where it is.
     */
    @Test
    void leftoversInTheStagingFolderArePlacedByTheNextRunAndForeignSplitsRefused() throws Exception {
        Path schema = write("r.cql", CQL);
        Path ringFile = write("ring.txt", ringText());
        TokenRing ring = RingFile.parse(ringText(), "ring.txt");
        Path out = tmp.resolve("out");
        // A run that published into the staging folder, split at the ring's ranges, and died before placing: a compaction
        // with the ring's split tokens writes the same there.
        Path plain = tmp.resolve("plain");
        assertEquals(0, LoadCommandTest.main("load", "--schema", schema.toString(), "--input", write("a.jsonl", ops(0, 200, 1000, "a")).toString(),
                "--out", plain.toString(), "--now", Long.toString(NOW)).status());
        StringBuilder splits = new StringBuilder();
        for (long t : ring.splitTokens()) splits.append(splits.length() == 0 ? "" : ",").append(t);
        LoadCommandTest.Result staged0 = LoadCommandTest.main("compact", "--schema", schema.toString(), "--input", plain.toString(),
                "--out", ReplicaPlacement.stagingRoot(out).toString(), "--now", Long.toString(NOW), "--split-tokens", splits.toString());
        assertEquals(0, staged0.status(), staged0.err());
        LoadCommandTest.Result r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", write("b.jsonl", ops(200, 300, 1000, "b")).toString(),
                "--out", out.toString(), "--now", Long.toString(NOW), "--ring", ringFile.toString());
        assertEquals(0, r.status(), r.err());
        Map<Long, String> expected = new TreeMap<>();
        for (long k = 0; k < 300; k++) expected.put(k, k < 200 ? "a" : "b");
        checkNodeDirectories(out, ring, expected);

        // A whole-ring sstable in the staging folder: refused, named, left in place.
        Path foreign = tmp.resolve("foreign");
        assertEquals(0, LoadCommandTest.main("load", "--schema", schema.toString(), "--input", write("c.jsonl", ops(0, 50, 1000, "c")).toString(),
                "--out", foreign.toString()).status());
        Path staged = ReplicaPlacement.stagingRoot(out).resolve("ks").resolve("r-" + CqlParser.parse(CQL).idHex());
        Files.createDirectories(staged);
        try (Stream<Path> s = Files.list(foreign.resolve("ks").resolve("r-" + CqlParser.parse(CQL).idHex()))) {
            for (Path f : s.toList()) Files.copy(f, staged.resolve(f.getFileName().toString().replace("oa-1-", "oa-900-")));
        }
        r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", write("d.jsonl", ops(300, 301, 1000, "d")).toString(),
                "--out", out.toString(), "--now", Long.toString(NOW), "--ring", ringFile.toString());
        assertEquals(1, r.status(), r.out() + r.err());
        assertTrue(r.err().contains(staged.resolve("oa-900-big-Data.db") + ": its tokens "), r.err());
        assertTrue(r.err().contains("span token ranges with different replicas in the ring"), r.err());
        assertTrue(Files.exists(staged.resolve("oa-900-big-TOC.txt")), "the refused sstable stays where it is");
    }

}
