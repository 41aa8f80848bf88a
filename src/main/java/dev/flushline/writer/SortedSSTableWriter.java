package dev.flushline.writer;

import dev.flushline.schema.ValueText;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Hex;
import dev.flushline.data.Murmur3;
import dev.flushline.data.RowBuffer;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableOutput;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.SSTableWriter;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes sstables of one table from data that is already sorted, straight into the shared row
 * serializer: no mutation, no memtable, and no allocation per partition, row or cell once its
 * buffers have grown to the largest row. Partitions must come in token order (Murmur3 token, then
 * the serialized key's bytes unsigned, as Cassandra orders them), and a partition's rows in
 * clustering order (the table's, ASC/DESC included). Anything out of order, or a key twice, is an
 * {@link IllegalStateException} naming both keys; nothing of it is written.
 *
 * <pre>{@code
 * try (SortedSSTableWriter w = SortedSSTableWriter.builder(schema, dir).build()) {
 *     int v = w.column("v");
 *     w.startPartition(key, 0, key.length);     // serialized partition key
 *     w.startRow(timestampMicros, 0, true);    // ttl 0: none; true: the row marker an INSERT writes
 *     w.clustering(0, ck, 0, ck.length);
 *     w.setLong(v, 42L);
 *     w.endRow();
 *     w.endPartition();
 * }                                            // close() publishes; abort() removes everything
 * }</pre>
 *
 * <p>Calls, per partition: {@link #startPartition}; optionally {@link #deletePartition}; optionally
 * one static row ({@link #startStaticRow} ... {@link #endRow}); then rows ({@link #startRow},
 * {@link #clustering} for every clustering column, cells, {@link #endRow}); {@link #endPartition}.
 * Cells of a row may be set in any column order; a column not set is left untouched (CQL's unset),
 * {@link #setNull} writes a tombstone (for a non-frozen collection: deletes it).
 *
 * <p>Bytes: values are the CQL serialized form (as {@link ValueCodec} or the driver makes them);
 * a non-frozen collection's cells are (path, value): a set's element and an empty value, a map's
 * key and value, a list's time-UUID and element. {@link #setInt} and the other primitive setters
 * write fixed-width types without a byte array of the caller's. REQUIRES: an array passed for a
 * value or a clustering stays unchanged until {@link #endRow} returns (a static row's values are copied then);
 * a partition key is copied at once.
 *
 * <p>Output: sstables of the schema's compression, bloom filter chance and index interval, header
 * encoding stats as Cassandra's CQLSSTableWriter writes them (none), so Data.db matches its bytes.
 * With a maximum size, a new sstable starts at the first partition boundary after Data.db reached
 * it. Each bloom filter is sized from the sstable's real key count, known only once it ends. The
 * sstables are published, each transactionally, only by {@link #close}; until then none is
 * visible, and {@link #abort} (or a failed close) removes them all.
 *
 * <p>"Now" (fixed when built): the local deletion time of tombstones, and the base of TTL expiry.
 *
 * <p>Thread safety: none; one thread writes through an instance.
 */
public final class SortedSSTableWriter implements AutoCloseable {
    private static final byte[] EMPTY = new byte[0];
    /** Kinds of a staged column. */
    private static final byte SIMPLE = 0, SIMPLE_NULL = 1, COMPLEX = 2;
    /** A staged collection's deletion: none, just before the row's timestamp (an overwrite), or at it. */
    private static final byte NO_DELETION = 0, OVERWRITE = 1, DELETE = 2;
    /** Largest partition key or clustering value Cassandra stores (an unsigned 16-bit length). */
    private static final int MAX_KEY_BYTES = 0xFFFF;
    /** The type of a non-frozen list's cell paths. */
    private static final CqlType TIMEUUID = CqlType.of(CqlType.Kind.TIMEUUID);

    private final TableSchema schema;
    private final TableDirectory dir;
    private final SSTableVersion version;
    private final SerializationHeader header;
    private final long maxSSTableBytes;
    private long nowSeconds;
    private final ClusteringComparator comparator;
    private final ColumnMetadata[] clusteringColumns;
    private final List<SSTableOutput> outputs = new ArrayList<>();
    private final List<Path> published = new ArrayList<>();
    private SSTableOutput output;

    // ---- the partition
    private byte[] key = new byte[64];
    private int keyLength;
    private long token;
    private final long[] hash = new long[2];
    private byte[] previousKey = new byte[64];
    private int previousKeyLength = -1;
    private long previousToken;
    private DeletionTime partitionDeletion = DeletionTime.LIVE;
    private boolean inPartition;
    private boolean headerWritten;
    private boolean hadStatic;
    /** A static row was started in this partition (written or not): a second one is refused. */
    private boolean staticSeen;
    private boolean hadRow;
    private final RowBuffer staticRow;
    private final RowBuffer emptyStatic;
    private final ClusteringBuffer previousClustering;

    // ---- the row being built
    private final RowBuffer row;
    private boolean inRow;
    private boolean rowIsStatic;
    private long rowTimestamp;
    private int rowTtl;
    private long rowExpiration;
    private boolean rowLiveness;
    private boolean rowDeleted;
    private final ClusteringBuffer clustering;
    private final boolean[] clusteringSet;
    /** Per staged column, in the order set: table position, kind, collection deletion, first cell and cell count. */
    private int entries;
    private int[] entryPosition = new int[8];
    private byte[] entryKind = new byte[8];
    private byte[] entryDeletion = new byte[8];
    private int[] entryFirstCell = new int[8];
    private int[] entryCellCount = new int[8];
    private int[] order = new int[8];
    /** Staged entry of each column position in this row, valid when {@code entryRow[p] == rowNumber}. */
    private final int[] entryOfPosition;
    private final long[] entryRow;
    private long rowNumber;
    private int cells;
    private byte[][] cellPathSource = new byte[16][];
    private int[] cellPathOffset = new int[16], cellPathLength = new int[16];
    private byte[][] cellValueSource = new byte[16][];
    private int[] cellValueOffset = new int[16], cellValueLength = new int[16];
    /** Fixed-width values set through the primitive setters, for this row. */
    private byte[] scratch = new byte[256];
    /** The static row's values, owned until the partition header is written. */
    private byte[] staticArena = new byte[256];
    private int scratchUsed;

    private long partitions, rows;
    private boolean closed;

    private SortedSSTableWriter(Builder b) throws IOException {
        this.schema = b.schema;
        this.version = b.version;
        this.maxSSTableBytes = b.maxSSTableBytes;
        long nowMillis = b.nowMillis != null ? b.nowMillis : System.currentTimeMillis();
        this.nowSeconds = nowMillis / 1000;
        if (nowSeconds < 0 || nowSeconds > version.maxLocalDeletionTime()) {
            throw new IllegalArgumentException("now must be in 0.." + version.maxLocalDeletionTime() + " seconds: " + nowSeconds);
        }
        boolean[] statics = new boolean[schema.staticColumns().length];
        boolean[] regulars = new boolean[schema.regularColumns().length];
        Arrays.fill(statics, true);
        Arrays.fill(regulars, true);
        this.header = new SerializationHeader(schema, EncodingStats.NO_STATS, statics, regulars);
        this.comparator = new ClusteringComparator(schema);
        this.clusteringColumns = schema.clusteringColumns();
        int ck = clusteringColumns.length;
        int width = Math.max(schema.staticColumns().length, schema.regularColumns().length);
        this.row = new RowBuffer(ck, width);
        this.staticRow = new RowBuffer(ck, width);
        this.emptyStatic = new RowBuffer(ck, 1);
        emptyStatic.clear(true);
        this.clustering = new ClusteringBuffer(ck);
        this.clusteringSet = new boolean[ck];
        this.previousClustering = new ClusteringBuffer(ck);
        this.entryOfPosition = new int[Math.max(1, width)];
        this.entryRow = new long[Math.max(1, width)];
        Arrays.fill(entryRow, -1);
        this.dir = TableDirectory.open(b.directory);
    }

    /** A writer of {@code schema}'s sstables into {@code directory} (which must exist). */
    public static Builder builder(TableSchema schema, Path directory) {
        return new Builder(schema, directory);
    }

    /** As {@link #builder(TableSchema, Path)} from the table's {@code CREATE TABLE} statement. */
    public static Builder builder(String createTableStatement, Path directory) {
        return new Builder(CqlParser.parse(createTableStatement), directory);
    }

    public TableSchema schema() { return schema; }

    /**
     * The Murmur3 token of a serialized partition key (Cassandra's Murmur3Partitioner): partitions
     * go in the order of (token, then key bytes unsigned).
     */
    public static long token(byte[] key, int offset, int length) {
        return Murmur3.token(key, offset, length);
    }

    /**
     * The index a static or regular column is set by: its position among the table's static, or
     * regular, columns.
     * @throws IllegalArgumentException for an unknown name or a primary key column
     */
    public int column(String name) {
        ColumnMetadata c = schema.column(name);
        if (c == null) throw new IllegalArgumentException("table " + schema + " has no column '" + name + "'");
        if (c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING) {
            throw new IllegalArgumentException("column '" + name + "' is part of the primary key; it is not set as a cell");
        }
        return c.position();
    }

    // ---- partitions ------------------------------------------------------------------------------

    /** Starts a partition; its token is computed here. {@code key} is copied. */
    public void startPartition(byte[] key, int offset, int length) throws IOException {
        startPartition(key, offset, length, 0, false);
    }

    /**
     * Starts a partition whose Murmur3 token the caller computed; it is checked against the key's
     * (the hash is computed anyway, for the bloom filter).
     */
    public void startPartition(byte[] key, int offset, int length, long token) throws IOException {
        startPartition(key, offset, length, token, true);
    }

    private void startPartition(byte[] k, int offset, int length, long givenToken, boolean tokenGiven) throws IOException {
        checkOpen();
        if (inPartition) throw new IllegalStateException("startPartition before endPartition of " + describeKey(key, keyLength));
        if (length <= 0) throw new IllegalArgumentException("a partition key may not be empty");
        if (length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("partition key " + describeKey(k, offset, Math.min(length, 64)) + "... is " + length
                    + " bytes, longer than the maximum of " + MAX_KEY_BYTES);
        }
        Murmur3.hash128(k, offset, length, hash);
        long t = Murmur3.tokenOfHash(hash[0], length);
        if (tokenGiven && t != givenToken) {
            throw new IllegalArgumentException("partition key " + describeKey(k, offset, length) + " has Murmur3 token " + t
                    + ", not the given " + givenToken);
        }
        if (previousKeyLength >= 0) {
            int c = Long.compare(t, previousToken);
            if (c == 0) c = Arrays.compareUnsigned(k, offset, offset + length, previousKey, 0, previousKeyLength);
            if (c <= 0) {
                throw new IllegalStateException("partition " + describeKey(k, offset, length) + " (token " + t + ") "
                        + (c == 0 ? "was already written" : "sorts before the previous partition " + describeKey(previousKey,
                        previousKeyLength) + " (token " + previousToken + ")")
                        + "; a sorted writer takes partitions in token order, each once");
            }
        }
        if (key.length < length) key = new byte[Math.max(length, 2 * key.length)];
        System.arraycopy(k, offset, key, 0, length);
        keyLength = length;
        token = t;
        inPartition = true;
        headerWritten = false;
        hadStatic = false;
        staticSeen = false;
        hadRow = false;
        partitionDeletion = DeletionTime.LIVE;
    }

    /** Deletes the partition (everything older than {@code timestampMicros}). REQUIRES: before its rows. */
    public void deletePartition(long timestampMicros) {
        checkPartition();
        if (hadStatic || hadRow) throw new IllegalStateException("deletePartition after a row of " + describeKey(key, keyLength));
        checkTimestamp(timestampMicros);
        DeletionTime d = DeletionTime.of(timestampMicros, nowSeconds);
        if (d.supersedes(partitionDeletion)) partitionDeletion = d; // twice: the later deletion wins, as a merge keeps it
    }

    /** Ends the partition; a partition with no row, static row or deletion writes nothing. */
    public void endPartition() throws IOException {
        checkPartition();
        if (inRow) throw new IllegalStateException("endPartition before endRow in " + describeKey(key, keyLength));
        if (!headerWritten && (hadStatic || !partitionDeletion.isLive())) writeHeader();
        if (headerWritten) {
            try {
                output.endPartition(key, keyLength);
            } catch (IOException e) {
                throw output.wrap(e);
            }
            partitions++;
        }
        byte[] swap = previousKey;
        previousKey = key;
        key = swap;
        previousKeyLength = keyLength;
        previousToken = token;
        inPartition = false;
    }

    private void writeHeader() throws IOException {
        if (output != null && output.isFull(maxSSTableBytes)) {
            output.seal();
            output = null;
        }
        if (output == null) {
            output = new SSTableOutput(schema, header, dir, SSTableWriter.KEYS_UNKNOWN, true, version, 0);
            outputs.add(output);
        }
        try {
            output.beginPartition(key, keyLength, partitionDeletion, hadStatic ? staticRow : null, emptyStatic);
        } catch (IOException e) {
            throw output.wrap(e);
        }
        headerWritten = true;
    }

    // ---- rows ------------------------------------------------------------------------------------

    /**
     * Starts a row of the partition. Its cells get this write timestamp and TTL (0: none; the
     * table's default_time_to_live is not applied here). {@code primaryKeyLiveness}: the row marker
     * an INSERT writes, which keeps the row alive with no cell; an UPDATE writes none.
     * Then: {@link #clustering} for every clustering column, cells, {@link #endRow}.
     */
    public void startRow(long timestampMicros, int ttlSeconds, boolean primaryKeyLiveness) {
        checkPartition();
        beginRow(false, timestampMicros, ttlSeconds);
        rowLiveness = primaryKeyLiveness;
    }

    /** Starts the partition's static row (at most one, before its other rows); as {@link #startRow}, with no row marker. */
    public void startStaticRow(long timestampMicros, int ttlSeconds) {
        checkPartition();
        if (schema.staticColumns().length == 0) throw new IllegalStateException("table " + schema + " has no static column");
        if (staticSeen || hadRow) {
            throw new IllegalStateException("the static row of " + describeKey(key, keyLength)
                    + " must come once and before its other rows");
        }
        beginRow(true, timestampMicros, ttlSeconds);
        staticSeen = true;
        rowLiveness = false;
    }

    private void beginRow(boolean isStatic, long timestampMicros, int ttlSeconds) {
        if (inRow) throw new IllegalStateException("startRow before endRow in " + describeKey(key, keyLength));
        checkTimestamp(timestampMicros);
        if (ttlSeconds < 0 || ttlSeconds > Cell.MAX_TTL) {
            throw new IllegalArgumentException("ttl " + ttlSeconds + " is out of range (0.." + Cell.MAX_TTL + " seconds)");
        }
        if (ttlSeconds != Cell.NO_TTL && nowSeconds + ttlSeconds > version.maxLocalDeletionTime()) {
            throw new IllegalArgumentException("ttl " + ttlSeconds + " seconds from now (" + nowSeconds
                    + ") expires after the latest expiration " + version + " sstables store (" + version.maxLocalDeletionTimeText() + ")");
        }
        inRow = true;
        rowIsStatic = isStatic;
        rowTimestamp = timestampMicros;
        rowTtl = ttlSeconds;
        rowExpiration = ttlSeconds == Cell.NO_TTL ? Cell.NO_DELETION_TIME : nowSeconds + ttlSeconds;
        rowDeleted = false;
        rowNumber++;
        entries = 0;
        cells = 0;
        scratchUsed = 0;
        clustering.reset(isStatic ? ClusteringBound.STATIC_CLUSTERING : ClusteringBound.CLUSTERING, isStatic ? 0 : clusteringColumns.length);
        Arrays.fill(clusteringSet, false);
    }

    /** Sets clustering column {@code i}'s serialized value. */
    public void clustering(int i, byte[] value, int offset, int length) {
        checkRow();
        if (rowIsStatic) throw new IllegalStateException("a static row has no clustering");
        if (i < 0 || i >= clusteringColumns.length) {
            throw new IllegalArgumentException("clustering index " + i + " is out of range; table " + schema + " has "
                    + clusteringColumns.length + " clustering columns");
        }
        if (length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("clustering column '" + clusteringColumns[i].name() + "': value is " + length
                    + " bytes, longer than the maximum of " + MAX_KEY_BYTES);
        }
        checkWidth(clusteringColumns[i], length);
        clustering.set(i, value, offset, length);
        clusteringSet[i] = true;
    }

    public void clusteringInt(int i, int v) {
        int at = reserve(4);
        putInt(scratch, at, v);
        clustering(i, scratch, at, 4);
    }

    public void clusteringLong(int i, long v) {
        int at = reserve(8);
        putLong(scratch, at, v);
        clustering(i, scratch, at, 8);
    }

    /** Deletes the row (its cells and marker older than the row's timestamp), as a DELETE of it. */
    public void deleteRow() {
        checkRow();
        if (rowIsStatic) throw new IllegalStateException("a static row cannot be deleted as a row; set its columns to null");
        rowDeleted = true;
    }

    /** Sets a column's serialized value (a frozen collection's whole value; a non-frozen one takes cells). */
    public void set(int column, byte[] value, int offset, int length) {
        ColumnMetadata c = simpleColumn(column);
        checkWidth(c, length);
        int e = newEntry(column, SIMPLE, c);
        int k = addCell(null, 0, 0, value, offset, length);
        entryFirstCell[e] = k;
        entryCellCount[e] = 1;
    }

    public void setInt(int column, int v) {
        requireKind(column, CqlType.Kind.INT);
        int at = reserve(4);
        putInt(scratch, at, v);
        set(column, scratch, at, 4);
    }

    public void setLong(int column, long v) {
        ColumnMetadata c = columnAt(column);
        CqlType.Kind k = c.type().kind();
        if (k != CqlType.Kind.BIGINT && k != CqlType.Kind.TIMESTAMP && k != CqlType.Kind.TIME) wrongSetter(c, "setLong");
        int at = reserve(8);
        putLong(scratch, at, v);
        set(column, scratch, at, 8);
    }

    public void setDouble(int column, double v) {
        requireKind(column, CqlType.Kind.DOUBLE);
        int at = reserve(8);
        putLong(scratch, at, Double.doubleToRawLongBits(v));
        set(column, scratch, at, 8);
    }

    public void setFloat(int column, float v) {
        requireKind(column, CqlType.Kind.FLOAT);
        int at = reserve(4);
        putInt(scratch, at, Float.floatToRawIntBits(v));
        set(column, scratch, at, 4);
    }

    public void setBoolean(int column, boolean v) {
        requireKind(column, CqlType.Kind.BOOLEAN);
        int at = reserve(1);
        scratch[at] = (byte) (v ? 1 : 0);
        set(column, scratch, at, 1);
    }

    public void setShort(int column, short v) {
        requireKind(column, CqlType.Kind.SMALLINT);
        int at = reserve(2);
        scratch[at] = (byte) (v >>> 8);
        scratch[at + 1] = (byte) v;
        set(column, scratch, at, 2);
    }

    public void setByte(int column, byte v) {
        requireKind(column, CqlType.Kind.TINYINT);
        int at = reserve(1);
        scratch[at] = v;
        set(column, scratch, at, 1);
    }

    /**
     * Writes a tombstone for the column: a cell tombstone, or for a non-frozen collection
     * {@link #replaceCollection} with no cell (as setting it to null in CQL).
     */
    public void setNull(int column) {
        ColumnMetadata c = columnAt(column);
        if (c.isComplex()) {
            replaceCollection(column);
            return;
        }
        int e = newEntry(column, SIMPLE_NULL, c);
        entryFirstCell[e] = cells;
        entryCellCount[e] = 0;
    }

    /**
     * Replaces a non-frozen collection: deletes what it held before this row (a deletion at the
     * row's timestamp minus one, as CQL's {@code c = ...} in an INSERT or UPDATE), so the cells
     * added to it in this row stay.
     */
    public void replaceCollection(int column) {
        ColumnMetadata c = complexColumn(column);
        int e = complexEntry(column, c);
        entryDeletion[e] = OVERWRITE;
    }

    /** Deletes a non-frozen collection at the row's timestamp, as CQL's {@code DELETE c}. */
    public void deleteCollection(int column) {
        ColumnMetadata c = complexColumn(column);
        int e = complexEntry(column, c);
        entryDeletion[e] = DELETE;
    }

    /**
     * Adds a cell to a non-frozen collection: a set's element with an empty value, a map's key and
     * value, a list's time-UUID and element. REQUIRES: a column's cells in increasing path order
     * (the order of the path's CQL type), set one after another.
     */
    public void addCollectionCell(int column, byte[] path, int pathOffset, int pathLength, byte[] value, int valueOffset, int valueLength) {
        ColumnMetadata c = complexColumn(column);
        int e = complexEntry(column, c);
        if (entryFirstCell[e] + entryCellCount[e] != cells) {
            throw new IllegalStateException("column '" + c.name() + "': a collection's cells must be added one after another");
        }
        if (entryCellCount[e] > 0) {
            CqlType pathType = c.type().cellPathType();
            int last = cells - 1;
            if (pathType.compare(cellPathSource[last], cellPathOffset[last], cellPathLength[last], path, pathOffset, pathLength) >= 0) {
                throw new IllegalStateException("column '" + c.name() + "': cell path " + ValueText.display(pathType,
                        Arrays.copyOfRange(path, pathOffset, pathOffset + pathLength)) + " is not after the previous one");
            }
        }
        addCell(path, pathOffset, pathLength, value, valueOffset, valueLength);
        entryCellCount[e]++;
    }

    /** Drops the row being built: nothing of it is written, and the partition goes on. */
    public void abandonRow() {
        checkRow();
        inRow = false;
        if (rowIsStatic) staticSeen = false;
    }

    /** True while a partition is open (between {@link #startPartition} and {@link #endPartition}). */
    public boolean isPartitionOpen() { return inPartition; }

    /** True while a row is open (between a start of a row and {@link #endRow} or {@link #abandonRow}). */
    public boolean isRowOpen() { return inRow; }

    /** True if the open partition's key is {@code key[offset, offset + length)}. */
    public boolean inPartition(byte[] k, int offset, int length) {
        return inPartition && length == keyLength && Arrays.equals(key, 0, keyLength, k, offset, offset + length);
    }

    /**
     * Moves "now" forward (never back), for a long-running writer whose tombstones and TTLs should
     * follow the clock, as a node's do. Takes effect from the next row.
     */
    public void advanceNowMillis(long nowMillis) {
        long s = nowMillis / 1000;
        if (s <= nowSeconds) return;
        if (s > version.maxLocalDeletionTime()) {
            throw new IllegalArgumentException("now must be in 0.." + version.maxLocalDeletionTime() + " seconds: " + s);
        }
        nowSeconds = s;
    }

    /** "Now" in seconds: tombstones' local deletion time and the base of TTL expiry. */
    public long nowSeconds() { return nowSeconds; }

    /** Ends the row and writes it (a clustering row after checking it sorts after the previous one). */
    public void endRow() throws IOException {
        checkRow();
        inRow = false;
        if (!rowIsStatic) {
            for (int i = 0; i < clusteringSet.length; i++) {
                if (!clusteringSet[i]) {
                    throw new IllegalStateException("row of " + describeKey(key, keyLength) + ": clustering column '"
                            + clusteringColumns[i].name() + "' was not set");
                }
            }
            if (hadRow && comparator.compare(clustering, previousClustering) <= 0) {
                int c = comparator.compare(clustering, previousClustering);
                throw new IllegalStateException("row " + describeClustering(clustering) + " of partition " + describeKey(key, keyLength)
                        + (c == 0 ? " was already written" : " sorts before the previous row " + describeClustering(previousClustering))
                        + "; a sorted writer takes a partition's rows in clustering order, each once");
            }
        }
        RowBuffer r = rowIsStatic ? staticRow : row;
        if (rowIsStatic) keepStaticValues();
        fill(r);
        if (rowIsStatic) {
            hadStatic = !r.isEmpty();
            return;
        }
        previousClustering.copyFrom(clustering);
        hadRow = true;
        if (r.isEmpty()) return;
        if (!headerWritten) writeHeader();
        try {
            output.row(r);
        } catch (IOException e) {
            throw output.wrap(e);
        }
        rows++;
    }

    /**
     * The static row is serialized with the partition header, when the first clustering row
     * ends (or the partition does), after the caller may have reused its arrays: its values and
     * paths are copied into an arena of this writer's (once per partition, so cheap).
     */
    private void keepStaticValues() {
        int total = 0;
        for (int k = 0; k < cells; k++) total += cellValueLength[k] + (cellPathSource[k] == null ? 0 : cellPathLength[k]);
        if (staticArena.length < total) staticArena = new byte[Math.max(total, 2 * staticArena.length)];
        int at = 0;
        for (int k = 0; k < cells; k++) {
            int n = cellValueLength[k];
            System.arraycopy(cellValueSource[k], cellValueOffset[k], staticArena, at, n);
            cellValueSource[k] = staticArena;
            cellValueOffset[k] = at;
            at += n;
            if (cellPathSource[k] != null) {
                n = cellPathLength[k];
                System.arraycopy(cellPathSource[k], cellPathOffset[k], staticArena, at, n);
                cellPathSource[k] = staticArena;
                cellPathOffset[k] = at;
                at += n;
            }
        }
    }

    /** Copies the staged row into the serializer's flyweight, columns in table position order. */
    private void fill(RowBuffer r) {
        r.clear(rowIsStatic);
        if (!rowIsStatic) {
            ClusteringBuffer cb = r.clustering();
            cb.reset(ClusteringBound.CLUSTERING, clusteringColumns.length);
            for (int i = 0; i < clusteringColumns.length; i++) {
                cb.set(i, clustering.source(i), clustering.offset(i), clustering.length(i));
            }
        }
        if (rowLiveness) r.setLiveness(rowTimestamp, rowTtl, rowExpiration);
        if (rowDeleted) r.setDeletion(rowTimestamp, nowSeconds);
        int n = entries;
        int[] ord = order;
        for (int i = 0; i < n; i++) ord[i] = i;
        for (int i = 1; i < n; i++) { // insertion sort: few columns, usually set in order already
            int x = ord[i];
            int j = i - 1;
            while (j >= 0 && entryPosition[ord[j]] > entryPosition[x]) {
                ord[j + 1] = ord[j];
                j--;
            }
            ord[j + 1] = x;
        }
        for (int i = 0; i < n; i++) {
            int e = ord[i];
            byte kind = entryKind[e];
            if (kind == COMPLEX) {
                byte d = entryDeletion[e];
                r.beginColumn(entryPosition[e], true,
                        d == NO_DELETION ? Long.MIN_VALUE : d == OVERWRITE ? rowTimestamp - 1 : rowTimestamp,
                        d == NO_DELETION ? Long.MAX_VALUE : nowSeconds);
                int first = entryFirstCell[e];
                int end = first + entryCellCount[e];
                for (int k = first; k < end; k++) {
                    r.addCell(rowTimestamp, rowTtl, rowExpiration, cellPathSource[k], cellPathOffset[k], cellPathLength[k],
                            cellValueSource[k], cellValueOffset[k], cellValueLength[k]);
                }
            } else {
                r.beginColumn(entryPosition[e], false, Long.MIN_VALUE, Long.MAX_VALUE);
                if (kind == SIMPLE_NULL) {
                    r.addCell(rowTimestamp, Cell.NO_TTL, nowSeconds, null, 0, 0, EMPTY, 0, 0);
                } else {
                    int k = entryFirstCell[e];
                    r.addCell(rowTimestamp, rowTtl, rowExpiration, null, 0, 0, cellValueSource[k], cellValueOffset[k], cellValueLength[k]);
                }
            }
            r.endColumn();
        }
    }

    // ---- staging ---------------------------------------------------------------------------------

    private int newEntry(int column, byte kind, ColumnMetadata c) {
        if (entryRow[column] == rowNumber) {
            throw new IllegalStateException("column '" + c.name() + "' is set twice in one row of " + describeKey(key, keyLength));
        }
        if (entries == entryPosition.length) growEntries();
        int e = entries++;
        entryPosition[e] = column;
        entryKind[e] = kind;
        entryDeletion[e] = NO_DELETION;
        entryFirstCell[e] = cells;
        entryCellCount[e] = 0;
        entryRow[column] = rowNumber;
        entryOfPosition[column] = e;
        return e;
    }

    private int complexEntry(int column, ColumnMetadata c) {
        if (entryRow[column] == rowNumber) return entryOfPosition[column];
        return newEntry(column, COMPLEX, c);
    }

    private void growEntries() {
        int n = entryPosition.length * 2;
        entryPosition = Arrays.copyOf(entryPosition, n);
        entryKind = Arrays.copyOf(entryKind, n);
        entryDeletion = Arrays.copyOf(entryDeletion, n);
        entryFirstCell = Arrays.copyOf(entryFirstCell, n);
        entryCellCount = Arrays.copyOf(entryCellCount, n);
        order = Arrays.copyOf(order, n);
    }

    private int addCell(byte[] path, int pathOffset, int pathLength, byte[] value, int valueOffset, int valueLength) {
        if (cells == cellValueSource.length) {
            int n = cells * 2;
            cellPathSource = Arrays.copyOf(cellPathSource, n);
            cellPathOffset = Arrays.copyOf(cellPathOffset, n);
            cellPathLength = Arrays.copyOf(cellPathLength, n);
            cellValueSource = Arrays.copyOf(cellValueSource, n);
            cellValueOffset = Arrays.copyOf(cellValueOffset, n);
            cellValueLength = Arrays.copyOf(cellValueLength, n);
        }
        int k = cells++;
        cellPathSource[k] = path;
        cellPathOffset[k] = pathOffset;
        cellPathLength[k] = pathLength;
        cellValueSource[k] = value == null ? EMPTY : value;
        cellValueOffset[k] = value == null ? 0 : valueOffset;
        cellValueLength[k] = value == null ? 0 : valueLength;
        return k;
    }

    /**
     * Room for a fixed-width value in this row's scratch. The scratch is replaced, not grown in
     * place, when full: values already staged keep pointing at the old array, which stays valid.
     */
    private int reserve(int bytes) {
        checkRow();
        if (scratchUsed + bytes > scratch.length) {
            scratch = new byte[Math.max(256, 2 * scratch.length)];
            scratchUsed = 0;
        }
        int at = scratchUsed;
        scratchUsed += bytes;
        return at;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static void putLong(byte[] b, int at, long v) {
        putInt(b, at, (int) (v >>> 32));
        putInt(b, at + 4, (int) v);
    }

    // ---- checks ----------------------------------------------------------------------------------

    private ColumnMetadata columnAt(int column) {
        checkRow();
        ColumnMetadata[] cols = rowIsStatic ? schema.staticColumns() : schema.regularColumns();
        if (column < 0 || column >= cols.length) {
            throw new IllegalArgumentException("column index " + column + " is out of range for a " + (rowIsStatic ? "static" : "regular")
                    + " row of " + schema + " (" + cols.length + " columns)");
        }
        return cols[column];
    }

    private ColumnMetadata simpleColumn(int column) {
        ColumnMetadata c = columnAt(column);
        if (c.isComplex()) {
            throw new IllegalArgumentException("column '" + c.name() + "' (" + c.type() + ") is a non-frozen collection: add its cells"
                    + " with addCollectionCell (and replaceCollection to replace it)");
        }
        return c;
    }

    private ColumnMetadata complexColumn(int column) {
        ColumnMetadata c = columnAt(column);
        if (!c.isComplex()) {
            throw new IllegalArgumentException("column '" + c.name() + "' (" + c.type() + ") is not a non-frozen collection: use set");
        }
        return c;
    }

    private void requireKind(int column, CqlType.Kind kind) {
        ColumnMetadata c = columnAt(column);
        if (c.type().kind() != kind) {
            wrongSetter(c, "set" + kind);
        }
    }

    private static void wrongSetter(ColumnMetadata c, String setter) {
        throw new IllegalArgumentException("column '" + c.name() + "' is " + c.type() + "; " + setter + " does not fit it");
    }

    /** A fixed-width type's value has its width, or is empty (CQL allows an empty value of any type). */
    private static void checkWidth(ColumnMetadata c, int length) {
        int w = c.type().fixedLength();
        if (w > 0 && length != w && length != 0) {
            throw new IllegalArgumentException("column '" + c.name() + "' (" + c.type() + "): a value is " + w + " bytes, not " + length);
        }
    }

    private static void checkTimestamp(long ts) {
        // Long.MIN_VALUE marks "no timestamp" (and MIN + 1 - 1 would be it for a collection overwrite).
        if (ts <= Long.MIN_VALUE + 1) throw new IllegalArgumentException("timestamp " + ts + " is reserved; use a larger one");
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the writer is closed");
    }

    private void checkPartition() {
        checkOpen();
        if (!inPartition) throw new IllegalStateException("no partition started");
    }

    private void checkRow() {
        checkPartition();
        if (!inRow) throw new IllegalStateException("no row started in " + describeKey(key, keyLength));
    }

    private String describeKey(byte[] k, int length) {
        return describeKey(k, 0, length);
    }

    /** The key as CQL values where it decodes (one column), else hex; for messages. */
    private String describeKey(byte[] k, int offset, int length) {
        byte[] b = Arrays.copyOfRange(k, offset, offset + length);
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        if (pk.length == 1) {
            try {
                return pk[0].name() + "=" + ValueText.display(pk[0].type(), b);
            } catch (RuntimeException e) {
                // not a valid value of the type: hex below
            }
        }
        return "0x" + Hex.of(b);
    }

    private String describeClustering(ClusteringBuffer cb) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < cb.size(); i++) {
            if (i > 0) sb.append(", ");
            byte[] v = Arrays.copyOfRange(cb.source(i), cb.offset(i), cb.offset(i) + cb.length(i));
            String text;
            try {
                text = ValueText.display(clusteringColumns[i].type(), v);
            } catch (RuntimeException e) {
                text = "0x" + Hex.of(v);
            }
            sb.append(clusteringColumns[i].name()).append('=').append(text);
        }
        return sb.append(')').toString();
    }

    // ---- results ---------------------------------------------------------------------------------

    /** Partitions written so far (empty ones not counted). */
    public long partitionCount() { return partitions; }

    /** Clustering rows written so far (empty ones not counted; static rows not counted). */
    public long rowCount() { return rows; }

    /** The published Data.db paths, in token order. Empty until {@link #close} returned. */
    public List<Path> dataFiles() { return List.copyOf(published); }

    /**
     * Ends the last partition if one is open, then publishes every sstable, each transactionally.
     * A row still open is an error (and everything is removed). Nothing written: no sstable.
     */
    @Override
    public void close() throws IOException {
        if (closed) return;
        if (inRow) {
            abort();
            throw new IllegalStateException("close with a row still open in " + describeKey(key, keyLength) + "; nothing was published");
        }
        boolean ok = false;
        try {
            if (inPartition) endPartition();
            closed = true;
            for (SSTableOutput o : outputs) {
                Path p = o.finish();
                if (p != null) published.add(p);
            }
            ok = true;
        } finally {
            if (!ok) abort();
        }
    }

    /** Removes every sstable of this writer, published or not. Never throws. */
    public void abort() {
        closed = true;
        inRow = false;
        inPartition = false;
        for (SSTableOutput o : outputs) {
            o.close();
            if (published.contains(o.descriptor().path(Component.DATA))) {
                // TOC.txt first: without it no reader takes the rest for an sstable
                for (int i = Component.values().length - 1; i >= 0; i--) {
                    try {
                        Files.deleteIfExists(o.descriptor().path(Component.values()[i]));
                    } catch (IOException ignored) {
                        // a TOC-less generation is a leftover the next open of the directory removes
                    }
                }
            }
        }
        published.clear();
    }

    /** Builds a {@link SortedSSTableWriter}. Not thread-safe. */
    public static final class Builder {
        private final TableSchema schema;
        private final Path directory;
        private SSTableVersion version = SSTableVersion.OA;
        private long maxSSTableBytes;
        private Long nowMillis;

        private Builder(TableSchema schema, Path directory) {
            this.schema = java.util.Objects.requireNonNull(schema, "schema");
            if (schema.isCounterTable()) {
                throw new IllegalArgumentException("Counter modification statements are not supported: table " + schema
                        + " is a counter table (a counter is changed by increments, as in CQLSSTableWriter)");
            }
            if (!Files.isDirectory(directory)) throw new IllegalArgumentException(directory + " doesn't exist or is not a directory");
            if (!Files.isWritable(directory)) throw new IllegalArgumentException(directory + " exists but is not writable");
            this.directory = directory;
        }

        /** {@code "oa"} (Cassandra 5.0 BIG, the default), {@code "nb"} (Cassandra 4.x) or {@code "da"} (Cassandra 5.0 BTI). */
        public Builder sstableVersion(String id) {
            if (!FlushlineSSTableWriter.SUPPORTED_VERSIONS.contains(id)) {
                throw new IllegalArgumentException("sstable version '" + id + "' is not supported; this writer writes "
                        + FlushlineSSTableWriter.SUPPORTED_VERSIONS);
            }
            this.version = SSTableVersion.fromId(id);
            return this;
        }

        /** Starts a new sstable at a partition boundary once Data.db (uncompressed) reached this; 0: no limit. */
        public Builder maxSSTableSizeBytes(long bytes) {
            if (bytes < 0) throw new IllegalArgumentException("max sstable size must be 0 (no limit) or more: " + bytes);
            this.maxSSTableBytes = bytes;
            return this;
        }

        /** "Now" for tombstones' local deletion time and TTL expiry (default: the clock when built). */
        public Builder nowMillis(long nowMillis) {
            if (nowMillis < 0) throw new IllegalArgumentException("now must be 0 or later: " + nowMillis);
            this.nowMillis = nowMillis;
            return this;
        }

        public SortedSSTableWriter build() throws IOException {
            return new SortedSSTableWriter(this);
        }
    }
}
