package dev.flushline.writer;

import dev.flushline.sstable.SSTableVersion;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushCompression;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.ModificationStatement;
import dev.flushline.schema.ModificationStatement.Marker;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueException;
import dev.flushline.table.Table;
import dev.flushline.table.TableOptions;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes sstables of one table from rows of Java values, one CQL modification statement applied
 * per row: a drop-in for Cassandra 5.0's {@code CQLSSTableWriter} (change the import and the class
 * name). The sstables are Cassandra 5.0 BIG version {@code oa}, written straight into the given
 * directory as {@code oa-<generation>-big-<Component>}, as CQLSSTableWriter writes them.
 *
 * <pre>{@code
 * try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder()
 *         .inDirectory("/staging")
 *         .forTable("CREATE TABLE ks.t (pk int, ck text, v bigint, PRIMARY KEY (pk, ck))")
 *         .using("INSERT INTO ks.t (pk, ck, v) VALUES (?, ?, ?) USING TIMESTAMP ?")
 *         .build()) {
 *     w.addRow(1, "a", 10L, 1_700_000_000_000_000L);
 * }
 * }</pre>
 *
 * <p>How rows become sstables: each row's values are bound to the statement once
 * ({@code RowBinder}: key, clustering and cells as serialized bytes), which gives the cells,
 * timestamps, TTLs and tombstones the statement makes in Cassandra. By default the row becomes a
 * partition update applied to a skip-list memtable; when
 * the memtable's data reaches {@link Builder#withBufferSizeInMiB} it is switched for a fresh one
 * and flushed on a background thread while rows keep coming (a writer waits only if a second
 * memtable fills before the first is flushed). Each flush writes its partitions in token order,
 * splitting into a new sstable at a partition boundary once Data.db reaches
 * {@link Builder#withMaxSSTableSizeInMiB}. {@link #close()} flushes the rest and waits.
 *
 * <p>Sorted mode ({@link Builder#sorted}): rows that come in sstable order go straight to the row
 * serializer through a {@link SortedSSTableWriter}, with no memtable and no allocation per row for
 * values of the common native types. A row out of order is refused (see {@link Builder#sorted}).
 *
 * <p>Values: {@code ?} markers take Java objects as the Java driver maps CQL types (see
 * {@link dev.flushline.schema.JavaValues}); {@code null} writes a tombstone (for a collection: deletes it), and
 * {@link #UNSET_VALUE} leaves the column untouched, as in CQL. A value of the wrong class is refused
 * with an {@link IllegalArgumentException} naming the row, the marker, its CQL type, the value and
 * its class; nothing of that row is written.
 *
 * <p>"Now": write timestamps default to the wall clock in microseconds at each row, and tombstones
 * and TTL expiry use the wall clock in seconds, as in Cassandra; {@link Builder#withNowMillis}
 * fixes it, for repeatable output.
 *
 * <p>Thread safety: one thread at a time (as CQLSSTableWriter); {@link #addRow} and
 * {@link #close} are not to be called concurrently.
 */
public final class FlushlineSSTableWriter implements Closeable {
    /**
     * Bind this to leave a column unset (nothing is written for it), as
     * {@code CQLSSTableWriter.UNSET_VALUE}. Compared by identity.
     */
    public static final ByteBuffer UNSET_VALUE = ByteBuffer.allocate(0).asReadOnlyBuffer();

    /** The sstable versions this writer can write. */
    public static final List<String> SUPPORTED_VERSIONS = List.of("oa", "nb", "da");

    private static final long MIB = 1024L * 1024;
    private static final long DEFAULT_BUFFER_MIB = 128;

    private final List<Marker> markers;
    private final RowBinder binder;
    private final long maxLocalDeletionTime;
    private final String maxLocalDeletionTimeText;
    /** The memtables and their background flush; null in sorted mode. */
    private final Table table;
    /** Sorted mode: rows go straight to the serializer; null when buffered. */
    private final SortedSSTableWriter sortedWriter;
    private final Long fixedNowMillis;
    private final List<Path> written = Collections.synchronizedList(new ArrayList<>());
    private long rows;
    private boolean closed;

    private FlushlineSSTableWriter(Builder b, TableSchema schema, ModificationStatement statement) throws IOException {
        this.markers = statement.markers();
        this.fixedNowMillis = b.nowMillis;
        long now = nowMillis();
        SSTableVersion version = SSTableVersion.fromId(b.version);
        this.maxLocalDeletionTime = version.maxLocalDeletionTime();
        this.maxLocalDeletionTimeText = version.maxLocalDeletionTimeText() + " for " + version + " sstables";
        if (now / 1000 > maxLocalDeletionTime) {
            throw new IllegalArgumentException("now must be in 0.." + maxLocalDeletionTime + " seconds: " + now / 1000);
        }
        this.binder = new RowBinder(schema, statement, now / 1000);
        if (b.listPathSeed != null) binder.seedListPaths(b.listPathSeed);
        long maxBytes = b.maxSSTableSizeMiB > 0 ? b.maxSSTableSizeMiB * MIB : 0;
        if (b.sorted) {
            refuseUnsorted(binder);
            this.table = null;
            this.sortedWriter = SortedSSTableWriter.builder(schema, b.directory).sstableVersion(b.version)
                    .maxSSTableSizeBytes(maxBytes).nowMillis(now).build();
            return;
        }
        this.sortedWriter = null;
        long bufferBytes = (b.bufferSizeMiB > 0 ? b.bufferSizeMiB : DEFAULT_BUFFER_MIB) * MIB;
        // A memtable is switched at the buffer size, and rows fill the next one while it flushes.
        // The table's own codec, as CQLSSTableWriter writes. What the table says (files of another
        // writer left alone, a failed flush) is logged through SLF4J by the table's classes.
        TableOptions options = TableOptions.builder().schema(schema).directory(b.directory).allocation(b.allocationMode)
                .memtableSizeBytes(bufferBytes).maxSSTableBytes(maxBytes).sstableVersion(version)
                .flushCompression(FlushCompression.TABLE).onFlushed(this::flushed)
                .build();
        try {
            this.table = Table.open(options);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening " + b.directory);
        }
    }

    /**
     * Sorted mode writes each partition as its rows come: a statement that needs a partition's
     * rows together is refused before any row.
     */
    private static void refuseUnsorted(RowBinder b) {
        if (b.canWriteStaticAndRegular()) {
            throw new IllegalArgumentException("sorted(): the statement writes static and regular columns in one row; a sorted writer"
                    + " streams each partition, so its static row must be written alone, before its rows (use a statement of"
                    + " static columns with the partition key only, or drop sorted())");
        }
        if (b.canWriteRange()) {
            throw new IllegalArgumentException("sorted(): a DELETE by clustering prefix or range writes a range deletion, which"
                    + " sorted mode does not write; drop sorted() for it");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private void flushed(FlushOutcome o) {
        written.add(o.result.dataPath);
    }

    private long nowMillis() {
        return fixedNowMillis != null ? fixedNowMillis : System.currentTimeMillis();
    }

    /** Adds a row: one value per bind marker, in the order the markers appear in the statement. */
    public FlushlineSSTableWriter addRow(Object... values) throws IOException {
        checkCount(values.length);
        return apply(values); // read only: the caller may reuse the array for the next row
    }

    /** As {@link #addRow(Object...)}. */
    public FlushlineSSTableWriter addRow(List<Object> values) throws IOException {
        checkCount(values.size());
        return apply(values.toArray());
    }

    private void checkCount(int n) {
        if (n != markers.size()) {
            throw new IllegalArgumentException("row " + (rows + 1) + ": expected " + markers.size() + " values (" + markerNames()
                    + ") but got " + n);
        }
    }

    /**
     * Adds a row whose values are looked up by marker name: the column a {@code ?} binds,
     * {@code [timestamp]}, {@code [ttl]}, or the name of a {@code :name} marker. A name missing from
     * the map binds null (a tombstone), as in CQLSSTableWriter; bind {@link #UNSET_VALUE} to leave
     * a column untouched.
     */
    public FlushlineSSTableWriter addRow(Map<String, Object> values) throws IOException {
        Object[] bound = new Object[markers.size()];
        for (int i = 0; i < bound.length; i++) bound[i] = values.get(markers.get(i).name);
        return apply(bound);
    }

    private String markerNames() {
        StringBuilder sb = new StringBuilder();
        for (Marker m : markers) sb.append(sb.length() == 0 ? "" : ", ").append(m);
        return sb.toString();
    }

    private FlushlineSSTableWriter apply(Object[] bound) throws IOException {
        if (closed) throw new IllegalStateException("the writer is closed");
        long row = rows + 1;
        long now = nowMillis();
        try {
            binder.bind(bound, now, maxLocalDeletionTime, maxLocalDeletionTimeText);
        } catch (ValueException e) {
            throw new IllegalArgumentException("row " + row + ": " + e.getMessage(), e);
        }
        if (binder.shape != RowBinder.Shape.NOTHING) {
            if (sortedWriter != null) {
                writeSorted(row, now);
            } else {
                applyMutation(row);
            }
        }
        rows = row;
        return this;
    }

    // ---- sorted: straight to the serializer -------------------------------------------------------

    private void writeSorted(long row, long now) throws IOException {
        final RowBinder b = binder;
        final SortedSSTableWriter w = sortedWriter;
        try {
            w.advanceNowMillis(now);
            if (!w.inPartition(b.keySource, b.keyOffset, b.keyLength)) {
                if (w.isPartitionOpen()) w.endPartition();
                w.startPartition(b.keySource, b.keyOffset, b.keyLength);
            }
            switch (b.shape) {
                case PARTITION_DELETE:
                    w.deletePartition(b.timestamp);
                    return;
                case STATIC:
                    w.startStaticRow(b.timestamp, b.ttl);
                    sortedCells(w, true);
                    w.endRow();
                    return;
                case ROW: {
                    if (b.hasStatic) {
                        w.startStaticRow(b.timestamp, b.ttl);
                        sortedCells(w, true);
                        w.endRow();
                    }
                    w.startRow(b.timestamp, b.ttl, b.liveness);
                    byte[] ck = b.clusteringSource();
                    for (int i = 0; i < b.ckOffset.length; i++) w.clustering(i, ck, b.ckOffset[i], b.ckLength[i]);
                    if (b.rowDeletion) w.deleteRow();
                    sortedCells(w, false);
                    w.endRow();
                    return;
                }
                default:
                    throw new AssertionError(b.shape); // range deletions are refused at build()
            }
        } catch (IllegalStateException | IllegalArgumentException e) {
            if (w.isRowOpen()) w.abandonRow();
            throw new IllegalStateException("row " + row + ": " + e.getMessage(), e);
        }
    }

    private void sortedCells(SortedSSTableWriter w, boolean statics) {
        final RowBinder b = binder;
        for (int i = 0; i < b.slotColumn.length; i++) {
            if (!b.writes(i, statics)) continue;
            ColumnMetadata c = b.slotColumn[i];
            byte state = b.slotState[i];
            int p = c.position();
            if (state == RowBinder.NULL) {
                if (b.slotOp[i] == RowBinder.DELETE && c.isComplex()) w.deleteCollection(p);
                else w.setNull(p);
            } else if (state == RowBinder.VALUE) {
                w.set(p, b.valueSource(i), b.slotOffset[i], b.slotLength[i]);
            } else {
                int n = b.slotCellCount[i];
                if (b.slotOp[i] == RowBinder.SET) w.replaceCollection(p);
                for (int k = b.slotFirstCell[i], end = k + n; k < end; k++) {
                    w.addCollectionCell(p, b.cellPathSource[k], 0, b.cellPathLength[k], b.cellValueSource[k], 0, b.cellValueLength[k]);
                }
            }
        }
    }

    // ---- buffered: a mutation into the memtable ---------------------------------------------------

    private void applyMutation(long row) throws IOException {
        PartitionUpdate update = MutationBuilder.update(binder);
        if (update == null) return;
        try {
            table.apply(update);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while adding row " + row);
        }
    }

    /** The Data.db files published so far (all of them once {@link #close()} returned), in publish order. */
    public List<Path> dataFiles() {
        synchronized (written) {
            return List.copyOf(written);
        }
    }

    /** Rows added so far (refused rows not counted). */
    public long rowCount() {
        return rows;
    }

    /**
     * Flushes what is buffered, waits for every sstable to be published, and stops the flush
     * thread; in sorted mode, ends the last partition and publishes.
     */
    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        if (sortedWriter != null) {
            sortedWriter.close();
            written.addAll(sortedWriter.dataFiles());
            return;
        }
        try {
            table.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while flushing on close");
        }
    }

    /**
     * Builds a {@link FlushlineSSTableWriter}; the names follow CQLSSTableWriter.Builder. Not
     * thread-safe.
     */
    public static final class Builder {
        private Path directory;
        private String schemaCql;
        private String statementCql;
        private long maxSSTableSizeMiB = -1;
        private long bufferSizeMiB = -1;
        private boolean sorted;
        private String version = "oa";
        private Long nowMillis;
        private Long listPathSeed;
        private AllocationMode allocationMode = AllocationMode.HEAP_BUFFERS;
        private final java.util.List<String> typeStatements = new java.util.ArrayList<>();

        private Builder() {}

        /** The directory the sstables are written into (not a subdirectory of it); it must exist and be writable. */
        public Builder inDirectory(String directory) {
            return inDirectory(Paths.get(directory));
        }

        public Builder inDirectory(File directory) {
            return inDirectory(directory.toPath());
        }

        public Builder inDirectory(Path directory) {
            if (!Files.isDirectory(directory)) throw new IllegalArgumentException(directory + " doesn't exist or is not a directory");
            if (!Files.isWritable(directory)) throw new IllegalArgumentException(directory + " exists but is not writable");
            this.directory = directory;
            return this;
        }

        /**
         * The table's {@code CREATE TABLE} statement (with its keyspace), or a whole schema as
         * DESCRIBE KEYSPACE prints it (CREATE TYPE statements, several tables: the one the
         * statement of {@link #using} writes is taken). Parsed at once, with the types given so
         * far; a type it uses may also be given later with {@link #withType}.
         */
        public Builder forTable(String createTableStatement) {
            this.schemaCql = createTableStatement;
            try {
                CqlParser.parseSchema(schemaText()); // refuse it here, naming line and column, as CQLSSTableWriter does
            } catch (dev.flushline.schema.SchemaException e) {
                if (!e.getMessage().contains("unknown type ")) throw e; // withType may still come
            }
            return this;
        }

        /**
         * A user-defined type the table uses, as {@code CREATE TYPE ks.name (field type, ...)}, as
         * CQLSSTableWriter's withType takes it; repeat for more, in dependency order.
         */
        public Builder withType(String createTypeStatement) {
            String t = createTypeStatement.strip();
            while (t.endsWith(";")) t = t.substring(0, t.length() - 1).strip();
            this.typeStatements.add(t);
            return this;
        }

        /** The types given with withType, then the table's schema, as one schema file. */
        private String schemaText() {
            StringBuilder sb = new StringBuilder();
            for (String t : typeStatements) sb.append(t).append(";\n");
            return sb.append(schemaCql).toString();
        }

        /** The INSERT, UPDATE or DELETE applied per row; checked against the table at {@link #build()}. */
        public Builder using(String modificationStatement) {
            this.statementCql = modificationStatement;
            return this;
        }

        /**
         * Splits the output into sstables of about this many MiB of (uncompressed) Data.db, at a
         * partition boundary; 0 or less: no limit (each flush writes one sstable).
         */
        public Builder withMaxSSTableSizeInMiB(int size) {
            this.maxSSTableSizeMiB = size;
            return this;
        }

        /**
         * The memory the rows may take in a memtable before it is flushed in the background
         * (default 128 MiB, CQLSSTableWriter's default buffer); up to twice this is held while one
         * memtable flushes and the next fills.
         */
        public Builder withBufferSizeInMiB(int size) {
            if (size <= 0) throw new IllegalArgumentException("buffer size must be at least 1 MiB: " + size);
            this.bufferSizeMiB = size;
            return this;
        }

        /**
         * Declares that rows come in sstable order, as CQLSSTableWriter's sorted mode: partitions in
         * token order (Murmur3 token, then the serialized key's bytes), and within a partition its
         * rows in clustering order. Each row is then written as it comes, through
         * {@link SortedSSTableWriter}; {@link #withBufferSizeInMiB} and {@link #withAllocationMode}
         * are ignored, and nothing is published before {@link FlushlineSSTableWriter#close}.
         *
         * <p>Out of order: a row whose partition sorts before the previous one, or whose
         * clustering is not after the previous row of its partition (or repeats it), is refused
         * with an {@link IllegalStateException} naming the row number and both keys; nothing of it
         * is written and the writer goes on. CQLSSTableWriter's sorted mode refuses a partition out
         * of order too, but only when it writes the previous partition (a row later, by throwing
         * "Last written key ... >= current key"), and buffers each partition, so it sorts and merges
         * the rows within one; this writer streams rows and refuses them at once instead.
         *
         * <p>So statements that need a partition's rows together are refused by {@link #build()}:
         * one that writes static and regular columns in the same row (a partition's static row must
         * come first, alone: use a statement of static columns by partition key) and a DELETE by
         * clustering prefix or range (a range deletion).
         */
        public Builder sorted() {
            this.sorted = true;
            return this;
        }

        /**
         * The sstable version to write: {@code "oa"} (Cassandra 5.0's BIG format, the default),
         * {@code "nb"} (Cassandra 4.x, and 5.0 in storage_compatibility_mode CASSANDRA_4) or
         * {@code "da"} (Cassandra 5.0's trie-indexed BTI format).
         */
        public Builder withSSTableVersion(String version) {
            if (!SUPPORTED_VERSIONS.contains(version)) {
                throw new IllegalArgumentException("sstable version '" + version + "' is not supported; this writer writes "
                        + SUPPORTED_VERSIONS);
            }
            this.version = version;
            return this;
        }

        /**
         * The sstable format to write, by the name Cassandra gives it (CQLSSTableWriter's
         * {@code withFormat} takes the format of that name): {@code "big"} writes oa, {@code "bti"}
         * writes da, each the format's Cassandra 5.0 version.
         */
        public Builder withFormat(String format) {
            if ("big".equals(format)) return withSSTableVersion("oa");
            if ("bti".equals(format)) return withSSTableVersion("da");
            throw new IllegalArgumentException("sstable format '" + format + "' is not supported; this writer writes big or bti");
        }

        /** A fixed "now": write timestamps default to {@code nowMillis * 1000}, tombstones get {@code nowMillis / 1000}. */
        public Builder withNowMillis(long nowMillis) {
            if (nowMillis < 0) throw new IllegalArgumentException("now must be 0 or later: " + nowMillis);
            this.nowMillis = nowMillis;
            return this;
        }

        /**
         * Repeatable list element ids: list appends ({@code l = l + ?}) get the same time-UUID paths in
         * every run with this seed and the same {@link #withNowMillis now}. Without it each writer draws
         * its own, as Cassandra's nodes do, so writers in any process never overwrite each other's
         * appends. Two writers with the same seed must not append to the same lists: their elements
         * would share paths, and one would replace the other.
         */
        public Builder withListPathSeed(long seed) {
            this.listPathSeed = seed;
            return this;
        }

        /** How memtables hold the rows (default heap_buffers, Cassandra's default). */
        public Builder withAllocationMode(AllocationMode mode) {
            this.allocationMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        public boolean isSorted() {
            return sorted;
        }

        public String sstableVersion() {
            return version;
        }

        /**
         * @throws IllegalStateException if the directory, table or statement is missing
         * @throws dev.flushline.schema.SchemaException if the statement is refused (line and column)
         */
        public FlushlineSSTableWriter build() {
            if (directory == null) throw new IllegalStateException("No output directory specified, you should provide a directory with inDirectory()");
            if (schemaCql == null) throw new IllegalStateException("Missing schema, you should provide the schema for the SSTable to create with forTable()");
            if (statementCql == null) {
                throw new IllegalStateException("No modification (INSERT/UPDATE/DELETE) statement specified, you should provide a modification statement through using()");
            }
            dev.flushline.schema.SchemaFile file = CqlParser.parseSchema(schemaText());
            TableSchema schema = file.tables().size() == 1 ? file.onlyTable() : file.table(ModificationStatement.tableName(statementCql));
            if (schema.isCounterTable()) {
                throw new IllegalArgumentException("Counter modification statements are not supported: table " + schema
                        + " is a counter table (a counter is changed by increments, as in CQLSSTableWriter)");
            }
            ModificationStatement st = ModificationStatement.parse(statementCql, schema);
            try {
                return new FlushlineSSTableWriter(this, schema, st);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot open " + directory + " for writing", e);
            }
        }
    }
}
