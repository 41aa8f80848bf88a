package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.data.Murmur3;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.TokenRanges;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code flushline compact} end to end: discovery of the inputs, the skipped leftover, the log
 * lines, outputs split by range and by size that hold what one output holds, and bad inputs that
 * fail with exit 1, name file and reason and publish nothing, while the inputs stay untouched.
 */
class CompactCommandTest {
    static final String CQL = "CREATE TABLE ks.events (id int, seq int, kind text, body text, tags set<text>, "
            + "PRIMARY KEY (id, seq)) WITH CLUSTERING ORDER BY (seq DESC) AND compression = {'enabled': 'false'}";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    record Run(int status, String out, String err) {}

    static Run compact(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        String[] argv = new String[args.length + 1];
        argv[0] = "compact";
        System.arraycopy(args, 0, argv, 1, args.length);
        int status = Main.run(argv, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true), new PrintStream(err, true));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Three flushes of overlapping operations into root/ks/events-<id>/. */
    static Path writeInputs(Path root, String cql, int updatesPerFlush) throws Exception {
        TableSchema schema = CqlParser.parse(cql);
        Path tableDir = Descriptor.tableDir(root, schema.keyspace(), schema.name(), schema.idHex());
        TableDirectory dir = TableDirectory.open(tableDir);
        RandomUpdates gen = new RandomUpdates(schema, 42, NOW, 40, 20);
        for (int i = 0; i < 3; i++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (PartitionUpdate u : gen.next(updatesPerFlush)) m.apply(u);
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), dir, true, null, 0);
            } finally {
                m.discard();
            }
        }
        return tableDir;
    }

    static Map<String, String> digests(Path dir) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))));
            }
        }
        return out;
    }

    Path schemaFile(String cql) throws Exception {
        Path f = tmp.resolve("table-" + Integer.toHexString(cql.hashCode()) + ".cql");
        Files.writeString(f, cql);
        return f;
    }

    static List<Path> published(Path outTable) throws Exception {
        List<Path> out = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(outTable)) out.add(f.path(dev.flushline.sstable.Component.DATA));
        return out;
    }

    @Test
    void compactsSkipsLeftoversAndLeavesInputsAlone() throws Exception {
        CassandraOracle.init();
        Path in = tmp.resolve("in");
        Path tableDir = writeInputs(in, CQL, 300);
        // A leftover: a Data.db whose generation has no TOC.txt.
        Files.write(tableDir.resolve("oa-99-big-Data.db"), new byte[] {1, 2, 3});
        Map<String, String> before = digests(in);
        Path out = tmp.resolve("out");
        Run r = compact("--schema", schemaFile(CQL).toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", String.valueOf(NOW), "--gc-grace", "0");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("left alone: " + tableDir.resolve("oa-99-big-Data.db")), r.out());
        assertTrue(r.out().matches("(?s).*Compacted \\([0-9a-f-]{36}\\) 3 sstables to \\[.*oa-1-big-Data.db\\] to level=0\\. .*"
                + "Partition merge counts were \\{.*\\}\\. Time spent writing keys = .*ms\n.*"), r.out());
        assertTrue(r.out().contains("cpu time: "), r.out());
        assertEquals(before, digests(in), "inputs are never modified");

        TableSchema schema = CqlParser.parse(CQL);
        Path outTable = Descriptor.tableDir(out, schema.keyspace(), schema.name(), schema.idHex());
        List<Path> outputs = published(outTable);
        assertEquals(1, outputs.size());
        SSTableVerifier.verify(SSTableFiles.of(outputs.get(0)), schema, true);
        assertEquals(List.of(), CassandraVerifier.verify(outTable, CQL));
        List<Partition> one = CassandraReader.readAll(outTable, CQL);
        assertFalse(one.isEmpty());

        // Split by range: the same partitions, each sstable within its range.
        Path ranged = tmp.resolve("ranged");
        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--out", ranged.toString(),
                "--now", String.valueOf(NOW), "--gc-grace", "0", "--ranges", "4");
        assertEquals(0, r.status(), r.err());
        Path rangedTable = Descriptor.tableDir(ranged, schema.keyspace(), schema.name(), schema.idHex());
        List<Path> parts = published(rangedTable);
        assertTrue(parts.size() > 1 && parts.size() <= 4, parts.toString());
        List<Partition> all = new ArrayList<>();
        long[] splits = TokenRanges.evenSplits(4);
        int lastRange = -1;
        for (Path p : parts) {
            List<Partition> ps = CassandraReader.readAll(p, CQL);
            int range = rangeOf(ps.get(0), splits);
            assertTrue(range > lastRange, "one sstable per range, in order");
            for (Partition x : ps) assertEquals(range, rangeOf(x, splits), p + " holds " + x.key());
            lastRange = range;
            all.addAll(ps);
        }
        assertEquals(one, all);

        // --compression lz4 over uncompressed inputs: LZ4 outputs holding the same partitions.
        Path compressed = tmp.resolve("lz4");
        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--out", compressed.toString(),
                "--now", String.valueOf(NOW), "--gc-grace", "0", "--compression", "lz4");
        assertEquals(0, r.status(), r.err());
        Path lz4Table = Descriptor.tableDir(compressed, schema.keyspace(), schema.name(), schema.idHex());
        List<Path> lz4Out = published(lz4Table);
        assertTrue(SSTableFiles.of(lz4Out.get(0)).isCompressed(), "CompressionInfo.db written");
        String lz4Cql = CQL.replace("compression = {'enabled': 'false'}", "compression = {'class': 'LZ4Compressor'}");
        assertEquals(one, CassandraReader.readAll(lz4Table, lz4Cql));
        SSTableVerifier.verify(SSTableFiles.of(lz4Out.get(0)), schema.withCompression(TableSchema.Compression.LZ4, 16 * 1024), true);

        // Three threads, each compacting a third of the ring: at least one sstable per slice, the same partitions.
        Path threaded = tmp.resolve("threaded");
        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--out", threaded.toString(),
                "--now", String.valueOf(NOW), "--gc-grace", "0", "--threads", "3");
        assertEquals(0, r.status(), r.err());
        Path threadedTable = Descriptor.tableDir(threaded, schema.keyspace(), schema.name(), schema.idHex());
        List<Path> slices = published(threadedTable);
        assertEquals(3, slices.size(), slices.toString());
        List<Partition> sliced = new ArrayList<>();
        for (Path p : slices) sliced.addAll(CassandraReader.readAll(p, CQL));
        sliced.sort(java.util.Comparator.comparingLong(CompactCommandTest::tokenOf));
        assertEquals(one, sliced);
        assertTrue(r.out().contains("cells: read "), r.out());

        // Split by size: a new sstable at a partition boundary once one passes the limit.
        TableDirectory sized = TableDirectory.open(tmp.resolve("sized"));
        dev.flushline.compaction.Compactor.Options o = dev.flushline.compaction.Compactor.Options.builder(NOW, NOW).maxSSTableBytes(2048).build();
        dev.flushline.compaction.Compactor.Result res = new dev.flushline.compaction.Compactor(schema, SSTableFiles.inDirectory(tableDir), o).run(sized);
        assertTrue(res.published.size() > 2, res.published.toString());
        List<Partition> bySize = new ArrayList<>();
        for (Path p : res.published) bySize.addAll(CassandraReader.readAll(p, CQL));
        assertEquals(one, bySize);
    }

    @Test
    void inPlaceReplacesTheInputsWithTheOutputs() throws Exception {
        CassandraOracle.init();
        Path in = tmp.resolve("in");
        Path tableDir = writeInputs(in, CQL, 200);
        TableSchema schema = CqlParser.parse(CQL);
        Path ref = tmp.resolve("ref");
        Run r = compact("--schema", schemaFile(CQL).toString(), "--input", in.toString(), "--out", ref.toString(),
                "--now", String.valueOf(NOW + 60_000), "--gc-grace", "3600");
        assertEquals(0, r.status(), r.err());
        List<Partition> expected = CassandraReader.readAll(Descriptor.tableDir(ref, schema.keyspace(), schema.name(), schema.idHex()), CQL);
        List<Path> inputs = published(tableDir);
        assertEquals(3, inputs.size());

        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--in-place",
                "--now", String.valueOf(NOW + 60_000), "--gc-grace", "3600");
        assertEquals(0, r.status(), r.err());
        List<Path> now = published(tableDir);
        assertEquals(1, now.size(), now.toString());
        for (Path p : inputs) assertFalse(Files.exists(p), p + " was replaced");
        try (Stream<Path> files = Files.list(tableDir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).toList();
            for (String n : names) assertTrue(n.startsWith("oa-4-big-"), "only the output is left: " + names);
        }
        assertEquals(expected, CassandraReader.readAll(tableDir, CQL));
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, CQL));

        // --in-place and --out exclude each other.
        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--in-place", "--out", ref.toString());
        assertEquals(1, r.status());
        assertTrue(r.err().contains("drop --out"), r.err());
    }

    /**
     * One table directory holding oa (ours), nb (our load) and da (Cassandra's flush) sstables:
     * {@code --in-place} replaces them all with one oa sstable, then converts that to nb, each
     * read by cassandra-all as the compaction of the mixed inputs to {@code --out}, then to da.
     */
    @Test
    void inPlaceTakesInputsOfEveryVersionAndConvertsBetweenThem() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path root = tmp.resolve("mixed");
        Path tableDir = writeInputs(root, CQL, 200); // oa-1..3
        Path ops = Files.writeString(tmp.resolve("ops.jsonl"), String.join("\n",
                "{\"op\":\"insert\",\"timestamp\":1750000000000000,\"values\":{\"id\":1,\"seq\":1,\"kind\":\"nb\",\"tags\":[\"a\"]}}",
                "{\"op\":\"insert\",\"timestamp\":1750000000000001,\"ttl\":86400,\"values\":{\"id\":2000,\"seq\":7,\"body\":\"from nb\"}}",
                "{\"op\":\"delete\",\"timestamp\":1750000000000002,\"key\":{\"id\":2001}}", ""));
        Run load = run("load", "--schema", schemaFile(CQL).toString(), "--input", ops.toString(), "--out", root.toString(),
                "--now", String.valueOf(NOW), "--sstable-version", "nb");
        assertEquals(0, load.status(), load.err());
        dev.flushline.testing.FlushedModel m = dev.flushline.testing.FlushedModel.of(schema, CQL,
                new RandomUpdates(schema, 77, NOW, 30, 8), 300, tmp.resolve("scratch"));
        dev.flushline.oracle.CassandraReferenceWriter.writeAsFlush(tableDir, CQL, m.partitions(), m.stats().minTimestamp(),
                m.stats().minLocalDeletionTime(), m.stats().minTtl(), m.partitions().size(), "da",
                org.apache.cassandra.config.Config.FlushCompression.table);
        List<String> versions = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(tableDir)) versions.add(f.version() + "-" + f.path(dev.flushline.sstable.Component.DATA).getFileName());
        assertEquals(List.of("oa-oa-1-big-Data.db", "oa-oa-2-big-Data.db", "oa-oa-3-big-Data.db", "nb-nb-4-big-Data.db", "da-da-5-bti-Data.db"),
                versions);

        String now = String.valueOf(NOW + 60_000);
        Path ref = tmp.resolve("ref");
        Run r = compact("--schema", schemaFile(CQL).toString(), "--input", root.toString(), "--out", ref.toString(), "--now", now,
                "--gc-grace", "3600");
        assertEquals(0, r.status(), r.err());
        List<Partition> expected = CassandraReader.readAll(Descriptor.tableDir(ref, schema.keyspace(), schema.name(), schema.idHex()), CQL);
        assertTrue(expected.size() > 30, "the inputs hold data: " + expected.size());

        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--in-place", "--now", now, "--gc-grace", "3600");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("Compacted (") && r.out().contains(" 5 sstables to [" + tableDir.resolve("oa-6-big-Data.db")), r.out());
        assertEquals(List.of("oa-6-big-"), prefixesIn(tableDir), "only the output is left");
        assertEquals(expected, CassandraReader.readAll(tableDir, CQL));

        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--in-place", "--now", now, "--gc-grace", "3600",
                "--sstable-version", "nb");
        assertEquals(0, r.status(), r.err());
        assertEquals(List.of("nb-7-big-"), prefixesIn(tableDir), "converted to nb");
        assertEquals(expected, CassandraReader.readAll(tableDir, CQL));
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, CQL));

        r = compact("--schema", schemaFile(CQL).toString(), "--input", tableDir.toString(), "--in-place", "--now", now, "--gc-grace", "3600",
                "--sstable-version", "da");
        assertEquals(0, r.status(), r.err());
        assertEquals(List.of("da-8-bti-"), prefixesIn(tableDir), "converted to da");
        assertEquals(expected, CassandraReader.readAll(tableDir, CQL));
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, CQL));
    }

    /** The distinct sstable file name prefixes ({@code oa-6-big-}) of every file in {@code dir}, hidden files failing the check. */
    private static List<String> prefixesIn(Path dir) throws Exception {
        java.util.TreeSet<String> out = new java.util.TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                String n = p.getFileName().toString();
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("^([a-z]{2}-\\d+-[a-z]+-).+$").matcher(n);
                out.add(m.matches() ? m.group(1) : n);
            }
        }
        return List.copyOf(out);
    }

    static Run run(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(argv, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true), new PrintStream(err, true));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static long tokenOf(Partition p) {
        byte[] key = p.key().toBuffer().array();
        return Murmur3.token(key, 0, key.length);
    }

    private static int rangeOf(Partition p, long[] splits) {
        long token = tokenOf(p);
        int r = 0;
        while (r < splits.length && token >= splits[r]) r++;
        return r;
    }

    @Test
    void badInputsFailNamingTheFileAndPublishNothing() throws Exception {
        CassandraOracle.init();
        Path in = tmp.resolve("in");
        Path tableDir = writeInputs(in, CQL, 100);
        TableSchema schema = CqlParser.parse(CQL);

        // A header column the schema lacks: compact with a schema that has no 'kind'.
        String narrower = CQL.replace("kind text, ", "");
        Path out = tmp.resolve("out1");
        Run r = compact("--schema", schemaFile(narrower).toString(), "--input", tableDir.toString(), "--out", out.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("Statistics.db") && r.err().contains("columns") && r.err().contains("byte offset"), r.err());
        assertNoSSTables(out);

        // A different type.
        String retyped = CQL.replace("body text", "body int");
        out = tmp.resolve("out2");
        r = compact("--schema", schemaFile(retyped).toString(), "--input", tableDir.toString(), "--out", out.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("body"), r.err());
        assertNoSSTables(out);

        // A corrupt Data.db (CRC): the failure names the file and a byte offset.
        Path copy = tmp.resolve("corrupt");
        Path copyTable = Descriptor.tableDir(copy, schema.keyspace(), schema.name(), schema.idHex());
        Files.createDirectories(copyTable);
        try (Stream<Path> files = Files.list(tableDir)) {
            for (Path p : files.toList()) Files.copy(p, copyTable.resolve(p.getFileName()));
        }
        Path data = copyTable.resolve("oa-2-big-Data.db");
        byte[] bytes = Files.readAllBytes(data);
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(data, bytes);
        out = tmp.resolve("out3");
        r = compact("--schema", schemaFile(CQL).toString(), "--input", copy.toString(), "--out", out.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("oa-2-big-Data.db") && r.err().contains("offset"), r.err());
        assertNoSSTables(out);

        // Another version.
        Path old = tmp.resolve("old");
        Files.createDirectories(old);
        try (Stream<Path> files = Files.list(tableDir)) {
            for (Path p : files.toList()) Files.copy(p, old.resolve(p.getFileName().toString().replaceFirst("^oa-", "na-")));
        }
        out = tmp.resolve("out4");
        r = compact("--schema", schemaFile(CQL).toString(), "--input", old.toString(), "--out", out.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("na-") && r.err().contains("version"), r.err());
        assertNoSSTables(out);

        // --out on an input table directory is refused.
        r = compact("--schema", schemaFile(CQL).toString(), "--input", in.toString(), "--out", in.toString());
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("shares input table directory"), r.err());
    }

    private static void assertNoSSTables(Path out) throws Exception {
        if (!Files.exists(out)) return;
        try (Stream<Path> files = Files.walk(out)) {
            List<Path> tocs = files.filter(p -> p.getFileName().toString().endsWith("TOC.txt")).toList();
            assertEquals(List.of(), tocs, "nothing published");
        }
    }
}
