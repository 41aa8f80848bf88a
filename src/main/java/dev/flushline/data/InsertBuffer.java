package dev.flushline.data;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.util.Arrays;
import java.util.List;

/**
 * One decoded INSERT of one row whose columns are all simple, held in reusable arrays instead of
 * a {@link Mutation} of Row and Cell objects: the load's fast path decodes into it, and the memtable
 * copies it into a {@link RowRecord} with no object per row or cell ({@code Memtable.apply(InsertBuffer)}).
 * It means exactly the Mutation {@link #toMutation} builds: row liveness at the timestamp (expiring
 * with a TTL), each given column a cell at the row's timestamp and TTL, a JSON null a cell tombstone
 * at {@link #nowSeconds}; static columns, if any are given, in a static row without liveness.
 *
 * <p>Slots: one per column of the table, partition key columns first, then clustering, static and
 * regular, each group by position. A slot's value is {@code bytes[offset, offset + length)}, or
 * {@link #NULL} (a tombstone), or {@link #ABSENT}. The partition key's serialized form (CompositeType
 * when it has several columns) is a range of {@code bytes} as well.
 *
 * <p>Fill: {@link #clear}, then {@link #reserve} and {@link #set} per slot, then {@link #finish}.
 * REQUIRES of a filled buffer (the filler checks, the readers trust): every primary key slot set and
 * not null, key and clustering values at most 65535 bytes, the partition key not empty, every set
 * static or regular slot a simple column, the TTL expiry within the output's limit.
 *
 * <p>Thread safety: none. One thread fills a buffer; after a hand-off that publishes it (a queue),
 * one other thread reads it, and it is filled again only after that thread gave it back.
 */
public final class InsertBuffer {
    public static final int ABSENT = -2;
    public static final int NULL = -1;

    private final TableSchema schema;
    final int partitionKeyCount;
    final int clusteringCount;
    final int staticBase;
    final int regularBase;
    final int staticSimpleCount;
    final int regularSimpleCount;
    final int staticComplexCount;
    final int regularComplexCount;

    byte[] bytes = new byte[512];
    private int end;
    final int[] offset;
    final int[] length;
    int keyOffset;
    int keyLength;
    long token;
    long timestamp;
    int ttl;
    long expiration;
    long nowSeconds;
    /** Set static and regular slots, after {@link #finish}. */
    int staticPresent;
    int regularPresent;

    public InsertBuffer(TableSchema schema) {
        this.schema = schema;
        this.partitionKeyCount = schema.partitionKeyColumns().length;
        this.clusteringCount = schema.clusteringColumns().length;
        this.staticBase = partitionKeyCount + clusteringCount;
        this.regularBase = staticBase + schema.staticColumns().length;
        this.staticSimpleCount = schema.staticComplexStart();
        this.regularSimpleCount = schema.regularComplexStart();
        this.staticComplexCount = schema.staticColumns().length - staticSimpleCount;
        this.regularComplexCount = schema.regularColumns().length - regularSimpleCount;
        int slots = regularBase + schema.regularColumns().length;
        this.offset = new int[slots];
        this.length = new int[slots];
        Arrays.fill(length, ABSENT);
    }

    public TableSchema schema() { return schema; }

    /** The slot of a column: see the class comment. */
    public int slotOf(ColumnMetadata c) {
        switch (c.role()) {
            case PARTITION_KEY: return c.position();
            case CLUSTERING: return partitionKeyCount + c.position();
            case STATIC: return staticBase + c.position();
            default: return regularBase + c.position();
        }
    }

    public int slotCount() { return length.length; }

    public void clear() {
        Arrays.fill(length, ABSENT);
        end = 0;
        staticPresent = 0;
        regularPresent = 0;
    }

    /** Room for {@code n} more bytes; returns where they start in {@link #bytes()}, which may be a new array. */
    public int reserve(int n) {
        int at = end;
        if (at + n > bytes.length) bytes = Arrays.copyOf(bytes, Math.max(at + n, 2 * bytes.length));
        end = at + n;
        return at;
    }

    /** Gives back the unused tail of the last {@link #reserve}: the bytes end at {@code newEnd}. */
    public void trim(int newEnd) {
        end = newEnd;
    }

    public byte[] bytes() { return bytes; }

    public void set(int slot, int valueOffset, int valueLength) {
        offset[slot] = valueOffset;
        length[slot] = valueLength;
    }

    public int length(int slot) { return length[slot]; }

    public int offset(int slot) { return offset[slot]; }

    /**
     * Completes the insert: its timestamp, TTL (0 = none), expiry and the local deletion time of its
     * tombstones; serializes the partition key. REQUIRES: see the class comment.
     */
    public void finish(long timestamp, int ttl, long expiration, long nowSeconds) {
        this.timestamp = timestamp;
        this.ttl = ttl;
        this.expiration = expiration;
        this.nowSeconds = nowSeconds;
        if (partitionKeyCount == 1) {
            keyOffset = offset[0];
            keyLength = length[0];
        } else {
            int size = 0;
            for (int s = 0; s < partitionKeyCount; s++) size += PartitionKey.COMPONENT_OVERHEAD_BYTES + length[s];
            int at = reserve(size);
            keyOffset = at;
            keyLength = size;
            for (int s = 0; s < partitionKeyCount; s++) at = PartitionKey.putComponent(bytes, at, bytes, offset[s], length[s]);
        }
        token = Murmur3.token(bytes, keyOffset, keyLength);
        int st = 0, rg = 0;
        for (int s = staticBase; s < regularBase; s++) if (length[s] != ABSENT) st++;
        for (int s = regularBase; s < length.length; s++) if (length[s] != ABSENT) rg++;
        staticPresent = st;
        regularPresent = rg;
    }

    public long token() { return token; }

    /** Bytes of the serialized partition key. */
    public int keyLength() { return keyLength; }

    /** Bytes of clustering value {@code i}. */
    public int clusteringLength(int i) { return length[partitionKeyCount + i]; }

    public int clusteringCount() { return clusteringCount; }

    public long timestamp() { return timestamp; }

    public int ttl() { return ttl; }

    public long expiration() { return expiration; }

    public long nowSeconds() { return nowSeconds; }

    public boolean hasStatic() { return staticPresent > 0; }

    /** Cells of the row (regular columns given), null ones included. */
    public int regularCellCount() { return regularPresent; }

    /** Whether {@code key} is this insert's partition key. */
    public boolean keyEquals(PartitionKey key) {
        return key.token() == token && Arrays.equals(key.key(), 0, key.key().length, bytes, keyOffset, keyOffset + keyLength);
    }

    /** A new PartitionKey of this insert's key. */
    public PartitionKey partitionKey() {
        return PartitionKey.of(Arrays.copyOfRange(bytes, keyOffset, keyOffset + keyLength));
    }

    /** Points {@code into} at the clustering values where they lie in this buffer (no copy); returns it. */
    public ClusteringBuffer clusteringInto(ClusteringBuffer into) {
        into.reset(ClusteringBound.CLUSTERING, clusteringCount);
        for (int i = 0, s = partitionKeyCount; i < clusteringCount; i++, s++) into.set(i, bytes, offset[s], length[s]);
        return into;
    }

    /** New arrays of the clustering values (for a Row built from this insert). */
    public byte[][] clustering() {
        byte[][] c = new byte[clusteringCount][];
        for (int i = 0; i < c.length; i++) c[i] = copy(partitionKeyCount + i);
        return c;
    }

    private byte[] copy(int slot) {
        return Arrays.copyOfRange(bytes, offset[slot], offset[slot] + length[slot]);
    }

    /** Whether regular column {@code position} is given: set, or null. */
    public boolean hasRegular(int position) {
        return length[regularBase + position] != ABSENT;
    }

    public boolean hasStatic(int position) {
        return length[staticBase + position] != ABSENT;
    }

    /** Whether regular column {@code position} is given as JSON null (a cell tombstone). */
    public boolean regularIsNull(int position) {
        return length[regularBase + position] == NULL;
    }

    // ---- the same insert as objects ------------------------------------------------------------

    /** The static row, or null if no static column is given. */
    public Row staticRow() {
        if (staticPresent == 0) return null;
        return new Row(true, null, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                cells(staticBase, staticSimpleCount), new ComplexColumn[staticComplexCount]);
    }

    /** The regular row, with {@code clustering} (from {@link #clustering()}). */
    public Row row(byte[][] clustering) {
        return new Row(false, clustering, timestamp, ttl, expiration, DeletionTime.LIVE,
                cells(regularBase, regularSimpleCount), new ComplexColumn[regularComplexCount]);
    }

    /** The mutation this insert means, as Row and Cell objects (the commit log, merges, unslabbed memtables). */
    public Mutation toMutation() {
        return new Mutation(schema, toUpdate());
    }

    public PartitionUpdate toUpdate() {
        return new PartitionUpdate(partitionKey(), DeletionTime.LIVE, List.of(), staticRow(), List.of(row(clustering())));
    }

    private Cell[] cells(int base, int count) {
        Cell[] cells = new Cell[count];
        for (int i = 0; i < count; i++) {
            int s = base + i;
            int n = length[s];
            if (n == ABSENT) continue;
            if (n == NULL) cells[i] = Cell.tombstone(timestamp, nowSeconds, null);
            else if (ttl == Cell.NO_TTL) cells[i] = Cell.live(timestamp, copy(s), null);
            else cells[i] = Cell.expiring(timestamp, ttl, expiration, copy(s), null);
        }
        return cells;
    }
}
