package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.io.VInt;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code flushline verify}: OK on sstables written by us and by Cassandra's own writer, and
 * CORRUPT (naming the file and a byte offset, exit 1) on damaged ones: flipped bytes in every
 * component, files truncated at random points, and length fields that claim far more than the
 * file holds (gigabytes included). Never an exception, a hang or an out-of-memory error.
 */
class VerifyCommandTest {
    static final String CQL_BODY = "CREATE TABLE ks.v (pk int, ck text, s text static, a int, b text, c bigint, "
            + "t set<text>, m map<text, int>, l frozen<list<int>>, PRIMARY KEY (pk, ck))";
    static final long SEED = 20261201L;

    @TempDir
    static Path fixtures;
    static Path schemaNone, schemaLz4;
    /** Table directories, each holding exactly one sstable. */
    static Path manyNone, manyLz4, bigNone, bigLz4, refNone, refLz4;

    @TempDir
    Path tmp;

    static String cql(boolean lz4) {
        return CQL_BODY + (lz4 ? " WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}"
                : " WITH compression = {'enabled': 'false'}");
    }

    static Path flush(Path dir, boolean lz4, int keys, int clusterings, int updates) throws IOException {
        TableSchema schema = CqlParser.parse(cql(lz4));
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(schema, SEED + keys, 1_750_000_000L, keys, clusterings);
        boolean big = keys < 10; // few partitions meant to pass 64 KiB: deletions would shadow their rows
        gen.partitionDeleteChance = big ? 0 : 0.005;
        gen.rangeDeleteChance = big ? 0.001 : 0.005;
        for (PartitionUpdate u : gen.next(updates)) m.apply(u);
        m.seal();
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), true, null, 0);
        } finally {
            m.discard();
        }
        return dir;
    }

    @BeforeAll
    static void writeFixtures() throws IOException {
        CassandraOracle.init();
        schemaNone = Files.writeString(fixtures.resolve("none.cql"), cql(false));
        schemaLz4 = Files.writeString(fixtures.resolve("lz4.cql"), cql(true));
        manyNone = flush(fixtures.resolve("many-none"), false, 400, 8, 3000);
        manyLz4 = flush(fixtures.resolve("many-lz4"), true, 400, 8, 3000);
        bigNone = flush(fixtures.resolve("big-none"), false, 2, 8000, 24000);
        bigLz4 = flush(fixtures.resolve("big-lz4"), true, 2, 8000, 24000);
        List<Partition> content = CassandraReader.readAll(manyNone, cql(false));
        refNone = Files.createDirectories(fixtures.resolve("ref-none"));
        CassandraReferenceWriter.write(refNone, cql(false), content, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH,
                0, content.size(), false);
        refLz4 = Files.createDirectories(fixtures.resolve("ref-lz4"));
        CassandraReferenceWriter.write(refLz4, cql(true), content, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH,
                0, 0, true);
    }

    record Result(int status, String out, String err) {}

    static Result verify(Path schema, String... paths) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        String[] args = new String[paths.length + 3];
        args[0] = "verify";
        args[1] = "--schema";
        args[2] = schema.toString();
        System.arraycopy(paths, 0, args, 3, paths.length);
        int status = Main.run(args, System.in, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Path component(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith("-" + suffix)).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + suffix + " in " + dir));
        }
    }

    Path copy(Path dir) throws IOException {
        Path to = Files.createTempDirectory(tmp, dir.getFileName().toString());
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) Files.copy(p, to.resolve(p.getFileName()));
        }
        return to;
    }

    @Test
    void okOnOursAndCassandras() throws IOException {
        for (Path big : new Path[] {bigNone, bigLz4}) {
            // Two partitions with promoted indexes: Index.db entries far larger than key + position.
            assertTrue(Files.size(component(big, "Index.db")) > 100, "promoted index in " + big);
            assertTrue(Files.size(component(big, "Data.db")) > 64 * 1024 || big == bigLz4, "several CRC chunks in " + big);
        }
        for (Path dir : new Path[] {manyNone, bigNone, refNone}) {
            Result r = verify(schemaNone, dir.toString(), "--extended");
            assertEquals(0, r.status, r.out + r.err);
            assertTrue(r.out.startsWith("OK ") && r.out.trim().endsWith("-Data.db"), r.out);
        }
        for (Path dir : new Path[] {manyLz4, bigLz4, refLz4}) {
            Result r = verify(schemaLz4, component(dir, "Index.db").toString());
            assertEquals(0, r.status, r.out + r.err);
            assertTrue(r.out.startsWith("OK "), r.out);
        }
        Result r = verify(schemaLz4, "--extended", manyLz4.toString(), bigLz4.toString());
        assertEquals(0, r.status, r.out + r.err);
        assertEquals(2, r.out.lines().filter(l -> l.startsWith("OK ")).count(), r.out);
    }

    /** The line verify printed for a damaged copy: CORRUPT naming a file of the sstable and an offset. */
    static void assertCorrupt(Result r, String what) {
        assertEquals(1, r.status, what + ": " + r.out + r.err);
        String line = r.out.trim();
        assertTrue(line.startsWith("CORRUPT ") && line.contains("-big-") && line.matches("(?s).* at byte offset \\d+$"),
                what + ": " + r.out + r.err);
    }

    static final String[] COMPONENTS_NONE = {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db", "CRC.db", "Digest.crc32"};
    static final String[] COMPONENTS_LZ4 = {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db", "CompressionInfo.db", "Digest.crc32"};

    @Test
    void flippedBytesInEveryComponent() throws IOException {
        Random random = new Random(SEED);
        for (Path base : new Path[] {manyNone, manyLz4, bigNone, bigLz4}) {
            boolean lz4 = base == manyLz4 || base == bigLz4;
            for (String suffix : lz4 ? COMPONENTS_LZ4 : COMPONENTS_NONE) {
                for (int n = 0; n < 6; n++) {
                    Path dir = copy(base);
                    Path file = component(dir, suffix);
                    byte[] bytes = Files.readAllBytes(file);
                    int at = random.nextInt(bytes.length);
                    int flip = 1 + random.nextInt(255);
                    if (suffix.equals("CRC.db") && at < 4) {
                        // The chunk size: a power of two that cuts Data.db the same way is self-consistent.
                        flip = 0x06; // never leaves the 64 KiB value a single bit
                    }
                    if (suffix.equals("Filter.db")) {
                        // A flip that only sets bits leaves every key present: clear a non-zero byte of bits instead.
                        at = 8 + random.nextInt(bytes.length - 8);
                        while (bytes[at] == 0) at = 8 + (at - 8 + 1) % (bytes.length - 8);
                        flip = bytes[at] & 0xFF;
                    }
                    bytes[at] ^= (byte) flip;
                    Files.write(file, bytes);
                    String what = "seed " + SEED + " " + file.getFileName() + " byte " + at + " ^ 0x" + Integer.toHexString(flip);
                    Result r = verify(lz4 ? schemaLz4 : schemaNone, dir.toString());
                    if (suffix.equals("Index.db") || suffix.equals("Summary.db")) {
                        // Bytes inside a promoted index's clustering names, or a summary's unused header
                        // fields, are not cross-checked; anything else must be found.
                        assertTrue(r.status == 0 || r.out.startsWith("CORRUPT ") && r.out.trim().matches("(?s).* at byte offset \\d+$"),
                                what + ": " + r.out + r.err);
                    } else {
                        assertCorrupt(r, what);
                    }
                }
            }
        }
    }

    /** Index and Summary fields that are cross-checked: every key byte and position. */
    @Test
    void flippedIndexAndSummaryKeysAndPositions() throws IOException {
        for (Path base : new Path[] {manyNone, manyLz4}) {
            Path schema = base == manyLz4 ? schemaLz4 : schemaNone;
            // Index.db: first entry "00 04 <4 key bytes> <position vint> <promoted size vint>".
            for (int at = 0; at < 8; at++) {
                Path dir = copy(base);
                Path index = component(dir, "Index.db");
                byte[] b = Files.readAllBytes(index);
                b[at] ^= (byte) (at == 7 ? 0x01 : 0x40);
                Files.write(index, b);
                assertCorrupt(verify(schema, dir.toString()), "Index.db byte " + at);
            }
            // Summary.db: header, the first entry's offset, key and position.
            for (int at = 0; at < 24 + 4 + 4 + 8; at++) {
                if (at >= 8 && at < 16) continue; // off-heap size: its low bits are checked, high ones too (below)
                Path dir = copy(base);
                Path summary = component(dir, "Summary.db");
                byte[] b = Files.readAllBytes(summary);
                b[at] ^= 0x01;
                Files.write(summary, b);
                assertCorrupt(verify(schema, dir.toString()), "Summary.db byte " + at);
            }
        }
    }

    @Test
    void truncatedAtRandomPoints() throws IOException {
        Random random = new Random(SEED + 1);
        for (Path base : new Path[] {manyNone, manyLz4, bigNone}) {
            boolean lz4 = base == manyLz4;
            for (String suffix : lz4 ? COMPONENTS_LZ4 : COMPONENTS_NONE) {
                for (int n = 0; n < 4; n++) {
                    Path dir = copy(base);
                    Path file = component(dir, suffix);
                    byte[] bytes = Files.readAllBytes(file);
                    // An empty Filter.db is Cassandra's "always present" filter, a valid file.
                    int minimum = suffix.equals("Filter.db") ? 1 : 0;
                    int keep = n == 0 ? minimum : minimum + random.nextInt(bytes.length - minimum);
                    Files.write(file, java.util.Arrays.copyOf(bytes, keep));
                    assertCorrupt(verify(lz4 ? schemaLz4 : schemaNone, dir.toString()), "seed " + (SEED + 1) + " "
                            + file.getFileName() + " truncated to " + keep + " of " + bytes.length);
                }
            }
        }
    }

    // ---- lengths that claim more than the file holds, with every checksum made to agree ---------

    /** Rewrites CRC.db and Digest.crc32 of an uncompressed sstable for its (edited) Data.db. */
    static void rechecksum(Path dir) throws IOException {
        byte[] data = Files.readAllBytes(component(dir, "Data.db"));
        int chunk = 64 * 1024;
        int chunks = Math.max(1, (data.length + chunk - 1) / chunk);
        java.nio.ByteBuffer crcs = java.nio.ByteBuffer.allocate(4 + 4 * chunks).putInt(chunk);
        for (int i = 0; i < chunks; i++) {
            CRC32 c = new CRC32();
            c.update(data, i * chunk, Math.min(chunk, data.length - i * chunk));
            crcs.putInt((int) c.getValue());
        }
        Files.write(component(dir, "CRC.db"), crcs.array());
        CRC32 all = new CRC32();
        all.update(data);
        Files.writeString(component(dir, "Digest.crc32"), Long.toString(all.getValue()));
    }

    static byte[] splice(byte[] b, int at, int removed, byte[] inserted) {
        byte[] out = new byte[b.length - removed + inserted.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(inserted, 0, out, at, inserted.length);
        System.arraycopy(b, at + removed, out, at + inserted.length, b.length - at - removed);
        return out;
    }

    static byte[] vint(long v) {
        byte[] b = new byte[VInt.MAX_SIZE_BYTES];
        return java.util.Arrays.copyOf(b, VInt.putUnsigned(b, 0, v));
    }

    @Test
    void lengthsClaimingGigabytes() throws IOException {
        String cql = "CREATE TABLE ks.g (pk int PRIMARY KEY, v blob) WITH compression = {'enabled': 'false'}";
        Path schema = Files.writeString(tmp.resolve("g.cql"), cql);
        TableSchema ts = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(ts, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(ts, 3, 1_750_000_000L, 50, 1);
        gen.partitionDeleteChance = 0;
        gen.rowDeleteChance = 0;
        for (PartitionUpdate u : gen.next(200)) m.apply(u);
        m.seal();
        Path base = tmp.resolve("g");
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(base), true, null, 0);
        } finally {
            m.discard();
        }
        Path tableDir = base;
        assertEquals(0, verify(schema, tableDir.toString()).status);

        // Data.db: the first row's size (after key length, 4 key bytes, LIVE deletion and the flags byte) claims 2^40.
        Path dir = copy(tableDir);
        Path data = component(dir, "Data.db");
        byte[] d = Files.readAllBytes(data);
        int rowSizeAt = 2 + 4 + 1 + 1;
        Files.write(data, splice(d, rowSizeAt, VInt.sizeFromFirstByte(d[rowSizeAt]), vint(1L << 40)));
        rechecksum(dir);
        Result r = verify(schema, dir.toString());
        assertCorrupt(r, "row size 2^40");
        assertTrue(r.out.contains("at byte offset " + rowSizeAt), r.out);

        // Data.db: the first partition key's length claims 65535 bytes.
        dir = copy(tableDir);
        data = component(dir, "Data.db");
        d = Files.readAllBytes(data);
        d[0] = (byte) 0xFF;
        d[1] = (byte) 0xFF;
        Files.write(data, d);
        rechecksum(dir);
        assertCorrupt(verify(schema, dir.toString()), "key length 65535");

        // Index.db: the first entry's promoted index size claims 2^62.
        dir = copy(tableDir);
        Path index = component(dir, "Index.db");
        byte[] x = Files.readAllBytes(index);
        int posAt = 2 + 4;
        int sizeAt = posAt + VInt.sizeFromFirstByte(x[posAt]);
        Files.write(index, splice(x, sizeAt, 1, vint(1L << 62)));
        r = verify(schema, dir.toString());
        assertCorrupt(r, "promoted size 2^62");
        assertTrue(r.out.contains("Index.db") && r.out.contains("at byte offset " + sizeAt), r.out);

        // CRC.db: a chunk size of 2^31 - 1 and Statistics.db: a component offset of 2^31 - 1.
        dir = copy(tableDir);
        Path crc = component(dir, "CRC.db");
        byte[] c = Files.readAllBytes(crc);
        c[0] = 0x7F; c[1] = (byte) 0xFF; c[2] = (byte) 0xFF; c[3] = (byte) 0xFF;
        Files.write(crc, c);
        assertCorrupt(verify(schema, dir.toString()), "CRC chunk size 2^31-1");

        dir = copy(tableDir);
        Path stats = component(dir, "Statistics.db");
        byte[] st = Files.readAllBytes(stats);
        java.nio.ByteBuffer.wrap(st).putInt(8 + 8 * 3 + 4, Integer.MAX_VALUE); // HEADER's offset
        CRC32 toc = new CRC32();
        toc.update(st, 0, 8 + 8 * 4);
        // the running CRC covers count, then the table (not the count's CRC)
        CRC32 running = new CRC32();
        running.update(st, 0, 4);
        running.update(st, 8, 8 * 4);
        java.nio.ByteBuffer.wrap(st).putInt(8 + 8 * 4, (int) running.getValue());
        Files.write(stats, st);
        assertCorrupt(verify(schema, dir.toString()), "Statistics offset 2^31-1");
    }

    /** Two rows' clusterings swapped (checksums made to agree): a decodable file whose rows are out of order. */
    @Test
    void rowsOutOfClusteringOrder() throws IOException {
        String cql = "CREATE TABLE ks.o (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        Path schema = Files.writeString(tmp.resolve("o.cql"), cql);
        TableSchema ts = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(ts, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(ts, 5, 1_750_000_000L, 1, 20);
        gen.partitionDeleteChance = 0;
        gen.rangeDeleteChance = 0;
        gen.rowDeleteChance = 0;
        for (PartitionUpdate u : gen.next(60)) m.apply(u);
        m.seal();
        Path dir = tmp.resolve("o");
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), true, null, 0);
        } finally {
            m.discard();
        }
        assertEquals(0, verify(schema, dir.toString()).status);
        Path data = component(dir, "Data.db");
        long first = -1, second = -1;
        try (dev.flushline.sstable.SSTableCursor c = dev.flushline.sstable.SSTableCursor.open(
                dev.flushline.sstable.SSTableFiles.of(data), ts)) {
            int kind;
            while ((kind = c.advance()) != dev.flushline.sstable.SSTableCursor.END) {
                if (kind != dev.flushline.sstable.SSTableCursor.ROW) continue;
                if (first < 0) first = c.row().offset();
                else if (second < 0) second = c.row().offset();
            }
        }
        byte[] d = Files.readAllBytes(data);
        // flags (0x24 or similar, no extension), clustering block header (1 byte), then the 4-byte int.
        for (int i = 0; i < 4; i++) {
            byte t = d[(int) first + 2 + i];
            d[(int) first + 2 + i] = d[(int) second + 2 + i];
            d[(int) second + 2 + i] = t;
        }
        Files.write(data, d);
        rechecksum(dir);
        Result r = verify(schema, dir.toString());
        assertCorrupt(r, "swapped clusterings");
        assertTrue(r.out.contains("clustering order") && r.out.contains("at byte offset " + second), r.out);
    }

    @Test
    void lz4ChunkCountClaimingBillions() throws IOException {
        Path dir = copy(manyLz4);
        Path info = component(dir, "CompressionInfo.db");
        byte[] b = Files.readAllBytes(info);
        int countAt = 2 + "LZ4Compressor".length() + 4 + 4 + 4 + 8;
        java.nio.ByteBuffer.wrap(b).putInt(countAt, Integer.MAX_VALUE);
        Files.write(info, b);
        Result r = verify(schemaLz4, dir.toString());
        assertCorrupt(r, "chunk count 2^31-1");
        assertTrue(r.out.contains("CompressionInfo.db") && r.out.contains("at byte offset " + countAt), r.out);
    }

    @Test
    void usageAndRefusals() throws IOException {
        Result r = verify(schemaNone);
        assertEquals(1, r.status);
        assertTrue(r.err.contains("no sstable"), r.err);
        Path dir = copy(manyNone);
        Path data = component(dir, "Data.db");
        Path renamed = Files.move(data, data.resolveSibling(data.getFileName().toString().replace("oa-", "na-")));
        r = verify(schemaNone, renamed.toString());
        assertEquals(1, r.status);
        assertTrue(r.out.startsWith("REFUSED ") && r.out.contains("'na'"), r.out);
        Path otherSchema = Files.writeString(tmp.resolve("other.cql"), cql(false).replace("c bigint", "c int"));
        r = verify(otherSchema, manyNone.toString());
        assertEquals(1, r.status);
        assertTrue(r.out.startsWith("REFUSED ") && r.out.contains("'c'"), r.out);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(new String[] {"verify", "--help"}, System.in, new PrintStream(out), new PrintStream(new ByteArrayOutputStream())));
        assertTrue(out.toString().contains("--extended"));
    }
}
