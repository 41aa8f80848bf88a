package dev.flushline.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A table: keyspace, name, id, columns by role, and the sstable options we honour.
 *
 * <p>Static and regular columns are kept in sstable header order: simple columns first, then
 * complex (non-frozen collection) ones, each group by unsigned byte order of the UTF-8 name.
 * That is the order in which Data.db writes a row's cells, so a row can store its cells in an
 * array indexed by {@link ColumnMetadata#position()}.
 *
 * <p>Build with {@link CqlParser#parse(String)}. Thread safety: immutable.
 */
public final class TableSchema {

    /** Data.db compression: none (CRC.db), or one of Cassandra's five compressors (CompressionInfo.db). */
    public enum Compression {
        NONE(null, "none"),
        LZ4("LZ4Compressor", "lz4"),
        ZSTD("ZstdCompressor", "zstd"),
        SNAPPY("SnappyCompressor", "snappy"),
        DEFLATE("DeflateCompressor", "deflate"),
        NOOP("NoopCompressor", "noop");

        private final String compressorName;
        private final String cliName;

        Compression(String compressorName, String cliName) {
            this.compressorName = compressorName;
            this.cliName = cliName;
        }

        /** The simple class name Cassandra stores in CompressionInfo.db; null for NONE. */
        public String compressorName() { return compressorName; }

        /** The name the command line uses ({@code --compression zstd}). */
        public String cliName() { return cliName; }

        /** The codec a command line names, or null. */
        public static Compression fromCliName(String name) {
            for (Compression c : values()) {
                if (c.cliName.equals(name)) return c;
            }
            return null;
        }
    }

    public static final int DEFAULT_CHUNK_LENGTH_BYTES = 16 * 1024;
    /** Cassandra 5.0's default; 0.1 instead when the table uses LeveledCompactionStrategy. */
    public static final double DEFAULT_BLOOM_FILTER_FP_CHANCE = 0.01;
    public static final int DEFAULT_MIN_INDEX_INTERVAL = 128;
    public static final int DEFAULT_MAX_INDEX_INTERVAL = 2048;
    /** Cassandra's default gc_grace_seconds: 10 days. */
    public static final int DEFAULT_GC_GRACE_SECONDS = 864_000;

    private final String keyspace;
    private final String name;
    private final UUID id;
    private final ColumnMetadata[] partitionKey;
    private final ColumnMetadata[] clustering;
    private final ColumnMetadata[] statics;
    private final ColumnMetadata[] regulars;
    private final Map<String, ColumnMetadata> byName;
    private final CompressionParams compression;
    private final int staticComplexStart;
    private final int regularComplexStart;
    private final double bloomFilterFpChance;
    private final int minIndexInterval;
    /**
     * The coarsest summary sampling Cassandra's index summary redistribution may downsample to.
     * A freshly written sstable samples at {@link #minIndexInterval}, whatever this says.
     */
    private final int maxIndexInterval;
    private final int defaultTimeToLiveSeconds;
    /** How long a tombstone must outlive its deletion before compaction may purge it. */
    private final int gcGraceSeconds;
    /** The compaction sub-option only_purge_repaired_tombstones: purge nothing unless every input is repaired. */
    private final boolean onlyPurgeRepairedTombstones;

    /**
     * Columns are given in declaration order; this constructor assigns positions and header order.
     * {@code clusteringReversed[i]} marks clustering column i as DESC.
     */
    public TableSchema(String keyspace, String name, UUID id,
                       List<String> partitionKeyNames, List<CqlType> partitionKeyTypes,
                       List<String> clusteringNames, List<CqlType> clusteringTypes, boolean[] clusteringReversed,
                       List<String> staticNames, List<CqlType> staticTypes,
                       List<String> regularNames, List<CqlType> regularTypes,
                       Compression compression, int chunkLengthBytes) {
        this(keyspace, name, id, partitionKeyNames, partitionKeyTypes, clusteringNames, clusteringTypes,
                clusteringReversed, staticNames, staticTypes, regularNames, regularTypes, compression,
                chunkLengthBytes, DEFAULT_BLOOM_FILTER_FP_CHANCE, DEFAULT_MIN_INDEX_INTERVAL, 0);
    }

    /**
     * As above, with the table options that change what a flush writes: the bloom filter's
     * false-positive chance (Filter.db), the sampling interval of the BIG format's index summary and
     * the TTL applied to writes that carry none.
     */
    public TableSchema(String keyspace, String name, UUID id,
                       List<String> partitionKeyNames, List<CqlType> partitionKeyTypes,
                       List<String> clusteringNames, List<CqlType> clusteringTypes, boolean[] clusteringReversed,
                       List<String> staticNames, List<CqlType> staticTypes,
                       List<String> regularNames, List<CqlType> regularTypes,
                       Compression compression, int chunkLengthBytes,
                       double bloomFilterFpChance, int minIndexInterval, int defaultTimeToLiveSeconds) {
        this.bloomFilterFpChance = bloomFilterFpChance;
        this.minIndexInterval = minIndexInterval;
        this.maxIndexInterval = Math.max(DEFAULT_MAX_INDEX_INTERVAL, minIndexInterval);
        this.defaultTimeToLiveSeconds = defaultTimeToLiveSeconds;
        this.gcGraceSeconds = DEFAULT_GC_GRACE_SECONDS;
        this.onlyPurgeRepairedTombstones = false;
        this.keyspace = keyspace;
        this.name = name;
        this.id = id;
        this.compression = CompressionParams.of(compression, chunkLengthBytes);
        this.partitionKey = new ColumnMetadata[partitionKeyNames.size()];
        for (int i = 0; i < partitionKey.length; i++) {
            partitionKey[i] = new ColumnMetadata(partitionKeyNames.get(i), partitionKeyTypes.get(i),
                    ColumnMetadata.Role.PARTITION_KEY, i, false);
        }
        this.clustering = new ColumnMetadata[clusteringNames.size()];
        for (int i = 0; i < clustering.length; i++) {
            clustering[i] = new ColumnMetadata(clusteringNames.get(i), clusteringTypes.get(i),
                    ColumnMetadata.Role.CLUSTERING, i, clusteringReversed[i]);
        }
        this.statics = headerOrder(staticNames, staticTypes, ColumnMetadata.Role.STATIC);
        this.regulars = headerOrder(regularNames, regularTypes, ColumnMetadata.Role.REGULAR);
        this.staticComplexStart = firstComplex(statics);
        this.regularComplexStart = firstComplex(regulars);
        Map<String, ColumnMetadata> m = new HashMap<>();
        for (ColumnMetadata[] group : new ColumnMetadata[][] {partitionKey, clustering, statics, regulars}) {
            for (ColumnMetadata c : group) {
                if (m.put(c.name(), c) != null) {
                    throw new IllegalArgumentException("duplicate column " + c.name());
                }
            }
        }
        this.byName = Collections.unmodifiableMap(m);
    }

    private static ColumnMetadata[] headerOrder(List<String> names, List<CqlType> types, ColumnMetadata.Role role) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) order.add(i);
        order.sort((x, y) -> {
            boolean cx = types.get(x).isMultiCell(), cy = types.get(y).isMultiCell();
            if (cx != cy) return cx ? 1 : -1;
            return Arrays.compareUnsigned(utf8(names.get(x)), utf8(names.get(y)));
        });
        ColumnMetadata[] out = new ColumnMetadata[names.size()];
        for (int p = 0; p < out.length; p++) {
            int i = order.get(p);
            out[p] = new ColumnMetadata(names.get(i), types.get(i), role, p, false);
        }
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static int firstComplex(ColumnMetadata[] cols) {
        for (int i = 0; i < cols.length; i++) {
            if (cols[i].isComplex()) return i;
        }
        return cols.length;
    }

    public String keyspace() { return keyspace; }

    public String name() { return name; }

    public UUID id() { return id; }

    /** The table id as Cassandra names the table folder: 32 lowercase hex digits, no dashes. */
    public String idHex() {
        return id.toString().replace("-", "");
    }

    /** The table's folder under a data root, as a node lays it out: {@code <root>/<keyspace>/<table>-<id>}. */
    public java.nio.file.Path directoryUnder(java.nio.file.Path root) {
        return directory(root, keyspace, name, idHex());
    }

    /** The one home of the folder rule: {@code <root>/<keyspace>/<table>-<id hex>}. */
    public static java.nio.file.Path directory(java.nio.file.Path root, String keyspace, String table, String idHex) {
        return root.resolve(keyspace).resolve(table + "-" + idHex);
    }

    /** Declaration order. Do not modify the returned array. */
    public ColumnMetadata[] partitionKeyColumns() { return partitionKey; }

    /** Declaration order. Do not modify the returned array. */
    public ColumnMetadata[] clusteringColumns() { return clustering; }

    /** Header order. Do not modify the returned array. */
    public ColumnMetadata[] staticColumns() { return statics; }

    /** Header order. Do not modify the returned array. */
    public ColumnMetadata[] regularColumns() { return regulars; }

    /** Index in {@link #staticColumns()} of the first complex column (= length if none). */
    public int staticComplexStart() { return staticComplexStart; }

    /** Index in {@link #regularColumns()} of the first complex column (= length if none). */
    public int regularComplexStart() { return regularComplexStart; }

    /** The column with this exact (case-sensitive, unquoted) name, or null. */
    public ColumnMetadata column(String columnName) { return byName.get(columnName); }

    /** The codec of {@link #compressionParams()}. */
    public Compression compression() { return compression.codec(); }

    public int chunkLengthBytes() { return compression.chunkLengthBytes(); }

    /** The table's {@code compression} option in full: codec, chunk length, max compressed length, the codec's options. */
    public CompressionParams compressionParams() { return compression; }

    /** Table option bloom_filter_fp_chance (its default depends on the compaction strategy). */
    public double bloomFilterFpChance() { return bloomFilterFpChance; }

    /** Table option min_index_interval: the BIG format's index summary samples one partition in this many. */
    public int minIndexInterval() { return minIndexInterval; }

    /** Table option max_index_interval; it does not change what is written (see the field). */
    public int maxIndexInterval() { return maxIndexInterval; }

    /** A counter table: every column outside the primary key is a counter. */
    public boolean isCounterTable() {
        for (ColumnMetadata[] g : new ColumnMetadata[][] {statics, regulars}) {
            for (ColumnMetadata c : g) if (c.type().isCounter()) return true;
        }
        return false;
    }

    /** Table option default_time_to_live; 0 = none. */
    public int defaultTimeToLiveSeconds() { return defaultTimeToLiveSeconds; }

    /** gc_grace_seconds: compaction purges a tombstone only once it is older than this. */
    public int gcGraceSeconds() { return gcGraceSeconds; }

    /** The compaction option only_purge_repaired_tombstones: tombstones are purged only when every input is repaired. */
    public boolean onlyPurgeRepairedTombstones() { return onlyPurgeRepairedTombstones; }

    /** Marshal name of the partition key: the column's type, or CompositeType(...) of them all. */
    public String partitionKeyMarshalName() {
        if (partitionKey.length == 1) {
            return partitionKey[0].type().marshalName();
        }
        StringBuilder sb = new StringBuilder("org.apache.cassandra.db.marshal.CompositeType(");
        for (int i = 0; i < partitionKey.length; i++) {
            if (i > 0) sb.append(',');
            sb.append(partitionKey[i].type().marshalName());
        }
        return sb.append(')').toString();
    }

    /** Orders two full clusterings (one value per clustering column) as Cassandra does. */
    public int compareClustering(byte[][] a, byte[][] b) {
        for (int i = 0; i < clustering.length; i++) {
            int c = clustering[i].compareClustering(a[i], b[i]);
            if (c != 0) return c;
        }
        return 0;
    }

    /** A copy of this schema with the codec's default settings at this chunk length (the CLI's --compression). */
    public TableSchema withCompression(Compression newCompression, int newChunkLengthBytes) {
        return withCompression(CompressionParams.of(newCompression, newChunkLengthBytes));
    }

    /** A copy of this schema with other compression settings. */
    public TableSchema withCompression(CompressionParams newCompression) {
        return new TableSchema(this, newCompression, gcGraceSeconds, onlyPurgeRepairedTombstones);
    }

    /** A copy of this schema with the table option max_index_interval. REQUIRES: at least {@link #minIndexInterval()}. */
    public TableSchema withMaxIndexInterval(int newMaxIndexInterval) {
        if (newMaxIndexInterval < minIndexInterval) {
            throw new IllegalArgumentException("max_index_interval " + newMaxIndexInterval + " is below min_index_interval " + minIndexInterval);
        }
        return new TableSchema(this, newMaxIndexInterval);
    }

    private TableSchema(TableSchema t, int maxIndexInterval) {
        this.keyspace = t.keyspace;
        this.name = t.name;
        this.id = t.id;
        this.partitionKey = t.partitionKey;
        this.clustering = t.clustering;
        this.statics = t.statics;
        this.regulars = t.regulars;
        this.byName = t.byName;
        this.staticComplexStart = t.staticComplexStart;
        this.regularComplexStart = t.regularComplexStart;
        this.bloomFilterFpChance = t.bloomFilterFpChance;
        this.minIndexInterval = t.minIndexInterval;
        this.maxIndexInterval = maxIndexInterval;
        this.defaultTimeToLiveSeconds = t.defaultTimeToLiveSeconds;
        this.compression = t.compression;
        this.gcGraceSeconds = t.gcGraceSeconds;
        this.onlyPurgeRepairedTombstones = t.onlyPurgeRepairedTombstones;
    }

    /** A copy of this schema with the options that decide what compaction may purge. REQUIRES: gcGraceSeconds >= 0. */
    public TableSchema withPurgeOptions(int newGcGraceSeconds, boolean newOnlyPurgeRepairedTombstones) {
        if (newGcGraceSeconds < 0) throw new IllegalArgumentException("gc_grace_seconds must be at least 0: " + newGcGraceSeconds);
        return new TableSchema(this, compression, newGcGraceSeconds, newOnlyPurgeRepairedTombstones);
    }

    private TableSchema(TableSchema t, CompressionParams compression, int gcGraceSeconds,
                        boolean onlyPurgeRepairedTombstones) {
        this.keyspace = t.keyspace;
        this.name = t.name;
        this.id = t.id;
        this.partitionKey = t.partitionKey;
        this.clustering = t.clustering;
        this.statics = t.statics;
        this.regulars = t.regulars;
        this.byName = t.byName;
        this.staticComplexStart = t.staticComplexStart;
        this.regularComplexStart = t.regularComplexStart;
        this.bloomFilterFpChance = t.bloomFilterFpChance;
        this.minIndexInterval = t.minIndexInterval;
        this.maxIndexInterval = t.maxIndexInterval;
        this.defaultTimeToLiveSeconds = t.defaultTimeToLiveSeconds;
        this.compression = compression;
        this.gcGraceSeconds = gcGraceSeconds;
        this.onlyPurgeRepairedTombstones = onlyPurgeRepairedTombstones;
    }

    @Override
    public String toString() {
        return keyspace + "." + name;
    }
}
