package dev.flushline.sstable;

import dev.flushline.io.ChunkCodec;
import dev.flushline.io.DeflateChunkCodec;
import dev.flushline.io.Lz4ChunkCodec;
import dev.flushline.io.NoopChunkCodec;
import dev.flushline.io.SnappyChunkCodec;
import dev.flushline.io.ZstdChunkCodec;
import dev.flushline.schema.CompressionParams;

/** The seam between a table's compression option and the codec a writer or reader of one sstable uses. */
public final class ChunkCodecs {
    private ChunkCodecs() {}

    /** A new codec for {@code params} (each sstable writer or reader owns and closes its own). REQUIRES: enabled. */
    public static ChunkCodec open(CompressionParams params) {
        switch (params.codec()) {
            case LZ4: return new Lz4ChunkCodec(params.isLz4High(), params.lz4HighLevel());
            case ZSTD: return new ZstdChunkCodec(params.zstdLevel());
            case SNAPPY: return new SnappyChunkCodec();
            case DEFLATE: return new DeflateChunkCodec();
            case NOOP: return new NoopChunkCodec();
            default: throw new IllegalArgumentException("no codec for compression " + params);
        }
    }
}
