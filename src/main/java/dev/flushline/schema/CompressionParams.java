package dev.flushline.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's Data.db compression as Cassandra 5.0.9 holds it: the codec, the chunk length, the
 * max compressed length (derived from {@code min_compress_ratio}) and the codec's own options,
 * in the order Cassandra writes them into CompressionInfo.db.
 *
 * <p>Two ways in, each with Cassandra's rules: {@link #fromCqlMap} for the {@code compression}
 * table option (what {@code CompressionParams.fromMap} accepts and refuses), and
 * {@link #fromStored} for the header of a CompressionInfo.db (what its reader accepts). Both throw
 * IllegalArgumentException with the reason; the caller adds where.
 *
 * <p>Thread safety: immutable.
 */
public final class CompressionParams {
    /** Where Cassandra's compressors live; a class name without a dot is taken to be in this package. */
    public static final String COMPRESSOR_PACKAGE = "org.apache.cassandra.io.compress.";
    public static final int DEFAULT_CHUNK_LENGTH_BYTES = 16 * 1024;
    /** The max compressed length of min_compress_ratio 0: every chunk is stored compressed. */
    public static final int UNBOUNDED_MAX_COMPRESSED_LENGTH = Integer.MAX_VALUE;

    /** LZ4Compressor's options. */
    public static final String LZ4_COMPRESSOR_TYPE = "lz4_compressor_type";
    public static final String LZ4_HIGH_COMPRESSION_LEVEL = "lz4_high_compressor_level";
    /** ZstdCompressor's option. */
    public static final String ZSTD_COMPRESSION_LEVEL = "compression_level";

    public static final int LZ4_DEFAULT_HIGH_LEVEL = 9;
    public static final int ZSTD_DEFAULT_LEVEL = 3;
    /** zstd-jni 1.5.7's Zstd.minCompressionLevel() and maxCompressionLevel(), the bounds Cassandra checks. */
    public static final int ZSTD_MIN_LEVEL = -(1 << 17);
    public static final int ZSTD_MAX_LEVEL = 22;

    /** Compression disabled: Data.db is written as is, with CRC.db. Cassandra's noCompression(). */
    public static final CompressionParams NONE = new CompressionParams(TableSchema.Compression.NONE, DEFAULT_CHUNK_LENGTH_BYTES,
            UNBOUNDED_MAX_COMPRESSED_LENGTH, 0, new String[0]);
    /** LZ4 with 16 KiB chunks and no options: a table without a compression option, and Cassandra's CompressionParams.DEFAULT. */
    public static final CompressionParams LZ4_DEFAULT = new CompressionParams(TableSchema.Compression.LZ4, DEFAULT_CHUNK_LENGTH_BYTES,
            UNBOUNDED_MAX_COMPRESSED_LENGTH, 0, new String[0]);
    /** What a flush under {@code flush_compression: none} writes for a compressed table: Cassandra's CompressionParams.NOOP (4 KiB chunks, "often the disk block size"). */
    public static final CompressionParams NOOP_FOR_FLUSH = new CompressionParams(TableSchema.Compression.NOOP, 4 * 1024,
            UNBOUNDED_MAX_COMPRESSED_LENGTH, 0, new String[0]);

    private final TableSchema.Compression codec;
    private final int chunkLengthBytes;
    private final int maxCompressedLengthBytes;
    private final double minCompressRatio;
    /** name, value, name, value...: the codec's options as given, in Cassandra's stored order. */
    private final String[] options;

    private CompressionParams(TableSchema.Compression codec, int chunkLengthBytes, int maxCompressedLengthBytes,
                              double minCompressRatio, String[] options) {
        this.codec = codec;
        this.chunkLengthBytes = chunkLengthBytes;
        this.maxCompressedLengthBytes = maxCompressedLengthBytes;
        this.minCompressRatio = minCompressRatio;
        this.options = options;
    }

    /**
     * The codec's defaults (no options, min_compress_ratio 0) with this chunk length.
     * REQUIRES: a positive power of two, unless {@code codec} is NONE.
     */
    public static CompressionParams of(TableSchema.Compression codec, int chunkLengthBytes) {
        if (codec == TableSchema.Compression.NONE) {
            return chunkLengthBytes == DEFAULT_CHUNK_LENGTH_BYTES ? NONE
                    : new CompressionParams(codec, chunkLengthBytes, UNBOUNDED_MAX_COMPRESSED_LENGTH, 0, new String[0]);
        }
        checkChunkLength(chunkLengthBytes);
        return new CompressionParams(codec, chunkLengthBytes, UNBOUNDED_MAX_COMPRESSED_LENGTH, 0, new String[0]);
    }

    /**
     * The {@code compression} table option, as Cassandra's CompressionParams.fromMap reads it.
     * {@code map} iterates in the statement's order. Refuses what Cassandra refuses; a class that
     * is not one of Cassandra's five compressors is refused too (Cassandra would load it from its
     * class path).
     */
    public static CompressionParams fromCqlMap(Map<String, String> map) {
        if (map.isEmpty()) return NONE;
        // Cassandra copies the map into a HashMap and later stores what is left of it in that map's order.
        HashMap<String, String> rest = new HashMap<>();
        for (Map.Entry<String, String> e : map.entrySet()) rest.put(e.getKey(), e.getValue());
        String enabled = rest.get("enabled");
        boolean isEnabled = enabled == null || Boolean.parseBoolean(enabled);
        if (isEnabled && !rest.containsKey("class")) {
            throw new IllegalArgumentException("missing sub-option 'class' (or 'enabled': false to disable compression)");
        }
        rest.remove("enabled");
        if (!isEnabled) {
            if (!rest.isEmpty()) {
                throw new IllegalArgumentException("no other sub-option may be given with 'enabled': false; found '"
                        + rest.keySet().iterator().next() + "'");
            }
            return NONE;
        }
        String cls = rest.remove("class");
        if (cls == null || cls.isEmpty()) {
            throw new IllegalArgumentException("sub-option 'class' must not be empty; to disable compression use 'enabled': false");
        }
        int chunkLength = DEFAULT_CHUNK_LENGTH_BYTES;
        String chunk = rest.remove("chunk_length_in_kb");
        if (chunk != null) {
            int kb;
            try {
                kb = Integer.parseInt(chunk);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("chunk_length_in_kb must be an integer, not '" + chunk + "'");
            }
            if (kb > Integer.MAX_VALUE / 1024) throw new IllegalArgumentException("chunk_length_in_kb " + kb + " is too large");
            chunkLength = 1024 * kb;
        }
        double ratio = 0;
        String ratioText = rest.remove("min_compress_ratio");
        if (ratioText != null) {
            try {
                ratio = Double.parseDouble(ratioText); // Cassandra's own parse: "NaN", "1e0", "2d" and padding included
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("min_compress_ratio must be a number, not '" + ratioText + "'");
            }
        }
        TableSchema.Compression codec = codecOfClass(cls);
        String[] options = codecOptions(codec, rest);
        int maxCompressed = maxCompressedLength(chunkLength, ratio);
        if (chunkLength <= 0) throw new IllegalArgumentException("chunk_length_in_kb must be positive, not " + chunkLength / 1024);
        if (Integer.bitCount(chunkLength) != 1) throw new IllegalArgumentException("chunk_length_in_kb must be a power of 2, not " + chunkLength / 1024);
        if (maxCompressed < 0) throw new IllegalArgumentException("min_compress_ratio must not be negative: " + ratioText);
        if (maxCompressed > chunkLength && maxCompressed < UNBOUNDED_MAX_COMPRESSED_LENGTH) {
            throw new IllegalArgumentException("min_compress_ratio must be 0 or at least 1, not " + ratioText);
        }
        return new CompressionParams(codec, chunkLength, maxCompressed, ratio, options);
    }

    /**
     * The parameters a CompressionInfo.db header stores, checked as Cassandra's reader checks them
     * when it opens the sstable: a known compressor (simple name or in {@link #COMPRESSOR_PACKAGE}),
     * options that compressor takes with values it accepts. The chunk length must be a power of two
     * (Cassandra's chunk reader cannot address anything else); the max compressed length any value
     * from 0 up (a chunk is stored raw when its compressed form would reach it).
     */
    public static CompressionParams fromStored(String compressorName, List<String> optionPairs, int chunkLengthBytes,
                                               int maxCompressedLengthBytes) {
        TableSchema.Compression codec = codecOfClass(compressorName);
        HashMap<String, String> rest = new HashMap<>();
        for (int i = 0; i + 1 < optionPairs.size(); i += 2) rest.put(optionPairs.get(i), optionPairs.get(i + 1));
        String[] options = codecOptions(codec, rest);
        // Keep the order they were stored in, so that a rewrite with these parameters stores the same header.
        String[] stored = optionPairs.toArray(new String[0]);
        if (stored.length != options.length) stored = options; // a name twice: the last value, as Cassandra's HashMap keeps it
        checkChunkLength(chunkLengthBytes);
        if (maxCompressedLengthBytes < 0) throw new IllegalArgumentException("max compressed length " + maxCompressedLengthBytes + " is negative");
        return new CompressionParams(codec, chunkLengthBytes, maxCompressedLengthBytes,
                maxCompressedLengthBytes == UNBOUNDED_MAX_COMPRESSED_LENGTH ? 0 : (double) chunkLengthBytes / maxCompressedLengthBytes, stored);
    }

    private static void checkChunkLength(int chunkLengthBytes) {
        if (chunkLengthBytes <= 0 || Integer.bitCount(chunkLengthBytes) != 1) {
            throw new IllegalArgumentException("chunk length " + chunkLengthBytes + " is not a positive power of 2");
        }
    }

    /** Cassandra's calcMaxCompressedLength, with its double arithmetic (ratio 0 gives the unbounded length, NaN gives 0). */
    static int maxCompressedLength(int chunkLengthBytes, double minCompressRatio) {
        return (int) Math.ceil(Math.min(chunkLengthBytes / minCompressRatio, Integer.MAX_VALUE));
    }

    private static TableSchema.Compression codecOfClass(String cls) {
        String full = cls.contains(".") ? cls : COMPRESSOR_PACKAGE + cls;
        for (TableSchema.Compression c : TableSchema.Compression.values()) {
            if (c != TableSchema.Compression.NONE && full.equals(COMPRESSOR_PACKAGE + c.compressorName())) return c;
        }
        throw new IllegalArgumentException("compression class '" + cls + "' is not one of Cassandra's compressors "
                + "(LZ4Compressor, ZstdCompressor, SnappyCompressor, DeflateCompressor, NoopCompressor)");
    }

    /**
     * The codec's own options: checked as its {@code create} method checks them, then any name it
     * does not take is refused. Returns them as pairs, in the iteration order of {@code rest}.
     */
    private static String[] codecOptions(TableSchema.Compression codec, HashMap<String, String> rest) {
        List<String> supported;
        switch (codec) {
            case LZ4: {
                String type = rest.get(LZ4_COMPRESSOR_TYPE);
                if (type != null && !type.equals("fast") && !type.equals("high")) {
                    throw new IllegalArgumentException("lz4_compressor_type must be 'fast' or 'high', not '" + type + "'");
                }
                String level = rest.get(LZ4_HIGH_COMPRESSION_LEVEL);
                if (level != null) {
                    int l = intOption(LZ4_HIGH_COMPRESSION_LEVEL, level);
                    if (l < 1 || l > 17) throw new IllegalArgumentException("lz4_high_compressor_level must be between 1 and 17, not " + level);
                }
                supported = List.of(LZ4_COMPRESSOR_TYPE, LZ4_HIGH_COMPRESSION_LEVEL);
                break;
            }
            case ZSTD: {
                String level = rest.get(ZSTD_COMPRESSION_LEVEL);
                if (level != null) {
                    int l = intOption(ZSTD_COMPRESSION_LEVEL, level);
                    if (l < ZSTD_MIN_LEVEL || l > ZSTD_MAX_LEVEL) {
                        throw new IllegalArgumentException("compression_level must be between " + ZSTD_MIN_LEVEL + " and "
                                + ZSTD_MAX_LEVEL + ", not " + level);
                    }
                }
                supported = List.of(ZSTD_COMPRESSION_LEVEL);
                break;
            }
            default:
                supported = List.of();
        }
        List<String> pairs = new ArrayList<>();
        for (Map.Entry<String, String> e : rest.entrySet()) {
            if (!supported.contains(e.getKey())) {
                throw new IllegalArgumentException("unknown compression sub-option '" + e.getKey() + "' for " + codec.compressorName()
                        + (supported.isEmpty() ? " (it takes none)" : " (it takes " + String.join(", ", supported) + ")"));
            }
            pairs.add(e.getKey());
            pairs.add(e.getValue());
        }
        return pairs.toArray(new String[0]);
    }

    /** Integer.valueOf, as the compressors parse their levels. */
    private static int intOption(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, not '" + value + "'");
        }
    }

    public TableSchema.Compression codec() { return codec; }

    /** False for {@link TableSchema.Compression#NONE}: Data.db is not chunked, and CRC.db goes with it. */
    public boolean isEnabled() { return codec != TableSchema.Compression.NONE; }

    public int chunkLengthBytes() { return chunkLengthBytes; }

    /** A chunk whose compressed form reaches this many bytes is stored raw; {@link #UNBOUNDED_MAX_COMPRESSED_LENGTH} never. */
    public int maxCompressedLengthBytes() { return maxCompressedLengthBytes; }

    public double minCompressRatio() { return minCompressRatio; }

    /** The option pairs CompressionInfo.db stores (name, value, ...). Do not modify. */
    public String[] optionPairs() { return options; }

    /** The value of option {@code name}, or null. */
    public String option(String name) {
        for (int i = 0; i < options.length; i += 2) {
            if (options[i].equals(name)) return options[i + 1];
        }
        return null;
    }

    /** LZ4Compressor with {@code lz4_compressor_type: high}. */
    public boolean isLz4High() {
        return codec == TableSchema.Compression.LZ4 && "high".equals(option(LZ4_COMPRESSOR_TYPE));
    }

    /** lz4_high_compressor_level (default 9); it only matters for the high compressor. */
    public int lz4HighLevel() {
        String l = option(LZ4_HIGH_COMPRESSION_LEVEL);
        return l == null ? LZ4_DEFAULT_HIGH_LEVEL : Integer.parseInt(l);
    }

    /** ZstdCompressor's compression_level (default 3). */
    public int zstdLevel() {
        String l = option(ZSTD_COMPRESSION_LEVEL);
        return l == null ? ZSTD_DEFAULT_LEVEL : Integer.parseInt(l);
    }

    /**
     * Whether Cassandra's compressor recommends itself for flushes (its FAST_COMPRESSION use):
     * LZ4 with the fast compressor, Snappy and Noop do; LZ4 high, Zstd and Deflate do not.
     */
    public boolean isFastForFlush() {
        switch (codec) {
            case LZ4: return !isLz4High();
            case SNAPPY:
            case NOOP: return true;
            default: return false;
        }
    }

    /** These parameters with another chunk length (options and the max compressed length kept). */
    public CompressionParams withChunkLength(int newChunkLengthBytes) {
        if (codec == TableSchema.Compression.NONE) return of(codec, newChunkLengthBytes);
        checkChunkLength(newChunkLengthBytes);
        int max = maxCompressedLengthBytes == UNBOUNDED_MAX_COMPRESSED_LENGTH ? maxCompressedLengthBytes
                : maxCompressedLength(newChunkLengthBytes, minCompressRatio);
        return new CompressionParams(codec, newChunkLengthBytes, max, minCompressRatio, options);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CompressionParams)) return false;
        CompressionParams p = (CompressionParams) o;
        return codec == p.codec && chunkLengthBytes == p.chunkLengthBytes && maxCompressedLengthBytes == p.maxCompressedLengthBytes
                && Arrays.equals(options, p.options);
    }

    @Override
    public int hashCode() {
        return ((codec.hashCode() * 31 + chunkLengthBytes) * 31 + maxCompressedLengthBytes) * 31 + Arrays.hashCode(options);
    }

    /** e.g. {@code ZstdCompressor chunk 16 KiB, compression_level=5}, or {@code none}. */
    @Override
    public String toString() {
        if (!isEnabled()) return "none";
        StringBuilder sb = new StringBuilder(codec.compressorName()).append(" chunk ");
        if (chunkLengthBytes % 1024 == 0) sb.append(chunkLengthBytes / 1024).append(" KiB");
        else sb.append(chunkLengthBytes).append(" bytes");
        if (maxCompressedLengthBytes != UNBOUNDED_MAX_COMPRESSED_LENGTH) sb.append(", max compressed ").append(maxCompressedLengthBytes);
        for (int i = 0; i < options.length; i += 2) sb.append(", ").append(options[i]).append('=').append(options[i + 1]);
        return sb.toString();
    }
}
