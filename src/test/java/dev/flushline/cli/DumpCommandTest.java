package dev.flushline.cli;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.SSTableDumpOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code flushline dump} against Cassandra 5.0.9's own sstabledump, run in a child JVM on the same
 * files: the output must be identical byte for byte, for the default JSON, -d, -t, -l and -k, on
 * tables with every native type, collections frozen and not, TTLs, every deletion kind and
 * static rows, written by us and by Cassandra's writer.
 */
class DumpCommandTest {
    static final long NOW = FixedClock.FIXED_MILLIS / 1000;
    static final String TYPES = "CREATE TABLE ks.dt (p1 bigint, p2 text, c1 timeuuid, c2 date, a ascii, bo boolean, de decimal, "
            + "fl float, i inet, si smallint, t time, ts timestamp, ti tinyint, u uuid, vi varint, db double, bl blob, "
            + "fr frozen<list<int>>, fm frozen<map<int, text>>, st int static, s set<text>, m map<text, int>, l list<int>, "
            + "PRIMARY KEY ((p1, p2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)";
    static final String SIMPLE = "CREATE TABLE ks.ds (pk int, ck text, s text static, v int, w text, sm map<int, text>, "
            + "PRIMARY KEY (pk, ck))";

    @TempDir
    Path tmp;
    String lastExpected;

    static String withCompression(String cql, boolean lz4) {
        return cql + (cql.contains(" WITH ") ? " AND " : " WITH ")
                + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "compression = {'enabled': 'false'}");
    }

    Path flush(String cql, long seed, int keys, int clusterings, int updates, PartitionUpdate... extra) throws IOException {
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, keys, clusterings);
        for (PartitionUpdate u : gen.next(updates)) m.apply(u);
        for (PartitionUpdate u : extra) m.apply(u);
        m.seal();
        Path dir = Descriptor.tableDir(tmp.resolve("out" + seed), schema.keyspace(), schema.name(), schema.idHex());
        try {
            return new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), dir).dataPath;
        } finally {
            m.discard();
        }
    }

    static String ours(Path schemaFile, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        List<String> a = new ArrayList<>(List.of("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW)));
        a.addAll(List.of(args));
        int status = Main.run(a.toArray(new String[0]), System.in, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Two range deletions that touch at 'c' with different timestamps: a bound, a boundary and a bound. */
    static PartitionUpdate touchingRanges(int key) {
        byte[][] a = {"a".getBytes(StandardCharsets.UTF_8)}, c = {"c".getBytes(StandardCharsets.UTF_8)},
                e = {"e".getBytes(StandardCharsets.UTF_8)};
        return new PartitionUpdate(dev.flushline.data.PartitionKey.of(java.nio.ByteBuffer.allocate(4).putInt(key).array()),
                dev.flushline.data.DeletionTime.LIVE,
                List.of(new dev.flushline.data.RangeTombstone(dev.flushline.data.ClusteringBound.start(true, a),
                                dev.flushline.data.ClusteringBound.end(true, c), dev.flushline.data.DeletionTime.of(1_700_000_000_000_100L, NOW)),
                        new dev.flushline.data.RangeTombstone(dev.flushline.data.ClusteringBound.start(false, c),
                                dev.flushline.data.ClusteringBound.end(false, e), dev.flushline.data.DeletionTime.of(1_700_000_000_000_200L, NOW))),
                null, List.of());
    }

    /** The dump exercised what the class comment promises. */
    static void assertCovers(String dump, String... features) {
        for (String f : features) assertTrue(dump.contains(f), "the dump has no " + f);
    }

    void compare(String cql, Path data, String... options) throws IOException {
        Path schemaFile = Files.writeString(tmp.resolve("schema.cql"), cql);
        String[] args = new String[options.length + 1];
        args[0] = data.toString();
        System.arraycopy(options, 0, args, 1, options.length);
        SSTableDumpOracle.Output expected = SSTableDumpOracle.run(tmp.resolve("dump"), args);
        assertEquals(0, expected.status(), expected.stderr());
        assertTrue(expected.stdout().length() > 10, expected.stdout() + expected.stderr());
        lastExpected = expected.stdout();
        String actual = ours(schemaFile, args);
        if (!expected.stdout().equals(actual)) {
            int i = 0;
            while (i < Math.min(actual.length(), expected.stdout().length()) && actual.charAt(i) == expected.stdout().charAt(i)) i++;
            int from = Math.max(0, i - 300);
            assertEquals(expected.stdout().substring(from, Math.min(expected.stdout().length(), i + 300)),
                    actual.substring(from, Math.min(actual.length(), i + 300)), "first difference at char " + i + " for " + List.of(options));
        }
    }

    @Test
    void everyTypeDefaultAndRawTimestamps() throws IOException {
        CassandraOracle.init();
        String cql = withCompression(TYPES, false);
        Path data = flush(cql, 1, 6, 8, 120);
        compare(cql, data);
        assertCovers(lastExpected, "\"static_block\"", "\"liveness_info\"", "\"ttl\"", "\"expired\"", "\"path\"",
                "\"range_tombstone_bound\"", "\"deletion_info\" : { \"local_delete_time\"", "\"marked_deleted\"");
        compare(cql, data, "-t");
        compare(cql, data, "-d");
    }

    @Test
    void jsonLinesAndKeysCompressed() throws IOException {
        CassandraOracle.init();
        String cql = withCompression(SIMPLE, true);
        Path data = flush(cql, 2, 300, 6, 2000, touchingRanges(7_000_001));
        compare(cql, data, "-l");
        assertCovers(lastExpected, "\"range_tombstone_boundary\"", "\"range_tombstone_bound\"", "\"static_block\"");
        // a partition deletion (partition-level deletion_info)
        assertTrue(lastExpected.matches("(?s).*\"position\":\\d+,\"deletion_info\".*"), "no partition deletion in the dump");
        List<Partition> partitions = CassandraReader.readAll(data, cql);
        // Keys from the start, the middle and the end (Summary.db samples every 128th), and one that is absent.
        String k1 = Integer.toString(java.nio.ByteBuffer.wrap(partitions.get(0).key().toArray()).getInt());
        String k2 = Integer.toString(java.nio.ByteBuffer.wrap(partitions.get(partitions.size() / 2).key().toArray()).getInt());
        String k3 = Integer.toString(java.nio.ByteBuffer.wrap(partitions.get(partitions.size() - 1).key().toArray()).getInt());
        compare(cql, data, "-k", k2, "-k", k1, "-k", "123456789", "-k", k3);
    }

    @Test
    void cassandraWrittenWithEveryType() throws IOException {
        CassandraOracle.init();
        String cql = withCompression(TYPES, true);
        Path ours = flush(cql, 3, 5, 6, 100);
        List<Partition> content = CassandraReader.readAll(ours, cql);
        TableSchema schema = CqlParser.parse(cql);
        Path dir = Descriptor.tableDir(tmp.resolve("ref"), schema.keyspace(), schema.name(), schema.idHex());
        Path ref = CassandraReferenceWriter.write(dir, cql, content, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH,
                0, content.size(), true);
        compare(cql, ref);
        // -k with a two-column key: the values joined by ':'.
        java.nio.ByteBuffer k = content.get(content.size() / 2).key().toBuffer();
        long p1 = k.getShort() == 8 ? k.getLong() : -1;
        k.get();
        byte[] p2 = new byte[k.getShort()];
        k.get(p2);
        compare(cql, ref, "-k", p1 + ":" + new String(p2, StandardCharsets.UTF_8));
    }

    /** Random schemas (every type in keys, clusterings and values; DESC; statics). Each comparison starts a JVM: few seeds. */
    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5})
    void randomSchemas(long seed) throws IOException {
        CassandraOracle.init();
        String cql = withCompression(dev.flushline.testing.RandomSchemas.randomTable(seed), seed % 2 == 0);
        Path data = flush(cql, seed, 8, 6, 150);
        compare(cql, data, seed % 3 == 0 ? new String[] {"-l"} : seed % 3 == 1 ? new String[0] : new String[] {"-d"});
    }

    @Test
    void usage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"dump", "--help"}, System.in, new PrintStream(out), new PrintStream(err)));
        assertTrue(out.toString().contains("-k KEY"));
        assertEquals(1, Main.run(new String[] {"dump", "x"}, System.in, new PrintStream(out), new PrintStream(err)));
        assertTrue(err.toString().contains("--schema"));
        try (Stream<Path> s = Stream.empty()) {
            assertEquals(0, s.count());
        }
    }
}
