package dev.flushline.testing;

/**
 * The {@code compression} maps compatibility tests draw from: none, and every codec Cassandra 5.0
 * has, some with their own options, another chunk length, or a min_compress_ratio that stores
 * incompressible chunks raw.
 */
public final class Compressions {
    private Compressions() {}

    public static final String NONE = "{'enabled': 'false'}";
    public static final String LZ4 = "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}";
    public static final String ZSTD = "{'class': 'ZstdCompressor', 'compression_level': 5}";
    public static final String SNAPPY = "{'class': 'SnappyCompressor', 'chunk_length_in_kb': 4}";
    public static final String DEFLATE = "{'class': 'DeflateCompressor', 'chunk_length_in_kb': 32}";
    public static final String NOOP = "{'class': 'NoopCompressor'}";
    public static final String LZ4_HIGH = "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'high', 'lz4_high_compressor_level': 7}";
    public static final String ZSTD_RATIO = "{'class': 'ZstdCompressor', 'chunk_length_in_kb': 4, 'min_compress_ratio': 1.2}";

    /** None first, then one of each codec, then the variants. */
    public static final String[] ALL = {NONE, LZ4, ZSTD, SNAPPY, DEFLATE, NOOP, LZ4_HIGH, ZSTD_RATIO};

    /** Table CQL with this {@code compression} map. */
    public static String with(String cql, String map) {
        return cql + (cql.contains(" WITH ") ? " AND " : " WITH ") + "compression = " + map;
    }
}
