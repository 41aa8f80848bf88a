package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flush allocates at most 1 MiB whatever the codec, however many chunks it writes, and nothing
 * per chunk: the codec is set up once per sstable (a zstd context, a Deflater) and the chunk loop
 * allocates nothing. Counted as a flush reports it: the flushing thread and the I/O thread that
 * compresses, from the JVM's per-thread allocation counters. Per codec, a warm-up flush (class
 * loading, JIT, native libraries), then a small and a large one (hundreds of chunks): each at most
 * 1 MiB, and what the codec adds to an uncompressed flush of the same memtable grows by under 40
 * bytes per extra chunk (its chunk offset, kept in a doubling array).
 *
 * <p>The operations carry no deletions or TTLs: an sstable with more than 100 distinct deletion or
 * expiry times allocates the tombstone histogram's spool (about 3 MiB, the size Cassandra's own
 * spool has, see TombstoneHistogram), once per sstable and whatever the codec, which would hide
 * what the codecs do.
 */
class FlushCodecAllocationTest {
    static final String TABLE = "CREATE TABLE ks.falloc (pk bigint, ck int, a text, b blob, s set<text>, PRIMARY KEY (pk, ck))";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    static Stream<String> compressions() {
        return Stream.of(Compressions.ALL);
    }

    static Memtable filled(TableSchema schema, long seed, int updates) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, 4000, 40);
        gen.ttlChance = 0;
        gen.nullChance = 0;
        gen.rowDeleteChance = 0;
        gen.partitionDeleteChance = 0;
        gen.rangeDeleteChance = 0;
        gen.cellDeleteChance = 0;
        for (PartitionUpdate u : gen.next(updates)) m.apply(u);
        m.seal();
        return m;
    }

    /** Memtable sizes in operations: a warm-up, a small and a large flush. */
    static final int[] SIZES = {3_000, 10_000, 50_000};
    /** The uncompressed flushes' counts, the baseline of every codec (computed once). */
    private static long[][] baseline;

    /**
     * What flushes of the {@link #SIZES} memtables with this compression allocate (each memtable
     * flushed twice, the lower count kept: it leaves out what a first pass through a code path
     * costs), and their Data.db sizes.
     */
    static long[][] flush(String compression, Path root) throws Exception {
        TableSchema schema = CqlParser.parse(Compressions.with(TABLE, compression));
        Path out = Files.createDirectories(root);
        TableDirectory dir = TableDirectory.open(schema.directoryUnder(out));
        FlushJob.Options options = FlushJob.Options.simple(out);
        long[] allocated = new long[SIZES.length], dataBytes = new long[SIZES.length];
        for (int size = 0; size < SIZES.length; size++) {
            Memtable m = filled(schema, SIZES[size], SIZES[size]);
            try {
                allocated[size] = Long.MAX_VALUE;
                for (int twice = 0; twice < 2; twice++) {
                    List<FlushOutcome> outcomes = FlushJob.run(m, options, dir, null);
                    assertEquals(1, outcomes.size());
                    allocated[size] = Math.min(allocated[size], outcomes.get(0).allocatedBytes);
                    dataBytes[size] = outcomes.get(0).result.dataFileBytes;
                }
            } finally {
                m.discard();
            }
        }
        return new long[][] {allocated, dataBytes};
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressions")
    void aFlushAllocatesAtMostOneMiBWithEveryCodec(String compression) throws Exception {
        TableSchema schema = CqlParser.parse(Compressions.with(TABLE, compression));
        synchronized (FlushCodecAllocationTest.class) {
            if (baseline == null) baseline = flush(Compressions.NONE, Files.createTempDirectory("flushline-alloc-baseline"));
        }
        long[][] ours = flush(compression, tmp.resolve("codec"));
        long[] allocated = ours[0], dataBytes = ours[1], base = baseline[0];
        int chunk = schema.compressionParams().isEnabled() ? schema.chunkLengthBytes() : dev.flushline.io.DataFileLayout.CRC_CHUNK_BYTES;
        long smallChunks = dataBytes[1] / chunk, largeChunks = dataBytes[2] / chunk;
        // What the codec adds to an uncompressed flush of the same memtable, small and large.
        long small = allocated[1] - base[1], large = allocated[2] - base[2];
        double perExtraChunk = (double) (large - small) / Math.max(1, largeChunks - smallChunks);
        String what = compression + ": flushes of " + dataBytes[1] + " and " + dataBytes[2] + " bytes of Data.db (about " + smallChunks
                + " and " + largeChunks + " chunks) allocated " + java.util.Arrays.toString(allocated) + " bytes ("
                + java.util.Arrays.toString(base) + " uncompressed): the codec adds " + small + " and " + large + " bytes, "
                + String.format("%.1f", perExtraChunk) + " per extra chunk";
        System.out.println(what);
        for (int i = 1; i < allocated.length; i++) assertTrue(allocated[i] > 0 && allocated[i] <= 1L << 20, what);
        if (!schema.compressionParams().isEnabled()) return;
        assertTrue(largeChunks - smallChunks >= 20 && dataBytes[2] > 512 * 1024, what);
        // The chunk offsets CompressionInfo.db needs cost 8 bytes a chunk, twice over while their array doubles;
        // any object or buffer per chunk would add 16 bytes or more on top.
        assertTrue(perExtraChunk < 40, what);
    }
}
