package dev.flushline.testing;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Whether this build writes da (BTI) sstables: tests that need da output are written now and guarded
 * with {@code Assumptions.assumeTrue(DaOutput.canWriteDa())}, so they run once the da writer exists.
 * The answer comes from trying: a one-partition memtable flushed as da into a scratch directory;
 * an UnsupportedOperationException (the writer's refusal by name) means no.
 */
public final class DaOutput {
    private static volatile Boolean writable;

    private DaOutput() {}

    public static boolean canWriteDa() {
        Boolean w = writable;
        if (w == null) writable = w = tryWriting();
        return w;
    }

    private static boolean tryWriting() {
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.da_probe (pk int, ck int, v text, PRIMARY KEY (pk, ck))");
        Path scratch = null;
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        try {
            scratch = Files.createTempDirectory("flushline-da-probe");
            for (PartitionUpdate u : new RandomUpdates(schema, 1, 1_750_000_000L, 2, 2).next(4)) m.apply(u);
            m.seal();
            new FlushWriter(m, SSTableVersion.DA).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(scratch), true, null, 0);
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            m.discard();
            if (scratch != null) deleteTree(scratch);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
