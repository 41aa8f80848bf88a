package dev.flushline.flush;

import dev.flushline.schema.CompressionParams;

/**
 * What a memtable flush compresses with, as Cassandra 5.0's {@code flush_compression} setting
 * decides it for a node. Compaction and bulk writers (CQLSSTableWriter) always use the table's
 * own compression; only a flush looks at this. A table without compression is flushed without,
 * whatever the setting (CRC.db, no chunks).
 *
 * <p>Thread safety: an enum.
 */
public enum FlushCompression {
    /**
     * A compressed table is flushed with NoopCompressor: the compressed layout (chunk offsets and
     * a CRC per chunk) in 4 KiB chunks of raw bytes. The table's codec, chunk length, ratio and
     * options are all set aside.
     */
    NONE("none"),
    /**
     * Cassandra's default: a codec that recommends itself for flushes (LZ4 with its fast
     * compressor, Snappy, Noop) is kept with all the table's settings; any other (LZ4 high, Zstd,
     * Deflate) is replaced by LZ4 with 16 KiB chunks and no options, min_compress_ratio 0.
     */
    FAST("fast"),
    /** The table's compression, exactly as for compaction. */
    TABLE("table");

    private final String configName;

    FlushCompression(String configName) {
        this.configName = configName;
    }

    /** The name in cassandra.yaml and on the command line. */
    public String configName() { return configName; }

    /** {@code none}, {@code fast} or {@code table}; null for anything else. */
    public static FlushCompression fromConfigName(String name) {
        for (FlushCompression f : values()) {
            if (f.configName.equals(name)) return f;
        }
        return null;
    }

    /** The compression a flush of a table with {@code table} writes. */
    public CompressionParams apply(CompressionParams table) {
        if (!table.isEnabled()) return table;
        switch (this) {
            case NONE: return CompressionParams.NOOP_FOR_FLUSH;
            case FAST: return table.isFastForFlush() ? table : CompressionParams.LZ4_DEFAULT;
            default: return table;
        }
    }
}
