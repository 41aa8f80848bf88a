package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushResult;
import dev.flushline.flush.FlushWriter;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.io.DataFileLayout;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.CassandraRewrites;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.SSTableDumpOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of sstable Cassandra 5.0.9 writes, with no compression and with each codec, read by
 * our {@code dump}, {@code verify} and {@code compact}: a memtable flush (Cassandra's writer in a
 * FLUSH transaction, flush_compression table), a compaction task (what a node and
 * {@code nodetool compact} run) over inputs of three sizes and over two of them, so that chunks and
 * CRC.db entries end unevenly, an nb sstable and {@code upgradesstables} of it, {@code scrub}, and
 * CQLSSTableWriter. (An nb node's own flush and compaction: {@code NbNodeImportTest}.)
 *
 * <p>For each: our dump prints what Cassandra's sstabledump prints, byte for byte (all dumps of a
 * codec in one tool JVM); our verify passes, as Cassandra's verifier does, and still reports a
 * flipped Data.db byte, with Digest.crc32 and without it (then the chunk CRCs or CRC.db must catch
 * it); our compaction of each kind's sstables gives Cassandra's compaction's content and bytes.
 * The rewrites are checked to have left the empty last chunk their writers add, so the leniency
 * that accepts it is exercised.
 */
class CassandraWrittenSSTablesTest {
    static final long NOW = FixedClock.FIXED_MILLIS / 1000;
    static final int GC_GRACE = 864_000;
    /**
     * A table per codec (%s): CQLSSTableWriter keeps the first definition of a table name it sees in
     * a JVM, compression included, so one name for all would write every codec's sstables uncompressed.
     */
    static final String CQL = "CREATE TABLE ks.kinds_%s (pk int, ck text, s text static, v int, w text, b blob, tags set<text>, "
            + "m map<text, int>, PRIMARY KEY (pk, ck))";

    @TempDir
    Path tmp;

    static Stream<Arguments> compressions() {
        return Stream.of(Arguments.of("none", Compressions.NONE), Arguments.of("lz4", Compressions.LZ4),
                Arguments.of("zstd", Compressions.ZSTD), Arguments.of("snappy", Compressions.SNAPPY),
                Arguments.of("deflate", Compressions.DEFLATE), Arguments.of("noop", Compressions.NOOP));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressions")
    void everyKindReadsAsCassandraReadsIt(String codec, String compression) throws Exception {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = Compressions.with(String.format(CQL, codec), compression);
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = Files.writeString(tmp.resolve("schema.cql"), cql);
        Path scratch = Files.createDirectories(tmp.resolve("scratch"));

        // Three memtables' worth of operations, small, medium and large, as Cassandra's flush writes them.
        Path flush = Files.createDirectories(tmp.resolve("flush"));
        int[][] sizes = {{3, 4, 20}, {30, 12, 700}, {60, 30, 3500}};
        List<Path> flushed = new ArrayList<>();
        List<List<Partition>> models = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            Model model = model(schema, cql, 100 + i, sizes[i], scratch.resolve("m" + i));
            models.add(model.partitions);
            flushed.add(CassandraReferenceWriter.writeAsFlush(flush, cql, model.partitions, model.stats.minTimestamp(),
                    model.stats.minLocalDeletionTime(), model.stats.minTtl(), model.partitions.size(), null, Config.FlushCompression.table));
        }

        // A compaction task over all three, and one over the two smaller ones: two output sizes.
        Path compaction = tmp.resolve("compaction");
        CassandraRewrites.compact(copies(flushed, scratch.resolve("c1")), cql, NOW - GC_GRACE, compaction);
        CassandraRewrites.compact(copies(flushed.subList(0, 2), scratch.resolve("c2")), cql, NOW - GC_GRACE, compaction);

        // nb, and upgradesstables of it.
        Path nb = Files.createDirectories(tmp.resolve("nb"));
        Model nbModel = model(schema, cql, 200, sizes[1], scratch.resolve("nbm"));
        Path nbData = CassandraReferenceWriter.writeAsFlush(nb, cql, nbModel.partitions, nbModel.stats.minTimestamp(),
                nbModel.stats.minLocalDeletionTime(), nbModel.stats.minTtl(), nbModel.partitions.size(), "nb", Config.FlushCompression.table);
        Path upgrade = tmp.resolve("upgrade");
        CassandraRewrites.upgrade(copies(List.of(nbData), scratch.resolve("u")).get(0), cql, upgrade);

        // scrub of a large flush. Without range deletions: Cassandra 5.0's scrubber casts every unfiltered to a row
        // (SortedTableScrubber.RowMergingSSTableIterator), so it drops each partition holding a range tombstone
        // marker, and its output then counts in Statistics.db the rows of the partitions it cut off.
        Path scrub = tmp.resolve("scrub");
        Model scrubModel = model(schema, cql, 300, sizes[2], scratch.resolve("sm"), false);
        Path scrubInput = CassandraReferenceWriter.writeAsFlush(Files.createDirectories(scratch.resolve("s")), cql, scrubModel.partitions,
                scrubModel.stats.minTimestamp(), scrubModel.stats.minLocalDeletionTime(), scrubModel.stats.minTtl(),
                scrubModel.partitions.size(), null, Config.FlushCompression.table);
        CassandraRewrites.scrub(scrubInput, cql, scrub);

        // CQLSSTableWriter.
        Path bulk = Files.createDirectories(tmp.resolve("cqlsstablewriter"));
        writeWithCqlSSTableWriter(bulk, cql, "ks.kinds_" + codec, 300);

        Map<String, Path> kinds = new LinkedHashMap<>();
        kinds.put("flush", flush);
        kinds.put("compaction", compaction);
        kinds.put("nb", nb);
        kinds.put("upgradesstables", upgrade);
        kinds.put("scrub", scrub);
        kinds.put("CQLSSTableWriter", bulk);
        for (Path dir : kinds.values()) {
            for (SSTableFiles f : SSTableFiles.inDirectory(dir)) {
                assertEquals(schema.compressionParams().isEnabled(), f.isCompressed(), dir + ": " + f);
                if (f.isCompressed()) {
                    try (DataChunks c = DataChunks.open(f, true)) {
                        assertEquals(schema.compressionParams(), c.compression(), dir + ": the table's compression");
                    }
                }
            }
        }

        int extraChunks = 0;
        List<String[]> dumpJobs = new ArrayList<>();
        for (Map.Entry<String, Path> kind : kinds.entrySet()) {
            String what = kind.getKey() + " " + compression;
            List<SSTableFiles> sstables = SSTableFiles.inDirectory(kind.getValue());
            assertTrue(!sstables.isEmpty(), what + ": Cassandra wrote nothing into " + kind.getValue());
            assertEquals(List.of(), CassandraVerifier.verify(kind.getValue(), cql), what + ": Cassandra's verifier");
            for (SSTableFiles f : sstables) {
                Path data = f.path(dev.flushline.sstable.Component.DATA);
                dumpJobs.add(new String[] {data.toString()});
                extraChunks += extraChunks(f);
                System.out.println(what + ": " + data.getFileName() + " " + Files.size(data) + " bytes, extra chunks "
                        + extraChunks(f));
            }
            verifyPassesAndCatchesFlips(schemaFile, kind.getValue(), what);
            compactsAsCassandra(schemaFile, cql, kind.getValue(), what);
        }
        assertTrue(extraChunks > 0, compression + ": no rewrite left the empty last chunk its writer adds");

        // our dump = sstabledump, for every sstable of every kind (one tool JVM for them all)
        dumpJobs.add(new String[] {SSTableFiles.inDirectory(compaction).get(0).path(dev.flushline.sstable.Component.DATA).toString(), "-d"});
        List<SSTableDumpOracle.Output> expected = SSTableDumpOracle.runMany(tmp.resolve("dump"), dumpJobs);
        for (int i = 0; i < dumpJobs.size(); i++) {
            String[] job = dumpJobs.get(i);
            assertEquals(0, expected.get(i).status(), List.of(job) + ": " + expected.get(i).stderr());
            assertTrue(expected.get(i).stdout().length() > 10, List.of(job) + ": " + expected.get(i).stdout());
            String ours = DumpCommandTest.ours(schemaFile, job);
            String e = expected.get(i).asFlushlinePrints(job);
            if (!e.equals(ours)) {
                int k = 0;
                while (k < Math.min(ours.length(), e.length()) && ours.charAt(k) == e.charAt(k)) k++;
                int from = Math.max(0, k - 300);
                assertEquals(e.substring(from, Math.min(e.length(), k + 300)), ours.substring(from, Math.min(ours.length(), k + 300)),
                        compression + " " + List.of(job) + ": first difference at char " + k);
            }
        }
    }

    record Model(List<Partition> partitions, EncodingStats stats) {}

    /**
     * Random operations through our memtable, as cassandra-all reads back our flush of them: the
     * partitions a node's memtable would hold, and the EncodingStats its flush would use.
     */
    static Model model(TableSchema schema, String cql, long seed, int[] size, Path dir) throws IOException {
        return model(schema, cql, seed, size, dir, true);
    }

    static Model model(TableSchema schema, String cql, long seed, int[] size, Path dir, boolean rangeDeletes) throws IOException {
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, size[0], size[1]);
        if (!rangeDeletes) gen.rangeDeleteChance = 0;
        return model(schema, cql, gen, size[2], dir);
    }

    /** As above, with the generator's knobs set by the caller: {@code operations} of {@code gen}. */
    static Model model(TableSchema schema, String cql, RandomUpdates gen, int operations, Path dir) throws IOException {
        dev.flushline.testing.FlushedModel m = dev.flushline.testing.FlushedModel.of(schema, cql, gen, operations, dir);
        return new Model(m.partitions(), m.stats());
    }

    static void writeWithCqlSSTableWriter(Path dir, String cql, String table, int rows) throws IOException {
        Random r = new Random(17);
        String insert = "INSERT INTO " + table + " (pk, ck, s, v, w, b, tags, m) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?";
        try (CQLSSTableWriter w = CQLSSTableWriter.builder().inDirectory(dir.toString()).forTable(cql).using(insert).build()) {
            for (int i = 0; i < rows; i++) {
                byte[] blob = new byte[r.nextInt(200)];
                r.nextBytes(blob);
                w.addRow(r.nextInt(40), "ck" + r.nextInt(50), r.nextInt(4) == 0 ? null : "static " + r.nextInt(9), r.nextInt(),
                        r.nextInt(5) == 0 ? null : "text ".repeat(r.nextInt(30)) + i, ByteBuffer.wrap(blob),
                        Set.of("t" + r.nextInt(5), "u" + r.nextInt(5)), Map.of("k" + r.nextInt(3), r.nextInt()),
                        1_700_000_000_000_000L + i, r.nextInt(3) == 0 ? 3600 : 0);
            }
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Copies each sstable (every component) into {@code dir}; returns the copies' Data.db paths. */
    static List<Path> copies(List<Path> dataFiles, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> out = new ArrayList<>();
        for (Path data : dataFiles) {
            String prefix = data.getFileName().toString().replace("Data.db", "");
            try (Stream<Path> s = Files.list(data.getParent())) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    if (p.getFileName().toString().startsWith(prefix)) Files.copy(p, dir.resolve(p.getFileName()));
                }
            }
            out.add(dir.resolve(data.getFileName()));
        }
        return out;
    }

    /** Chunks the file holds past the ones its data needs: extra CompressionInfo.db offsets, or extra CRC.db entries. */
    static int extraChunks(SSTableFiles f) throws IOException {
        if (f.isCompressed()) {
            try (DataChunks c = DataChunks.open(f, true)) {
                return c.extraChunkCount();
            }
        }
        long dataBytes = Files.size(f.path(dev.flushline.sstable.Component.DATA));
        ByteBuffer crc = ByteBuffer.wrap(Files.readAllBytes(f.path(dev.flushline.sstable.Component.CRC)));
        int chunk = crc.getInt();
        long needed = Math.max(1, (dataBytes + chunk - 1) / chunk);
        assertEquals(DataFileLayout.CRC_CHUNK_BYTES, chunk);
        return (int) (crc.remaining() / 4 - needed);
    }

    static VerifyCommandTest.Result verify(Path schemaFile, Path dir) {
        return VerifyCommandTest.verify(schemaFile, dir.toString());
    }

    void verifyPassesAndCatchesFlips(Path schemaFile, Path dir, String what) throws IOException {
        VerifyCommandTest.Result ok = verify(schemaFile, dir);
        assertEquals(0, ok.status(), what + ": " + ok.out() + ok.err());
        for (String line : ok.out().split("\n")) assertTrue(line.startsWith("OK "), what + ": " + line);

        for (boolean withDigest : new boolean[] {true, false}) {
            Path copy = Files.createTempDirectory(tmp, "flip");
            List<Path> datas = new ArrayList<>();
            for (SSTableFiles f : SSTableFiles.inDirectory(dir)) datas.add(f.path(dev.flushline.sstable.Component.DATA));
            Path data = copies(List.of(datas.get(datas.size() - 1)), copy).get(0);
            String prefix = data.getFileName().toString().replace("Data.db", "");
            if (!withDigest) {
                Files.delete(copy.resolve(prefix + "Digest.crc32"));
                Path toc = copy.resolve(prefix + "TOC.txt");
                List<String> lines = new ArrayList<>(Files.readAllLines(toc));
                assertTrue(lines.remove("Digest.crc32"), what + ": TOC.txt lists no digest: " + lines);
                Files.write(toc, lines);
            }
            byte[] bytes = Files.readAllBytes(data);
            bytes[bytes.length / 2] ^= 0x10;
            Files.write(data, bytes);
            VerifyCommandTest.Result bad = verify(schemaFile, copy);
            assertEquals(1, bad.status(), what + (withDigest ? "" : " without Digest.crc32") + ": a flipped byte passed: " + bad.out());
            assertTrue(bad.out().startsWith("CORRUPT "), what + ": " + bad.out() + bad.err());
        }
    }

    void compactsAsCassandra(Path schemaFile, String cql, Path dir, String what) throws IOException {
        Path ours = tmp.resolve("ours-" + dir.getFileName());
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"compact", "--schema", schemaFile.toString(), "--input", dir.toString(), "--out",
                ours.toString(), "--now", Long.toString(NOW)}, System.in, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, what + ": " + out + err);
        List<Path> inputs = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) inputs.add(f.path(dev.flushline.sstable.Component.DATA));
        Path refData = CassandraCompactor.compact(inputs, cql, tmp.resolve("ref-" + dir.getFileName()), NOW, NOW - GC_GRACE);
        Path ourData;
        try (Stream<Path> s = Files.walk(ours)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).toList();
            assertEquals(1, found.size(), what + ": " + found);
            ourData = found.get(0);
        }
        assertEquals(CassandraReader.readAll(refData, cql), CassandraReader.readAll(ourData, cql), what + ": compacted content");
        TableSchema schema = CqlParser.parse(cql);
        for (String component : new String[] {"Data.db", "Index.db", "Summary.db", "Statistics.db", "Digest.crc32", "TOC.txt",
                schema.compressionParams().isEnabled() ? "CompressionInfo.db" : "CRC.db"}) {
            assertArrayEquals(Files.readAllBytes(sibling(refData, component)), Files.readAllBytes(sibling(ourData, component)),
                    what + ": compacted " + component);
        }
    }

    static Path sibling(Path dataFile, String component) {
        String name = dataFile.getFileName().toString();
        return dataFile.resolveSibling(name.substring(0, name.length() - "Data.db".length()) + component);
    }
}
