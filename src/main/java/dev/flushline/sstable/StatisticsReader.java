package dev.flushline.sstable;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * Decodes Statistics.db ({@link StatisticsLayout}): checks the container's CRCs and every
 * component's CRC, then reads VALIDATION, the STATS fields a reader or verifier needs, and the
 * HEADER, which it resolves against the table schema into the {@link SerializationHeader} that
 * Data.db was written with. Column types come from the header; a header column the schema does
 * not have, or whose type differs from the schema's, refuses the sstable.
 *
 * <p>Thread safety: the result is immutable.
 */
public final class StatisticsReader {
    /** Cassandra's leveled manifest has levels 0 to 8. */
    static final int MAX_LEVEL = 8;
    private StatisticsReader() {}

    /** What Statistics.db says about its sstable. */
    public static final class Metadata {
        public String partitioner;
        public double bloomFilterFpChance;
        public long partitionCount;
        public long minTimestamp, maxTimestamp;
        public long minLocalDeletionTime, maxLocalDeletionTime;
        public int minTtl, maxTtl;
        public double compressionRatio;
        public long totalColumnsSet, totalRows;
        public boolean hasPartitionLevelDeletions;
        /** The leveled strategy's level from the STATS component (0 for a flush). */
        public int level;
        /** When the sstable was repaired (ms since the epoch), or 0 for unrepaired. */
        public long repairedAt;
        public byte[] firstKey, lastKey;
        public SerializationHeader header;
        /** Marshal names as the HEADER spells them, in header order. */
        public String[] clusteringTypeNames;
        public String partitionKeyTypeName;
    }

    /** As a reader does: the COMPACTION component's CRC is not checked (Cassandra's reader skips it). */
    public static Metadata read(Path file, byte[] bytes, TableSchema schema) {
        return read(file, bytes, schema, false);
    }

    /** {@code allCrcs}: also check the COMPACTION component's CRC, as a verifier should. */
    public static Metadata read(Path file, byte[] bytes, TableSchema schema, boolean allCrcs) {
        return read(file, bytes, schema, allCrcs, SSTableVersion.OA);
    }

    /** The Statistics.db of a {@code version} sstable (STATS differs, see {@link StatisticsWriter}). */
    public static Metadata read(SSTableFiles f, TableSchema schema, boolean allCrcs) throws java.io.IOException {
        return read(f.path(Component.STATISTICS), f.readAll(Component.STATISTICS), schema, allCrcs, f.version());
    }

    public static Metadata read(Path file, byte[] bytes, TableSchema schema, boolean allCrcs, SSTableVersion version) {
        int[][] bounds = components(file, bytes, allCrcs);
        int[] start = bounds[0], end = bounds[1];
        Metadata m = new Metadata();
        if (start[StatisticsLayout.VALIDATION] >= 0) {
            BoundedReader v = new BoundedReader(file, bytes, start[StatisticsLayout.VALIDATION], end[StatisticsLayout.VALIDATION], 0);
            long at = v.fileOffset();
            m.partitioner = v.utf("partitioner");
            if (!StatisticsLayout.PARTITIONER.equals(m.partitioner)) {
                throw new IncompatibleSSTableException(file, "partitioner " + m.partitioner + " at byte offset " + at
                        + " is not " + StatisticsLayout.PARTITIONER);
            }
            m.bloomFilterFpChance = Double.longBitsToDouble(v.i64("bloom filter fp chance"));
        }
        m.header = readHeader(new BoundedReader(file, bytes, start[StatisticsLayout.HEADER], end[StatisticsLayout.HEADER], 0), schema, m);
        readStats(new BoundedReader(file, bytes, start[StatisticsLayout.STATS], end[StatisticsLayout.STATS], 0), m,
                schema.clusteringColumns(), version);
        return m;
    }

    /**
     * The container: checks the count's and the table's CRCs and each known component's CRC (the
     * COMPACTION component's only with {@code allCrcs}); returns {start[], end[]} by component type
     * (-1 start: absent), end before the component's CRC. Refuses a file without STATS or HEADER.
     */
    private static int[][] components(Path file, byte[] bytes, boolean allCrcs) {
        BoundedReader in = new BoundedReader(file, bytes);
        int count = in.i32("component count");
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, StatisticsLayout.COUNT_BYTES);
        long crcAt = in.fileOffset();
        if (in.i32("component count CRC") != (int) crc.getValue()) throw in.corrupt(crcAt, "component count CRC mismatch");
        if (count <= 0 || count > StatisticsLayout.COMPONENT_COUNT * 4) throw in.corrupt(0, "component count " + count + " is not plausible");
        int tocStart = in.position();
        int[] types = new int[count];
        int[] offsets = new int[count];
        for (int i = 0; i < count; i++) {
            types[i] = in.i32("component type");
            offsets[i] = in.i32("component offset");
        }
        crc.update(bytes, tocStart, in.position() - tocStart);
        crcAt = in.fileOffset();
        if (in.i32("component table CRC") != (int) crc.getValue()) throw in.corrupt(crcAt, "component table CRC mismatch");
        int[] start = new int[StatisticsLayout.COMPONENT_COUNT];
        int[] end = new int[StatisticsLayout.COMPONENT_COUNT];
        java.util.Arrays.fill(start, -1);
        for (int i = 0; i < count; i++) {
            int next = i + 1 < count ? offsets[i + 1] : bytes.length;
            if (offsets[i] < in.position() || next > bytes.length || next - StatisticsLayout.CRC_BYTES < offsets[i]) {
                throw in.corrupt(StatisticsLayout.COUNT_BYTES + StatisticsLayout.CRC_BYTES + StatisticsLayout.TOC_ENTRY_BYTES * i,
                        "component " + types[i] + " offset " + offsets[i] + " outside the file of " + bytes.length + " bytes");
            }
            if (types[i] < 0 || types[i] >= StatisticsLayout.COMPONENT_COUNT) continue; // unknown: ignored, as Cassandra does
            int componentEnd = next - StatisticsLayout.CRC_BYTES;
            CRC32 c = new CRC32();
            c.update(bytes, offsets[i], componentEnd - offsets[i]);
            if (BoundedReader.getInt(bytes, componentEnd) != (int) c.getValue() && (allCrcs || types[i] != StatisticsLayout.COMPACTION)) {
                throw in.corrupt(componentEnd, "CRC mismatch of Statistics component " + types[i]);
            }
            start[types[i]] = offsets[i];
            end[types[i]] = componentEnd;
        }
        if (start[StatisticsLayout.STATS] < 0 || start[StatisticsLayout.HEADER] < 0) {
            throw in.corrupt(0, "Statistics.db has no STATS or HEADER component");
        }
        return new int[][] {start, end};
    }

    /**
     * The HEADER's types and columns as they are spelled, read without a schema (to recover one):
     * marshal names of the partition key (a CompositeType for several columns) and the clustering
     * columns (ReversedType for DESC), then the static and regular columns' names and marshal names
     * in header order. Also the bloom filter's false-positive chance from VALIDATION (NaN if absent).
     */
    public static final class HeaderTypes {
        public String partitionKeyType;
        public String[] clusteringTypes;
        public String[] staticNames, staticTypes, regularNames, regularTypes;
        public double bloomFilterFpChance = Double.NaN;
    }

    /** The {@link HeaderTypes} of an sstable's Statistics.db (its CRCs checked as a reader checks them). */
    public static HeaderTypes headerTypes(SSTableFiles f) throws java.io.IOException {
        Path file = f.path(Component.STATISTICS);
        byte[] bytes = f.readAll(Component.STATISTICS);
        int[][] bounds = components(file, bytes, false);
        int[] start = bounds[0], end = bounds[1];
        HeaderTypes h = new HeaderTypes();
        if (start[StatisticsLayout.VALIDATION] >= 0) {
            BoundedReader v = new BoundedReader(file, bytes, start[StatisticsLayout.VALIDATION], end[StatisticsLayout.VALIDATION], 0);
            long at = v.fileOffset();
            String partitioner = v.utf("partitioner");
            if (!StatisticsLayout.PARTITIONER.equals(partitioner)) {
                throw new IncompatibleSSTableException(file, "partitioner " + partitioner + " at byte offset " + at
                        + " is not " + StatisticsLayout.PARTITIONER);
            }
            h.bloomFilterFpChance = Double.longBitsToDouble(v.i64("bloom filter fp chance"));
        }
        BoundedReader in = new BoundedReader(file, bytes, start[StatisticsLayout.HEADER], end[StatisticsLayout.HEADER], 0);
        in.unsignedVInt("EncodingStats min timestamp");
        in.unsignedVInt32("EncodingStats min local deletion time");
        in.unsignedVInt32("EncodingStats min ttl");
        h.partitionKeyType = in.vintString("partition key type");
        long at = in.fileOffset();
        int ck = in.unsignedVInt32("clustering type count");
        if (ck > in.remaining()) throw in.corrupt(at, "clustering type count " + ck + " exceeds the component");
        h.clusteringTypes = new String[ck];
        for (int i = 0; i < ck; i++) h.clusteringTypes[i] = in.vintString("clustering type");
        String[][] statics = namesAndTypes(in, "static");
        String[][] regulars = namesAndTypes(in, "regular");
        h.staticNames = statics[0];
        h.staticTypes = statics[1];
        h.regularNames = regulars[0];
        h.regularTypes = regulars[1];
        return h;
    }

    private static String[][] namesAndTypes(BoundedReader in, String kind) {
        long at = in.fileOffset();
        int n = in.unsignedVInt32(kind + " column count");
        if (n > in.remaining() / 2) throw in.corrupt(at, kind + " column count " + n + " exceeds the component");
        String[] names = new String[n], types = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = in.vintString(kind + " column name");
            types[i] = in.vintString(kind + " column type");
        }
        return new String[][] {names, types};
    }

    private static long histogramCount(BoundedReader in, String what) {
        long at = in.fileOffset();
        int n = in.i32(what + " bucket count");
        if (n < 0 || (long) n * 16 > in.remaining()) throw in.corrupt(at, what + " bucket count " + n + " exceeds the component");
        // The labels are made once, not per bucket: an sstable's histograms hold about a hundred each.
        String offsetLabel = what + " offset", countLabel = what + " count";
        long total = 0;
        for (int i = 0; i < n; i++) {
            in.i64(offsetLabel);
            total += in.i64(countLabel);
        }
        return total;
    }

    private static long ldt(int unsigned) {
        return unsigned == -1 ? Long.MAX_VALUE : unsigned & 0xFFFFFFFFL;
    }

    /** nb's signed local deletion time: Integer.MAX_VALUE is "none". */
    private static long legacyLdt(int signed) {
        return signed == DeletionTimeLayout.LEGACY_LIVE_LOCAL_DELETION_TIME ? Long.MAX_VALUE : signed;
    }

    private static void readStats(BoundedReader in, Metadata m, ColumnMetadata[] clustering, SSTableVersion version) {
        boolean oa = version.hasUnsignedDeletionTime();
        m.partitionCount = histogramCount(in, "partition size histogram");
        histogramCount(in, "cells per partition histogram");
        in.i64("commit log upper bound segment");
        in.i32("commit log upper bound position");
        m.minTimestamp = in.i64("min timestamp");
        m.maxTimestamp = in.i64("max timestamp");
        if (oa) {
            m.minLocalDeletionTime = ldt(in.i32("min local deletion time"));
            m.maxLocalDeletionTime = ldt(in.i32("max local deletion time"));
        } else {
            m.minLocalDeletionTime = legacyLdt(in.i32("min local deletion time"));
            m.maxLocalDeletionTime = legacyLdt(in.i32("max local deletion time"));
        }
        m.minTtl = in.i32("min ttl");
        m.maxTtl = in.i32("max ttl");
        m.compressionRatio = Double.longBitsToDouble(in.i64("compression ratio"));
        long at = in.fileOffset();
        int bins = in.i32("tombstone histogram size");
        int bins2 = in.i32("tombstone histogram bins");
        int binBytes = oa ? 12 : 16;
        if (bins2 < 0 || (long) bins2 * binBytes > in.remaining()) throw in.corrupt(at, "tombstone histogram of " + bins2 + " bins exceeds the component");
        in.skip(bins2 * binBytes, "tombstone histogram");
        at = in.fileOffset();
        m.level = in.i32("sstable level");
        if (m.level < 0 || m.level > MAX_LEVEL) throw in.corrupt(at, "sstable level " + m.level + " outside 0.." + MAX_LEVEL);
        m.repairedAt = in.i64("repairedAt");
        if (oa) {
            at = in.fileOffset();
            int ck = in.unsignedVInt32("clustering type count");
            if (ck != clustering.length) throw in.corrupt(at, "STATS has " + ck + " clustering types; the HEADER has " + clustering.length);
            for (int i = 0; i < ck; i++) in.skipVIntBytes("clustering type");
            skipBound(in, clustering);
            skipBound(in, clustering);
        } else {
            skipLegacyValues(in, "min clustering", clustering.length);
            skipLegacyValues(in, "max clustering", clustering.length);
        }
        in.u8("has legacy counter shards");
        m.totalColumnsSet = in.i64("total columns set");
        m.totalRows = in.i64("total rows");
        in.i64("commit log lower bound segment");
        in.i32("commit log lower bound position");
        at = in.fileOffset();
        int intervals = in.i32("commit log interval count");
        if (intervals < 0 || (long) intervals * 24 > in.remaining()) throw in.corrupt(at, "commit log interval count " + intervals + " exceeds the component");
        in.skip(intervals * 24, "commit log intervals");
        if (in.u8("pending repair") != StatisticsLayout.OPTIONAL_ABSENT) in.skip(StatisticsLayout.UUID_BYTES, "pending repair id");
        in.u8("is transient");
        if (in.u8("originating host id") != StatisticsLayout.OPTIONAL_ABSENT) in.skip(StatisticsLayout.UUID_BYTES, "originating host id");
        if (!oa) return; // nb ends here: no partition-deletion marker, key range or token space coverage
        m.hasPartitionLevelDeletions = in.u8("has partition level deletions") != 0;
        m.firstKey = in.vintBytes("first key");
        m.lastKey = in.vintBytes("last key");
    }

    /** nb's min/max clustering: count:i32 (value_len:u16 value)*. */
    private static void skipLegacyValues(BoundedReader in, String what, int clusteringCount) {
        long at = in.fileOffset();
        int n = in.i32(what + " value count");
        if (n < 0 || n > clusteringCount) throw in.corrupt(at, what + " has " + n + " values; the table has " + clusteringCount);
        String lengthLabel = what + " value length", valueLabel = what + " value";
        for (int i = 0; i < n; i++) in.skip(in.u16(lengthLabel), valueLabel);
    }

    /** kind:u8 size:u16 [values], values walked with the schema's clustering types (checked against the HEADER). */
    private static void skipBound(BoundedReader in, ColumnMetadata[] clustering) {
        in.u8("covered slice bound kind");
        long at = in.fileOffset();
        int size = in.u16("covered slice bound size");
        if (size > clustering.length) throw in.corrupt(at, "covered slice bound has " + size + " values; the table has " + clustering.length);
        for (int blockStart = 0; blockStart < size; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            long header = in.unsignedVInt("clustering block header");
            int blockEnd = Math.min(size, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            for (int i = blockStart; i < blockEnd; i++) {
                if (((header >>> (2 * (i - blockStart))) & 3) != 0) continue; // empty or null: no bytes
                int fixed = clustering[i].type().fixedLength();
                if (fixed >= 0) in.skip(fixed, "clustering value");
                else in.skipVIntBytes("clustering value");
            }
        }
    }

    // ---- HEADER -----------------------------------------------------------------------------

    private static SerializationHeader readHeader(BoundedReader in, TableSchema schema, Metadata m) {
        Path file = in.file();
        long ts = in.unsignedVInt("EncodingStats min timestamp");
        int ldt = in.unsignedVInt32("EncodingStats min local deletion time");
        int ttl = in.unsignedVInt32("EncodingStats min ttl");
        // As Cassandra reads them: the local deletion time base in int arithmetic (see EncodingStats).
        EncodingStats stats = new EncodingStats(ts + EncodingStats.TIMESTAMP_EPOCH,
                (int) (ldt + (int) EncodingStats.DELETION_TIME_EPOCH), ttl + EncodingStats.TTL_EPOCH);
        long at = in.fileOffset();
        m.partitionKeyTypeName = in.vintString("partition key type");
        if (!m.partitionKeyTypeName.equals(schema.partitionKeyMarshalName())) {
            throw mismatch(file, at, "partition key type " + m.partitionKeyTypeName + ", the schema's is " + schema.partitionKeyMarshalName());
        }
        at = in.fileOffset();
        int ck = in.unsignedVInt32("clustering type count");
        ColumnMetadata[] cks = schema.clusteringColumns();
        if (ck != cks.length) throw mismatch(file, at, ck + " clustering columns, the schema has " + cks.length);
        m.clusteringTypeNames = new String[ck];
        for (int i = 0; i < ck; i++) {
            at = in.fileOffset();
            m.clusteringTypeNames[i] = in.vintString("clustering type");
            if (!m.clusteringTypeNames[i].equals(cks[i].marshalName())) {
                throw mismatch(file, at, "clustering column " + cks[i].name() + " of type " + m.clusteringTypeNames[i]
                        + ", the schema's is " + cks[i].marshalName());
            }
        }
        boolean[] statics = columns(in, schema.staticColumns(), "static", schema);
        boolean[] regulars = columns(in, schema.regularColumns(), "regular", schema);
        return new SerializationHeader(schema, stats, statics, regulars);
    }

    private static boolean[] columns(BoundedReader in, ColumnMetadata[] all, String kind, TableSchema schema) {
        long at = in.fileOffset();
        int n = in.unsignedVInt32(kind + " column count");
        if (n < 0 || n > all.length) throw mismatch(in.file(), at, n + " " + kind + " columns, the schema has " + all.length);
        boolean[] included = new boolean[all.length];
        int last = -1;
        for (int i = 0; i < n; i++) {
            at = in.fileOffset();
            String name = in.vintString(kind + " column name");
            String type = in.vintString(kind + " column type");
            ColumnMetadata c = schema.column(name);
            if (c == null || (c.isStatic() != kind.equals("static")) || c.role() == ColumnMetadata.Role.PARTITION_KEY
                    || c.role() == ColumnMetadata.Role.CLUSTERING) {
                throw mismatch(in.file(), at, kind + " column '" + name + "' that the schema does not have as a " + kind + " column");
            }
            if (!type.equals(c.marshalName())) {
                throw mismatch(in.file(), at, "column '" + name + "' of type " + type + ", the schema's is " + c.marshalName());
            }
            if (c.position() <= last) {
                throw new CorruptSSTableException(in.file(), at, kind + " column '" + name + "' out of header order");
            }
            last = c.position();
            included[c.position()] = true;
        }
        return included;
    }

    private static IncompatibleSSTableException mismatch(Path file, long at, String what) {
        return new IncompatibleSSTableException(file, "the serialization header at byte offset " + at + " has " + what);
    }
}
