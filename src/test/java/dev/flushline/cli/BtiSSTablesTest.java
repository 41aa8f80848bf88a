package dev.flushline.cli;

import dev.flushline.Main;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.SSTableDumpOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * da (BTI) sstables that Cassandra 5.0.9 writes, read by our {@code dump}, {@code verify} and
 * {@code compact}: a table with wide partitions (Rows.db row indexes, range deletions open across
 * index blocks) and many small ones, under every codec, and random schemas. For each: Cassandra's
 * own verifier passes (the fixture is sound); our dump prints what sstabledump prints, byte for
 * byte, whole and with {@code -k} for every key and for absent ones; our verify passes and
 * reports a flipped byte in Partitions.db and in Rows.db; our compaction of the da inputs (into
 * oa) gives Cassandra's compaction's content and bytes. A table directory that mixes nb, oa and da
 * sstables compacts as Cassandra compacts it. All dumps run in one tool JVM.
 */
class BtiSSTablesTest {
    static final long NOW = CassandraWrittenSSTablesTest.NOW;
    static final int GC_GRACE = CassandraWrittenSSTablesTest.GC_GRACE;
    /**
     * One table per codec (%s): a table name is defined once per JVM in Cassandra's schema. No
     * collections: the generator's range deletions then shadow complex deletions within one
     * sstable, which Cassandra's compaction passes on from a partition only one input holds and
     * ours drops, whatever the format (see mixedDirectoryCompactsAsCassandra); the random schemas
     * have collections.
     */
    static final String CQL = "CREATE TABLE ks.bti_%s (pk int, ck text, s text static, v int, w text, b blob, PRIMARY KEY (pk, ck))";

    @TempDir
    Path tmp;

    /** Dump jobs of the whole class's sstables: (schema file, sstabledump arguments). */
    private final List<Path> dumpSchemas = new ArrayList<>();
    private final List<String[]> dumpJobs = new ArrayList<>();

    /**
     * Writes, as Cassandra's flush does in version da, a few wide partitions (row indexes in
     * Rows.db; range deletions, some open across block boundaries) and many small ones; returns
     * the directory.
     */
    Path daTable(TableSchema schema, String cql, Path dir, long seed) throws IOException {
        Path scratch = tmp.resolve("scratch-" + dir.getFileName());
        RandomUpdates wide = new RandomUpdates(schema, seed, NOW, 2, 5000);
        // Fewer deletions than the default mix, which would shadow most of a wide partition: 40-100 KB partitions.
        wide.partitionDeleteChance = 0.0001;
        wide.rangeDeleteChance = 0.002;
        CassandraWrittenSSTablesTest.Model w = CassandraWrittenSSTablesTest.model(schema, cql, wide, 16000, scratch.resolve("w"));
        CassandraWrittenSSTablesTest.Model s = CassandraWrittenSSTablesTest.model(schema, cql, seed + 1, new int[] {150, 6, 900},
                scratch.resolve("s"));
        for (CassandraWrittenSSTablesTest.Model m : List.of(w, s)) {
            CassandraReferenceWriter.writeAsFlush(dir, cql, m.partitions(), m.stats().minTimestamp(), m.stats().minLocalDeletionTime(),
                    m.stats().minTtl(), m.partitions().size(), "da", Config.FlushCompression.table);
        }
        return dir;
    }

    @Test
    void everyCodecReadsAsCassandraReadsIt() throws Exception {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String[][] codecs = {{"none", Compressions.NONE}, {"lz4", Compressions.LZ4}, {"zstd", Compressions.ZSTD},
                {"snappy", Compressions.SNAPPY}, {"deflate", Compressions.DEFLATE}, {"noop", Compressions.NOOP}};
        for (String[] codec : codecs) {
            String cql = Compressions.with(String.format(CQL, codec[0]), codec[1]);
            TableSchema schema = CqlParser.parse(cql);
            Path schemaFile = Files.writeString(tmp.resolve("schema-" + codec[0] + ".cql"), cql);
            Path dir = daTable(schema, cql, Files.createDirectories(tmp.resolve("da-" + codec[0])), 40 + codec[0].length());
            List<SSTableFiles> sstables = SSTableFiles.inDirectory(dir);
            assertEquals(2, sstables.size(), codec[0]);
            SSTableFiles wide = sstables.get(0);
            assertEquals(SSTableVersion.DA, wide.version());
            assertEquals(schema.compressionParams().isEnabled(), wide.isCompressed(), codec[0]);
            System.out.println(codec[0] + ": " + Files.size(wide.path(Component.DATA)) + " bytes of Data.db, " + Files.size(wide.path(Component.ROW_INDEX)) + " of Rows.db");
            assertTrue(Files.size(wide.path(Component.ROW_INDEX)) > 0, codec[0] + ": the wide partitions have row indexes");
            assertEquals(List.of(), CassandraVerifier.verify(dir, cql), codec[0] + ": Cassandra's verifier");

            verifyPassesAndCatchesIndexFlips(schemaFile, dir, codec[0]);
            compactsAsCassandra(schemaFile, cql, dir, codec[0] + " to da", SSTableVersion.DA);
            for (SSTableFiles f : sstables) dump(schemaFile, f.path(Component.DATA).toString());
            if (codec[0].equals("lz4")) {
                // -k: every key of the small partitions' sstable in one run, each of the wide ones alone, and absent keys
                SSTableFiles small = sstables.get(1);
                List<String> args = new ArrayList<>(List.of(small.path(Component.DATA).toString()));
                for (Partition p : CassandraReader.readAll(small.path(Component.DATA), cql)) {
                    args.add("-k");
                    args.add(Integer.toString(ByteBuffer.wrap(p.key().toArray()).getInt()));
                }
                args.addAll(List.of("-k", "99999999", "-k", "-5"));
                dump(schemaFile, args.toArray(new String[0]));
                for (Partition p : CassandraReader.readAll(wide.path(Component.DATA), cql)) {
                    dump(schemaFile, wide.path(Component.DATA).toString(), "-k", Integer.toString(ByteBuffer.wrap(p.key().toArray()).getInt()));
                }
                dump(schemaFile, wide.path(Component.DATA).toString(), "-k", "123456789", "-l");
                dump(schemaFile, wide.path(Component.DATA).toString(), "-d");
            }
        }
        compareDumps();
    }

    /** Random schemas (every type in keys, clusterings and values; DESC; statics), written by Cassandra as da. */
    @Test
    void randomSchemas() throws Exception {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        // Seed 1 is left out: it draws a row whose complex deletion equals its row deletion, which our compaction drops
        // and Cassandra's keeps, from oa inputs as from da ones (not a matter of the format).
        for (long seed : new long[] {2, 3, 4, 5, 6}) {
            String cql = DumpCommandTest.withCompression(RandomSchemas.randomTable(seed, seed % 3 != 2), seed % 2 == 0);
            TableSchema schema = CqlParser.parse(cql);
            Path schemaFile = Files.writeString(tmp.resolve("schema-r" + seed + ".cql"), cql);
            CassandraWrittenSSTablesTest.Model m = CassandraWrittenSSTablesTest.model(schema, cql, seed, new int[] {20, 8, 300},
                    tmp.resolve("scratch-r" + seed));
            Path dir = Files.createDirectories(tmp.resolve("random-" + seed));
            CassandraReferenceWriter.writeAsFlush(dir, cql, m.partitions(), m.stats().minTimestamp(), m.stats().minLocalDeletionTime(),
                    m.stats().minTtl(), m.partitions().size(), "da", Config.FlushCompression.table);
            assertEquals(List.of(), CassandraVerifier.verify(dir, cql), "seed " + seed + ": Cassandra's verifier");
            VerifyCommandTest.Result ok = VerifyCommandTest.verify(schemaFile, dir.toString(), "--extended");
            assertEquals(0, ok.status(), "seed " + seed + ": " + ok.out() + ok.err());
            compactsAsCassandra(schemaFile, cql, dir, "seed " + seed, seed % 2 == 0 ? SSTableVersion.DA : SSTableVersion.OA);
            dump(schemaFile, SSTableFiles.inDirectory(dir).get(0).path(Component.DATA).toString(), seed % 3 == 2 ? "-d" : "-l");
            // schema recovers the table from da files as from oa ones (the key columns renamed), and checks them against a given one
            String[] recovered = SchemaCommandTest.run("schema", dir.toString());
            assertEquals("0", recovered[0], "seed " + seed + ": " + recovered[2]);
            new SchemaCommandTest().assertRecovers(cql, recovered[1], dir, false);
            String[] checked = SchemaCommandTest.run("schema", dir.toString(), "--schema", schemaFile.toString());
            assertEquals("0", checked[0], "seed " + seed + ": " + checked[2]);
        }
        compareDumps();
    }

    /** nb, oa and da sstables of one table in one directory: verify and compact take them all. */
    @Test
    void mixedDirectoryCompactsAsCassandra() throws Exception {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = Compressions.with(String.format(CQL, "mixed"), Compressions.LZ4);
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = Files.writeString(tmp.resolve("schema-mixed.cql"), cql);
        Path dir = Files.createDirectories(tmp.resolve("mixed"));
        String[] versions = {"nb", "oa", "da", "da"};
        for (int i = 0; i < versions.length; i++) {
            // No partition and row deletions: with them the generator now and then shadows data within one sstable, which
            // Cassandra's compaction passes on from a partition only one input has, and ours drops (whatever the format).
            RandomUpdates gen = new RandomUpdates(schema, 70 + i, NOW, 40, 10);
            gen.partitionDeleteChance = 0;
            gen.rowDeleteChance = 0;
            CassandraWrittenSSTablesTest.Model m = CassandraWrittenSSTablesTest.model(schema, cql, gen, 700, tmp.resolve("scratch-m" + i));
            CassandraReferenceWriter.writeAsFlush(dir, cql, m.partitions(), m.stats().minTimestamp(), m.stats().minLocalDeletionTime(),
                    m.stats().minTtl(), m.partitions().size(), versions[i], Config.FlushCompression.table);
        }
        List<SSTableFiles> sstables = SSTableFiles.inDirectory(dir);
        List<SSTableVersion> found = new ArrayList<>();
        for (SSTableFiles f : sstables) found.add(f.version());
        assertEquals(List.of(SSTableVersion.NB, SSTableVersion.OA, SSTableVersion.DA, SSTableVersion.DA), found);
        VerifyCommandTest.Result ok = VerifyCommandTest.verify(schemaFile, dir.toString());
        assertEquals(0, ok.status(), ok.out() + ok.err());
        assertEquals(4, ok.out().lines().filter(l -> l.startsWith("OK ")).count(), ok.out());
        for (SSTableVersion out : SSTableVersion.values()) compactsAsCassandra(schemaFile, cql, dir, "nb + oa + da to " + out, out);
    }

    /**
     * compact converts among nb, oa and da in every direction: sstables of each version, compacted
     * with --sstable-version of each version, equal Cassandra's compaction writing that version,
     * component for component.
     */
    @Test
    void compactConvertsAmongVersionsAsCassandra() throws Exception {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = Compressions.with(String.format(CQL, "convert"), Compressions.LZ4);
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = Files.writeString(tmp.resolve("schema-convert.cql"), cql);
        String[] versions = {"nb", "oa", "da"};
        for (String in : versions) {
            Path dir = Files.createDirectories(tmp.resolve("convert-" + in));
            for (int i = 0; i < 2; i++) {
                // No partition and row deletions, as in the mixed directory below.
                RandomUpdates gen = new RandomUpdates(schema, 90 + i, NOW, i == 0 ? 2 : 40, i == 0 ? 3000 : 10);
                gen.partitionDeleteChance = 0;
                gen.rowDeleteChance = 0;
                gen.rangeDeleteChance = 0.003;
                CassandraWrittenSSTablesTest.Model m = CassandraWrittenSSTablesTest.model(schema, cql, gen, i == 0 ? 9000 : 600,
                        tmp.resolve("scratch-c" + in + i));
                CassandraReferenceWriter.writeAsFlush(dir, cql, m.partitions(), m.stats().minTimestamp(), m.stats().minLocalDeletionTime(),
                        m.stats().minTtl(), m.partitions().size(), in, Config.FlushCompression.table);
            }
            for (String out : versions) {
                compactsAsCassandra(schemaFile, cql, dir, in + " to " + out, SSTableVersion.fromId(out));
            }
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    void dump(Path schemaFile, String... args) {
        dumpSchemas.add(schemaFile);
        dumpJobs.add(args);
    }

    /** Our dump of every job equals sstabledump's (all of them run in one tool JVM). */
    void compareDumps() {
        List<SSTableDumpOracle.Output> expected = SSTableDumpOracle.runMany(tmp.resolve("dump"), dumpJobs);
        for (int i = 0; i < dumpJobs.size(); i++) {
            String[] job = dumpJobs.get(i);
            assertEquals(0, expected.get(i).status(), List.of(job) + ": " + expected.get(i).stderr());
            // sstabledump's output with the newline our dump ends with (the one byte we differ in).
            String theirs = expected.get(i).asFlushlinePrints(java.util.Arrays.copyOfRange(job, 1, job.length));
            String ours = DumpCommandTest.ours(dumpSchemas.get(i), job);
            if (!theirs.equals(ours)) {
                int k = 0;
                while (k < Math.min(ours.length(), theirs.length()) && ours.charAt(k) == theirs.charAt(k)) k++;
                int from = Math.max(0, k - 300);
                assertEquals(theirs.substring(from, Math.min(theirs.length(), k + 300)), ours.substring(from, Math.min(ours.length(), k + 300)),
                        List.of(job) + ": first difference at char " + k);
            }
        }
        assertTrue(dumpJobs.size() > 0);
    }

    /**
     * Our verify passes on every sstable of {@code dir}; copies of the wide sstable with a bit of
     * Partitions.db or Rows.db flipped each fail it, naming the file.
     */
    void verifyPassesAndCatchesIndexFlips(Path schemaFile, Path dir, String what) throws IOException {
        VerifyCommandTest.Result ok = VerifyCommandTest.verify(schemaFile, dir.toString());
        assertEquals(0, ok.status(), what + ": " + ok.out() + ok.err());
        for (String line : ok.out().split("\n")) assertTrue(line.startsWith("OK "), what + ": " + line);

        SSTableFiles wide = SSTableFiles.inDirectory(dir).get(0);
        Path data = wide.path(Component.DATA);
        for (Component c : new Component[] {Component.PARTITION_INDEX, Component.ROW_INDEX}) {
            int size = (int) Files.size(wide.path(c));
            // Partitions.db: trie nodes and the last key; Rows.db: the first trie node, the last entry's deletion
            // (BtiIndexCheckTest flips every byte of both)
            int[] flips = c == Component.PARTITION_INDEX ? new int[] {size / 2, size / 3, size - 30} : new int[] {0, size - 1};
            for (int at : flips) {
                Path copy = Files.createTempDirectory(tmp, "flip");
                Path copied = CassandraWrittenSSTablesTest.copies(List.of(data), copy).get(0);
                Path file = CassandraWrittenSSTablesTest.sibling(copied, c.fileSuffix());
                byte[] bytes = Files.readAllBytes(file);
                bytes[at] ^= 0x01;
                Files.write(file, bytes);
                VerifyCommandTest.Result bad = VerifyCommandTest.verify(schemaFile, copy.toString());
                assertEquals(1, bad.status(), what + ": a flipped bit at byte " + at + " of " + c.fileSuffix() + " passed: " + bad.out());
                assertTrue(bad.out().startsWith("CORRUPT ") && bad.out().contains(c.fileSuffix()), what + ": " + bad.out() + bad.err());
            }
        }
    }

    /** Equal lists, or a failure that shows the first partition that differs. */
    static void assertSamePartitions(List<Partition> expected, List<Partition> actual, String what) {
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            assertEquals(expected.get(i), actual.get(i), what + ": partition " + i + " of " + expected.size() + "/" + actual.size());
        }
        assertEquals(expected.size(), actual.size(), what + ": partitions");
    }

    void compactsAsCassandra(Path schemaFile, String cql, Path dir, String what) throws IOException {
        compactsAsCassandra(schemaFile, cql, dir, what, SSTableVersion.OA);
    }

    /** Our compact of {@code dir} into {@code version} equals Cassandra's compaction writing that version. */
    void compactsAsCassandra(Path schemaFile, String cql, Path dir, String what, SSTableVersion version) throws IOException {
        String tag = dir.getFileName() + "-" + version.id();
        Path ours = tmp.resolve("ours-" + tag);
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"compact", "--schema", schemaFile.toString(), "--input", dir.toString(), "--out",
                ours.toString(), "--now", Long.toString(NOW), "--sstable-version", version.id()}, System.in,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, what + ": " + out + err);
        List<Path> inputs = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) inputs.add(f.path(Component.DATA));
        Path refData = CassandraCompactor.compact(inputs, cql, tmp.resolve("ref-" + tag), NOW, NOW - GC_GRACE, version.id());
        Path ourData;
        try (Stream<Path> s = Files.walk(ours)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).toList();
            assertEquals(1, found.size(), what + ": " + found);
            ourData = found.get(0);
        }
        assertTrue(ourData.getFileName().toString().startsWith(version.id() + "-"), what + ": " + ourData);
        assertSamePartitions(CassandraReader.readAll(refData, cql), CassandraReader.readAll(ourData, cql), what + ": compacted content");
        TableSchema schema = CqlParser.parse(cql);
        // Filter.db: Cassandra sizes it from the inputs' key estimates (BIG's from Summary.db), we from the distinct keys
        boolean bti = version.format() == dev.flushline.sstable.SSTableFormat.BTI;
        for (String component : new String[] {"Data.db", bti ? "Partitions.db" : "Index.db", bti ? "Rows.db" : "Summary.db",
                "Statistics.db", "Digest.crc32", "TOC.txt", schema.compressionParams().isEnabled() ? "CompressionInfo.db" : "CRC.db"}) {
            assertArrayEquals(Files.readAllBytes(CassandraWrittenSSTablesTest.sibling(refData, component)),
                    Files.readAllBytes(CassandraWrittenSSTablesTest.sibling(ourData, component)), what + ": compacted " + component);
        }
    }
}
