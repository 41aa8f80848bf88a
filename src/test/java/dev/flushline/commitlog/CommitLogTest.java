package dev.flushline.commitlog;

import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Segments, framing, replay of torn tails and corruption, release, group commit and I/O failure. */
class CommitLogTest {
    static final String CQL = MutationLayoutTest.SCHEMAS[0];
    static final long NOW = 1_750_000_000L;
    static final int SMALL_SEGMENT = 64 * 1024;

    @TempDir
    Path dir;

    final TableSchema schema = CqlParser.parse(CQL);

    CommitLog.Options options(CommitLog.SyncMode mode, boolean skipCorrupt) {
        return new CommitLog.Options(dir, SMALL_SEGMENT, mode, 50, skipCorrupt);
    }

    List<Mutation> mutations(long seed, int n) {
        List<Mutation> out = new ArrayList<>();
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 50, 10).next(n)) out.add(new Mutation(schema, u));
        return out;
    }

    record Replayed(List<String> updates, List<CommitLogPosition> positions, CommitLog.ReplayReport report) {}

    Replayed reopenAndReplay(boolean skipCorrupt) throws Exception {
        try (CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, skipCorrupt))) {
            List<String> got = new ArrayList<>();
            List<CommitLogPosition> positions = new ArrayList<>();
            CommitLog.ReplayReport r = log.replay(schema, (m, p) -> {
                got.add(Updates.describe(m.update()));
                positions.add(p);
            });
            return new Replayed(got, positions, r);
        }
    }

    static List<String> describe(List<Mutation> ms) {
        List<String> out = new ArrayList<>();
        for (Mutation m : ms) out.add(Updates.describe(m.update()));
        return out;
    }

    List<Path> segments() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> SegmentLayout.idOf(p.getFileName().toString()) >= 0).sorted().toList();
        }
    }

    /** Appends all, syncs, and abandons the log without releasing anything (as a crash would). */
    List<CommitLog.Entry> write(List<Mutation> ms) throws IOException {
        CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, false));
        List<CommitLog.Entry> entries = new ArrayList<>();
        for (Mutation m : ms) {
            CommitLog.Entry e = log.append(m);
            log.awaitDurable(e);
            entries.add(e);
        }
        log.close(); // syncs; the marker is NONE, so every segment stays
        return entries;
    }

    @Test
    void replayReturnsEveryEntryInOrderAcrossSegmentsAndIdsGrowAcrossRestarts() throws Exception {
        List<Mutation> ms = mutations(1, 2000);
        List<CommitLog.Entry> entries = write(ms);
        List<Path> segs = segments();
        assertTrue(segs.size() > 3, "small segments roll over: " + segs.size());
        for (Path p : segs) assertEquals(SMALL_SEGMENT, Files.size(p), "segments are fixed-size: " + p);
        Replayed r = reopenAndReplay(false);
        assertEquals(describe(ms), r.updates());
        assertEquals(segs.size(), r.report().segments);
        assertEquals("Replayed 2000 mutations from " + segs.size() + " segments", r.report().summary());
        assertEquals(List.of(), r.report().warnings);
        for (int i = 0; i < entries.size(); i++) assertEquals(entries.get(i).position, r.positions().get(i));
        // The reopen created a segment above every earlier id.
        long maxBefore = entries.get(entries.size() - 1).position.segmentId();
        try (CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, false))) {
            assertTrue(log.currentPosition().segmentId() > maxBefore + 1);
            assertEquals(SegmentLayout.HEADER_BYTES, log.currentPosition().position());
        }
    }

    @Test
    void markerReleasesOlderSegmentsAndReplayStartsAfterIt() throws Exception {
        List<Mutation> ms = mutations(2, 1500);
        CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, false));
        List<CommitLog.Entry> entries = new ArrayList<>();
        for (Mutation m : ms) entries.add(log.append(m));
        log.sync();
        int flushed = 1000;
        CommitLogPosition marker = entries.get(flushed - 1).position;
        log.markFlushedUpTo(marker);
        for (Path p : segments()) {
            assertTrue(SegmentLayout.idOf(p.getFileName().toString()) >= marker.segmentId(), "older segment deleted: " + p);
        }
        log.close();
        Replayed r = reopenAndReplay(false);
        assertEquals(describe(ms.subList(flushed, ms.size())), r.updates());
    }

    @Test
    void cleanCloseWithEverythingFlushedLeavesNothingToReplay() throws Exception {
        CommitLog log = CommitLog.open(options(CommitLog.SyncMode.PERIODIC, false));
        for (Mutation m : mutations(3, 300)) log.append(m);
        log.sync();
        log.markFlushedUpTo(log.currentPosition());
        log.close();
        assertEquals(List.of(), segments());
        Replayed r = reopenAndReplay(false);
        assertEquals(0, r.report().mutations);
    }

    /** Offset of entry i in its segment file. */
    static int offset(CommitLog.Entry e, byte[] payload) {
        return e.position.position() - SegmentLayout.entryBytes(payload.length);
    }

    static void patch(Path file, long offset, byte[] bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            f.write(bytes);
        }
    }

    static byte readByte(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(offset);
            return f.readByte();
        }
    }

    Path segmentOf(CommitLog.Entry e) {
        return dir.resolve(SegmentLayout.fileName(e.position.segmentId()));
    }

    @Test
    void tornTailIsTruncatedWithAWarning() throws Exception {
        List<Mutation> ms = mutations(4, 40);
        List<CommitLog.Entry> entries = write(ms);
        CommitLog.Entry last = entries.get(entries.size() - 1);
        byte[] payload = MutationLayout.bytes(ms.get(ms.size() - 1));
        int off = offset(last, payload);
        // A crash mid-write: the payload's second half and the CRC never reached the disk.
        patch(segmentOf(last), off + SegmentLayout.PAYLOAD_OFFSET + payload.length / 2, new byte[payload.length / 2 + 4 + 1]);
        Replayed r = reopenAndReplay(false);
        assertEquals(describe(ms.subList(0, ms.size() - 1)), r.updates());
        assertEquals(1, r.report().warnings.size());
        String w = r.report().warnings.get(0);
        assertTrue(w.contains("torn tail") && w.contains(segmentOf(last).toString()) && w.contains("offset " + off), w);
    }

    @Test
    void tornLengthAtTheTailIsATornTail() throws Exception {
        List<Mutation> ms = mutations(5, 40);
        List<CommitLog.Entry> entries = write(ms);
        CommitLog.Entry last = entries.get(entries.size() - 1);
        int off = offset(last, MutationLayout.bytes(ms.get(ms.size() - 1)));
        patch(segmentOf(last), off + 2, new byte[] {(byte) (readByte(segmentOf(last), off + 2) ^ 0x40)});
        Replayed r = reopenAndReplay(false);
        assertEquals(ms.size() - 1, r.updates().size());
        assertTrue(r.report().warnings.get(0).contains("length CRC mismatch"), r.report().warnings.toString());
    }

    @Test
    void corruptionInTheMiddleStopsReplayNamingFileAndOffsetAndSkipCorruptSkipsExactlyIt() throws Exception {
        List<Mutation> ms = mutations(6, 40);
        List<CommitLog.Entry> entries = write(ms);
        int bad = 10;
        CommitLog.Entry e = entries.get(bad);
        byte[] payload = MutationLayout.bytes(ms.get(bad));
        int off = offset(e, payload);
        Path file = segmentOf(e);
        patch(file, off + SegmentLayout.PAYLOAD_OFFSET + 3, new byte[] {(byte) (readByte(file, off + SegmentLayout.PAYLOAD_OFFSET + 3) ^ 1)});
        CommitLogCorruptionException ex = assertThrows(CommitLogCorruptionException.class, () -> reopenAndReplay(false));
        assertEquals(file, ex.segment());
        assertEquals(off, ex.offset());
        assertEquals(e.position.position(), ex.nextValidOffset());
        assertTrue(ex.getMessage().contains(file.toString()) && ex.getMessage().contains("byte offset " + off), ex.getMessage());

        Replayed r = reopenAndReplay(true);
        List<Mutation> expected = new ArrayList<>(ms);
        expected.remove(bad);
        assertEquals(describe(expected), r.updates());
        assertEquals(List.of("skipped corrupt bytes [" + off + ", " + e.position.position() + ") of commit log segment " + file
                + " (payload CRC mismatch); any mutations in that range are lost"), r.report().warnings);
    }

    @Test
    void aDamagedHeaderBeforeIntactEntriesIsCorruptionAndSkipCorruptReplaysTheEntries() throws Exception {
        List<Mutation> ms = mutations(9, 40);
        List<CommitLog.Entry> entries = write(ms);
        Path file = segmentOf(entries.get(0));
        List<Mutation> inFirst = new ArrayList<>();
        for (int i = 0; i < ms.size(); i++) {
            if (entries.get(i).position.segmentId() == entries.get(0).position.segmentId()) inFirst.add(ms.get(i));
        }
        patch(file, SegmentLayout.MAGIC_OFFSET, new byte[] {(byte) (readByte(file, SegmentLayout.MAGIC_OFFSET) ^ 0x10)});
        CommitLogCorruptionException ex = assertThrows(CommitLogCorruptionException.class, () -> reopenAndReplay(false));
        assertEquals(file, ex.segment());
        assertEquals(0, ex.offset());
        assertEquals(SegmentLayout.HEADER_BYTES, ex.nextValidOffset());

        Replayed r = reopenAndReplay(true);
        assertEquals(describe(ms), r.updates(), "every entry replays, the first segment's " + inFirst.size() + " too");
        assertEquals(1, r.report().warnings.size(), r.report().warnings.toString());
        String w = r.report().warnings.get(0);
        assertTrue(w.contains("[0, " + SegmentLayout.HEADER_BYTES + ")") && w.contains(file.toString()) && w.contains("bad segment header"), w);
    }

    @Test
    void corruptLengthInTheMiddleIsCorruptionToo() throws Exception {
        List<Mutation> ms = mutations(7, 40);
        List<CommitLog.Entry> entries = write(ms);
        CommitLog.Entry e = entries.get(5);
        int off = offset(e, MutationLayout.bytes(ms.get(5)));
        Path file = segmentOf(e);
        patch(file, off, new byte[] {(byte) 0x7F});
        CommitLogCorruptionException ex = assertThrows(CommitLogCorruptionException.class, () -> reopenAndReplay(false));
        assertEquals(off, ex.offset());
        assertTrue(ex.getMessage().contains("length CRC mismatch"), ex.getMessage());
    }

    /**
     * Found by SegmentFuzzTest: the table gained a clustering column between the run that wrote
     * the log and the one replaying it (same name, so the same id, and the same column counts).
     * The entries' CRCs match, but their rows no longer fit the table: replay used to hand them to
     * the memtable, which failed with ArrayIndexOutOfBoundsException.
     */
    @Test
    void entriesThatNoLongerFitTheTableAreCorruptionNamingFileAndOffset() throws Exception {
        List<Mutation> ms = mutations(8, 30);
        List<CommitLog.Entry> entries = write(ms);
        TableSchema changed = CqlParser.parse("CREATE TABLE ks.a (pk int, ck text, ck2 int, v text, n bigint, s text static, "
                + "tags set<text>, m map<int, text>, l list<int>, PRIMARY KEY (pk, ck, ck2))");
        assertEquals(schema.id(), changed.id());
        int first = -1;
        for (int i = 0; i < ms.size() && first < 0; i++) if (!ms.get(i).update().rows().isEmpty()) first = i;
        assertTrue(first >= 0);
        CommitLog.Entry e = entries.get(first);
        int off = offset(e, MutationLayout.bytes(ms.get(first)));
        List<Mutation> applied = new ArrayList<>();
        try (CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, false))) {
            CommitLogCorruptionException ex = assertThrows(CommitLogCorruptionException.class,
                    () -> log.replay(changed, (m, p) -> applied.add(m)));
            assertEquals(segmentOf(e), ex.segment());
            assertEquals(off, ex.offset());
            assertTrue(ex.getMessage().contains("row has 1 clustering values, the table 2"), ex.getMessage());
        }
        assertEquals(first, applied.size(), "the entries before it (static rows and deletions only) replayed");
    }

    /** A segment-named file over 2 GiB (sparse here) is refused by name, not read into an OutOfMemoryError. */
    @Test
    void aSegmentFileLargerThanAnySegmentIsRefusedByName() throws Exception {
        Path huge = dir.resolve(SegmentLayout.fileName(7));
        try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
            f.write(SegmentLayout.header(7));
            f.setLength(3L << 30);
        }
        try (CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, true))) {
            IOException e = assertThrows(IOException.class, () -> log.replay(schema, (m, p) -> { }));
            assertTrue(e.getMessage().contains(huge.toString()) && e.getMessage().contains("is 3221225472 bytes"), e.getMessage());
        }
    }

    @Test
    void batchGroupCommitSharesFsyncsAcrossWriters() throws Exception {
        int threads = 4, perThread = 1500;
        List<List<Mutation>> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) work.add(mutations(100 + t, perThread));
        for (List<Mutation> w : work) for (Mutation m : w) MutationLayout.bytes(m); // serialize outside the timing
        CommitLog log = CommitLog.open(new CommitLog.Options(dir, 8 << 20, CommitLog.SyncMode.BATCH, 50, false));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            List<Mutation> w = work.get(t);
            Thread th = new Thread(() -> {
                try {
                    for (Mutation m : w) {
                        CommitLog.Entry e = log.append(m);
                        log.awaitDurable(e);
                        if (log.durableSequence() < e.sequence) throw new AssertionError("acknowledged before durable");
                    }
                } catch (Throwable x) {
                    failure.set(x);
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) th.join();
        long nanos = System.nanoTime() - start;
        if (failure.get() != null) throw new AssertionError(failure.get());
        long total = (long) threads * perThread;
        assertEquals(total, log.durableSequence());
        // Informal numbers for the benchmark author; never asserted on (no wall-clock assertions).
        System.out.printf("CommitLogTest group commit: %d mutations, %d writer threads, %d fsyncs, %.0f mutations/s%n",
                total, threads, log.syncCount(), total * 1e9 / nanos);
        assertTrue(log.syncCount() <= total, "at most one fsync per write");
        log.close();
        assertEquals(total, reopenAndReplay(false).updates().size());
    }

    @Test
    void anIoErrorFailsTheWriteLoudlyAndNothingIsAcknowledgedAfterIt() throws Exception {
        List<FileChannel> opened = new ArrayList<>();
        CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, false), keeping(opened));
        List<Mutation> ms = mutations(8, 10);
        CommitLog.Entry first = log.append(ms.get(0));
        log.awaitDurable(first);
        assertEquals(1, log.durableSequence());
        // Close the segment's channel underneath the log: the next write's syscall fails.
        opened.get(opened.size() - 1).close();
        IOException e = assertThrows(IOException.class, () -> log.append(ms.get(1)));
        assertTrue(e.getMessage().contains("append to") && e.getMessage().contains(".log"), e.getMessage());
        IOException again = assertThrows(IOException.class, () -> log.append(ms.get(2)));
        assertTrue(again.getMessage().contains("failed earlier"), again.getMessage());
        assertThrows(IOException.class, log::sync);
        assertEquals(1, log.durableSequence(), "nothing after the failure is acknowledged");
        assertNotNull(log.oldestUnapplied());
        log.close();
        assertEquals(describe(ms.subList(0, 1)), reopenAndReplay(false).updates());
    }

    @Test
    void aSyncErrorIsNotAcknowledged() throws Exception {
        List<FileChannel> opened = new ArrayList<>();
        CommitLog log = CommitLog.open(options(CommitLog.SyncMode.BATCH, false), keeping(opened));
        List<Mutation> ms = mutations(9, 3);
        CommitLog.Entry a = log.append(ms.get(0));
        // The write reached the kernel, then the channel goes away before the fsync.
        opened.get(opened.size() - 1).close();
        assertThrows(IOException.class, () -> log.awaitDurable(a));
        assertEquals(0, log.durableSequence());
        log.close();
    }

    /** Opens segment files as the log does and keeps each channel, so a test can fail it underneath the log. */
    static SegmentChannels keeping(List<FileChannel> opened) {
        return path -> {
            FileChannel c = SegmentChannels.CREATE_NEW.open(path);
            opened.add(c);
            return c;
        };
    }
}
