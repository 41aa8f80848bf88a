package dev.flushline.flush;

import java.nio.file.Path;

/**
 * What one sstable's flush wrote: the published Data.db and the counts the conservation check
 * compared.
 */
public final class FlushResult {
    public final Path dataPath;
    /** Logical (uncompressed) Data.db bytes. */
    public final long uncompressedBytes;
    /** Physical Data.db bytes on disk. */
    public final long dataFileBytes;
    public final long partitions;
    public final long rows;
    public final long cells;
    public final long rangeTombstoneMarkers;
    /** CPU and heap allocation of the Data.db I/O thread, which the flush's totals include. */
    public final long ioCpuNanos;
    public final long ioAllocatedBytes;

    FlushResult(Path dataPath, long uncompressedBytes, long dataFileBytes, long partitions, long rows, long cells,
                long rangeTombstoneMarkers, long ioCpuNanos, long ioAllocatedBytes) {
        this.dataPath = dataPath;
        this.uncompressedBytes = uncompressedBytes;
        this.dataFileBytes = dataFileBytes;
        this.partitions = partitions;
        this.rows = rows;
        this.cells = cells;
        this.rangeTombstoneMarkers = rangeTombstoneMarkers;
        this.ioCpuNanos = ioCpuNanos;
        this.ioAllocatedBytes = ioAllocatedBytes;
    }

    @Override
    public String toString() {
        return dataPath + " partitions=" + partitions + " rows=" + rows + " cells=" + cells + " bytes=" + uncompressedBytes;
    }
}
