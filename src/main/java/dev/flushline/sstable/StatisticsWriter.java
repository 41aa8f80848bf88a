package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Statistics.db: a checksummed container of four components (layout in
 * {@link StatisticsLayout}).
 *
 * <pre>
 * count:i32 crc32(count):u32  (type:i32 offset:i32)*count  crc32(count + toc, running):u32
 * then per component in type order: bytes  crc32(bytes):u32
 * VALIDATION := partitioner:utf  bloom_fp_chance:f64
 * COMPACTION := hll:bytes_i
 * STATS      := see {@link #stats}; followed by 4 zero bytes per tombstone-histogram bin, because
 *               Cassandra sizes the component with 16 bytes per bin but writes 12, and writes the
 *               whole pre-sized buffer; offsets and the CRC include the padding
 * HEADER     := {@link SerializationHeader}
 * </pre>
 *
 * Written once per sstable, so it favours clarity over allocation; every component's bytes are
 * checked against its computed size.
 */
public final class StatisticsWriter {
    private StatisticsWriter() {}

    public static final String PARTITIONER = StatisticsLayout.PARTITIONER;
    private static final int VALIDATION = StatisticsLayout.VALIDATION, COMPACTION = StatisticsLayout.COMPACTION,
            STATS = StatisticsLayout.STATS, HEADER = StatisticsLayout.HEADER, COMPONENT_COUNT = StatisticsLayout.COMPONENT_COUNT;

    /** Everything STATS holds, gathered by the flush. */
    public static final class Stats {
        public EstimatedHistogram partitionSizes;
        public EstimatedHistogram cellsPerPartition;
        public long commitLogUpperSegmentId = -1;
        public int commitLogUpperPosition = 0;
        public long commitLogLowerSegmentId = -1;
        public int commitLogLowerPosition = 0;
        /** Commit log intervals as (startSegment, startPosition, endSegment, endPosition); empty = none. */
        public long[] commitLogIntervals = new long[0];
        public long minTimestamp, maxTimestamp;
        public long minLocalDeletionTime, maxLocalDeletionTime;
        public int minTtl, maxTtl;
        public double compressionRatio;
        public TombstoneHistogram tombstones;
        public byte[][] minClustering;
        public byte minClusteringKind;
        public byte[][] maxClustering;
        public byte maxClusteringKind;
        public long totalColumnsSet, totalRows;
        public boolean hasPartitionLevelDeletions;
        public byte[] firstKey, lastKey;
        public CardinalityEstimator cardinality;
        public double bloomFilterFpChance;
        /** The leveled strategy's level (STATS component); flushes write 0, as Cassandra's do. */
        public int sstableLevel;
    }

    /** An oa Statistics.db. */
    public static byte[] serialize(Stats s, SerializationHeader header) throws IOException {
        return serialize(s, header, SSTableVersion.OA);
    }

    /** Statistics.db of {@code version}: only STATS differs between versions (see {@link #stats}). */
    public static byte[] serialize(Stats s, SerializationHeader header, SSTableVersion version) throws IOException {
        byte[][] components = new byte[COMPONENT_COUNT][];
        components[VALIDATION] = validation(s);
        components[COMPACTION] = compaction(s);
        // oa's STATS for every version of its feature set (oa, da); nb's for nb, as the reader tells them
        components[STATS] = version.hasUnsignedDeletionTime() ? stats(s, header) : legacyStats(s);
        FixedBuffer hb = new FixedBuffer(header.serializedSize());
        header.serialize(hb);
        FixedBuffer.checkWritten("Statistics.db HEADER", hb.capacity(), hb.position());
        components[HEADER] = hb.array();

        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        CRC32 crc = new CRC32();
        byte[] count = intBytes(COMPONENT_COUNT);
        out.write(count);
        crc.update(count);
        out.writeInt((int) crc.getValue());
        int offset = StatisticsLayout.firstComponentOffset(COMPONENT_COUNT);
        for (int t = 0; t < COMPONENT_COUNT; t++) {
            byte[] type = intBytes(t), off = intBytes(offset);
            out.write(type);
            out.write(off);
            crc.update(type);
            crc.update(off);
            offset += components[t].length + 4;
        }
        out.writeInt((int) crc.getValue());
        for (int t = 0; t < COMPONENT_COUNT; t++) {
            out.write(components[t]);
            CRC32 c = new CRC32();
            c.update(components[t]);
            out.writeInt((int) c.getValue());
        }
        out.flush();
        return bos.toByteArray();
    }

    private static byte[] intBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static byte[] validation(Stats s) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        out.writeUTF(PARTITIONER);
        out.writeDouble(s.bloomFilterFpChance);
        out.flush();
        return bos.toByteArray();
    }

    private static byte[] compaction(Stats s) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        s.cardinality.serializeCompactionComponent(out);
        out.flush();
        byte[] b = bos.toByteArray();
        FixedBuffer.checkWritten("Statistics.db COMPACTION", s.cardinality.compactionComponentSize(), b.length);
        return b;
    }

    /** Cassandra stores local deletion times as unsigned ints, with "none" as 0xFFFFFFFF. */
    private static int unsignedLdt(long ldt) {
        return ldt == Cell.NO_DELETION_TIME ? -1 : (int) ldt;
    }

    private static byte[] stats(Stats s, SerializationHeader header) throws IOException {
        ClusteringLayout layout = new ClusteringLayout(header.schema());
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        s.partitionSizes.serialize(out);
        s.cellsPerPartition.serialize(out);
        out.writeLong(s.commitLogUpperSegmentId);
        out.writeInt(s.commitLogUpperPosition);
        out.writeLong(s.minTimestamp);
        out.writeLong(s.maxTimestamp);
        out.writeInt(unsignedLdt(s.minLocalDeletionTime));
        out.writeInt(unsignedLdt(s.maxLocalDeletionTime));
        out.writeInt(s.minTtl);
        out.writeInt(s.maxTtl);
        out.writeDouble(s.compressionRatio);
        s.tombstones.serialize(out);
        out.writeInt(s.sstableLevel);
        out.writeLong(0); // repairedAt
        ColumnMetadata[] ck = header.schema().clusteringColumns();
        byte[] countVint = new byte[VInt.MAX_SIZE_BYTES];
        out.write(countVint, 0, VInt.putUnsigned(countVint, 0, ck.length));
        for (ColumnMetadata c : ck) {
            byte[] name = c.marshalName().getBytes(StandardCharsets.UTF_8);
            out.write(countVint, 0, VInt.putUnsigned(countVint, 0, name.length));
            out.write(name);
        }
        coveredSlice(out, layout, s, ck.length);
        out.writeBoolean(false); // legacy counter shards
        out.writeLong(s.totalColumnsSet);
        out.writeLong(s.totalRows);
        out.writeLong(s.commitLogLowerSegmentId);
        out.writeInt(s.commitLogLowerPosition);
        int intervals = s.commitLogIntervals.length / 4;
        out.writeInt(intervals);
        for (int i = 0; i < intervals; i++) {
            out.writeLong(s.commitLogIntervals[4 * i]);
            out.writeInt((int) s.commitLogIntervals[4 * i + 1]);
            out.writeLong(s.commitLogIntervals[4 * i + 2]);
            out.writeInt((int) s.commitLogIntervals[4 * i + 3]);
        }
        out.writeByte(0); // no pending repair
        out.writeBoolean(false); // not transient
        out.writeByte(0); // no originating host id
        out.writeBoolean(s.hasPartitionLevelDeletions);
        writeVIntBytes(out, s.firstKey);
        writeVIntBytes(out, s.lastKey);
        out.writeDouble(Double.NaN); // token space coverage: set only by sharding compactions
        for (int i = 0; i < s.tombstones.statsPaddingBytes(); i++) out.writeByte(0);
        out.flush();
        return bos.toByteArray();
    }

    /**
     * nb's STATS, which differs from oa's in four places (and nowhere else):
     * <pre>
     * min/max ldt          i32 i32: signed, "none" (no deletion time at all) as Integer.MAX_VALUE,
     *                      any other value capped at Integer.MAX_VALUE - 1 (never reached: nb values
     *                      are at most that)
     * tombstone histogram  i32 bins, i32 bins, then (point:f64 count:i64) per bin; no padding after
     *                      STATS, since Cassandra's size function counts these 16 bytes per bin
     * min/max clustering   where oa has the clustering types and the covered slice: the start
     *                      bound's values, then the end bound's, each as count:i32 (value_len:u16 value)*
     *                      (bound kinds are not stored; no rows or markers: two empty lists)
     * the tail             ends after the originating host id: no partition-deletion marker, no
     *                      first/last key, no token space coverage
     * </pre>
     */
    private static byte[] legacyStats(Stats s) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        s.partitionSizes.serialize(out);
        s.cellsPerPartition.serialize(out);
        out.writeLong(s.commitLogUpperSegmentId);
        out.writeInt(s.commitLogUpperPosition);
        out.writeLong(s.minTimestamp);
        out.writeLong(s.maxTimestamp);
        out.writeInt(DeletionTimeLayout.legacyLocalDeletionTime(s.minLocalDeletionTime));
        out.writeInt(DeletionTimeLayout.legacyLocalDeletionTime(s.maxLocalDeletionTime));
        out.writeInt(s.minTtl);
        out.writeInt(s.maxTtl);
        out.writeDouble(s.compressionRatio);
        s.tombstones.serializeLegacy(out);
        out.writeInt(0); // sstable level
        out.writeLong(0); // repairedAt
        byte[][] none = new byte[0][];
        writeShortLengthValues(out, s.minClustering == null ? none : s.minClustering);
        writeShortLengthValues(out, s.minClustering == null ? none : s.maxClustering);
        out.writeBoolean(false); // legacy counter shards
        out.writeLong(s.totalColumnsSet);
        out.writeLong(s.totalRows);
        out.writeLong(s.commitLogLowerSegmentId);
        out.writeInt(s.commitLogLowerPosition);
        int intervals = s.commitLogIntervals.length / 4;
        out.writeInt(intervals);
        for (int i = 0; i < intervals; i++) {
            out.writeLong(s.commitLogIntervals[4 * i]);
            out.writeInt((int) s.commitLogIntervals[4 * i + 1]);
            out.writeLong(s.commitLogIntervals[4 * i + 2]);
            out.writeInt((int) s.commitLogIntervals[4 * i + 3]);
        }
        out.writeByte(0); // no pending repair
        out.writeBoolean(false); // not transient
        out.writeByte(0); // no originating host id
        out.flush();
        return bos.toByteArray();
    }

    private static void writeShortLengthValues(DataOutputStream out, byte[][] values) throws IOException {
        out.writeInt(values.length);
        for (byte[] v : values) {
            out.writeShort(v.length);
            out.write(v);
        }
    }

    private static void writeVIntBytes(DataOutputStream out, byte[] b) throws IOException {
        byte[] len = new byte[VInt.MAX_SIZE_BYTES];
        out.write(len, 0, VInt.putUnsigned(len, 0, b.length));
        out.write(b);
    }

    /**
     * The covered clustering slice: a start and an end bound. A row clustering is written as an
     * inclusive bound of its values; with no rows or markers the slice is (EXCL_START [], EXCL_END []),
     * Cassandra's empty slice; a table without clustering columns always covers everything.
     */
    private static void coveredSlice(DataOutputStream out, ClusteringLayout layout, Stats s, int clusteringCount) throws IOException {
        byte startKind, endKind;
        byte[][] startValues, endValues;
        byte[][] none = new byte[0][];
        if (s.minClustering == null) {
            // Cassandra's MAX_START / MIN_END sentinels.
            startKind = ClusteringBound.EXCL_START_BOUND;
            startValues = none;
            endKind = ClusteringBound.EXCL_END_BOUND;
            endValues = none;
        } else {
            startKind = s.minClusteringKind == ClusteringBound.CLUSTERING ? ClusteringBound.INCL_START_BOUND : s.minClusteringKind;
            startValues = s.minClustering;
            endKind = s.maxClusteringKind == ClusteringBound.CLUSTERING ? ClusteringBound.INCL_END_BOUND : s.maxClusteringKind;
            endValues = s.maxClustering;
        }
        FixedBuffer b = new FixedBuffer(layout.boundSize(startValues) + layout.boundSize(endValues));
        layout.putBound(b, startKind, startValues);
        layout.putBound(b, endKind, endValues);
        FixedBuffer.checkWritten("Statistics.db covered slice", b.capacity(), b.position());
        out.write(b.array());
    }
}
