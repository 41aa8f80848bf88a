package dev.flushline.sstable.big;

import dev.flushline.data.Murmur3;
import dev.flushline.sstable.BoundedReader;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.PartitionOrder;
import dev.flushline.sstable.SSTableFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Summary.db ({@link BigIndexLayout}) decoded into entry positions over the file bytes, with a
 * lookup of the Index.db position to scan from for a key.
 *
 * <p>Thread safety: immutable after construction.
 */
public final class SummaryReader {
    private final byte[] bytes;
    public final int minIndexInterval;
    public final int entryCount;
    public final int samplingLevel;
    public final int sizeAtFullSampling;
    private final int[] keyOffsets, keyLengths;
    private final long[] indexPositions;
    private final long[] tokens;
    public final byte[] firstKey, lastKey;

    public SummaryReader(Path file, byte[] bytes) {
        this.bytes = bytes;
        BoundedReader in = new BoundedReader(file, bytes);
        minIndexInterval = in.i32("min index interval");
        long at = in.fileOffset();
        entryCount = in.i32("summary entry count");
        if (entryCount < 0 || (long) entryCount * BigIndexLayout.SUMMARY_OFFSET_BYTES > in.remaining()) {
            throw in.corrupt(at, "summary entry count " + entryCount + " exceeds the file");
        }
        at = in.fileOffset();
        long offheapSize = in.i64("summary off-heap size");
        samplingLevel = in.i32("sampling level");
        sizeAtFullSampling = in.i32("size at full sampling");
        int offsetsStart = in.position();
        if (offheapSize < (long) entryCount * BigIndexLayout.SUMMARY_OFFSET_BYTES || offheapSize > bytes.length - offsetsStart) {
            throw in.corrupt(at, "summary off-heap size " + offheapSize + " does not fit the file");
        }
        int entriesEnd = offsetsStart + (int) offheapSize;
        keyOffsets = new int[entryCount];
        keyLengths = new int[entryCount];
        indexPositions = new long[entryCount];
        tokens = new long[entryCount];
        int[] starts = new int[entryCount + 1];
        for (int i = 0; i < entryCount; i++) {
            long offAt = in.fileOffset();
            int off = in.i32LittleEndian("summary entry offset");
            int min = i == 0 ? entryCount * BigIndexLayout.SUMMARY_OFFSET_BYTES : starts[i] - offsetsStart + BigIndexLayout.SUMMARY_POSITION_BYTES;
            if (off < min || off > offheapSize - BigIndexLayout.SUMMARY_POSITION_BYTES) {
                throw in.corrupt(offAt, "summary entry " + i + " offset " + off + " is out of order or outside the entries");
            }
            starts[i] = offsetsStart + off;
        }
        starts[entryCount] = entriesEnd;
        for (int i = 0; i < entryCount; i++) {
            int keyEnd = starts[i + 1] - BigIndexLayout.SUMMARY_POSITION_BYTES;
            if (keyEnd < starts[i]) throw in.corrupt(starts[i], "summary entry " + i + " is too short");
            keyOffsets[i] = starts[i];
            keyLengths[i] = keyEnd - starts[i];
            in.position(keyEnd);
            indexPositions[i] = in.i64LittleEndian("summary index position");
            tokens[i] = Murmur3.token(bytes, keyOffsets[i], keyLengths[i]);
        }
        in.position(entriesEnd);
        firstKey = keyField(in, "summary first key");
        lastKey = keyField(in, "summary last key");
    }

    /** The Summary.db of {@code files}. REQUIRES: it has one. */
    public static SummaryReader open(SSTableFiles files) throws IOException {
        return new SummaryReader(files.path(Component.SUMMARY), files.readAll(Component.SUMMARY));
    }

    private static byte[] keyField(BoundedReader in, String what) {
        long at = in.fileOffset();
        int n = in.length(in.i32(what + " length") & 0xFFFFFFFFL, at, what);
        byte[] k = Arrays.copyOfRange(in.array(), in.position(), in.position() + n);
        in.skip(n, what);
        return k;
    }

    public byte[] bytes() { return bytes; }

    public int keyOffset(int i) { return keyOffsets[i]; }

    public int keyLength(int i) { return keyLengths[i]; }

    public long indexPosition(int i) { return indexPositions[i]; }

    /**
     * Index.db position of the last sampled entry at or before {@code key} in partition order
     * (token, then key bytes), or -1 if the key sorts before every sample.
     */
    public long scanStart(byte[] key, int off, int len) {
        long token = Murmur3.token(key, off, len);
        int lo = 0, hi = entryCount - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = PartitionOrder.compare(tokens[mid], bytes, keyOffsets[mid], keyLengths[mid], token, key, off, len);
            if (c <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? -1 : indexPositions[found];
    }
}
