package dev.flushline.cli;

import dev.flushline.schema.ValueText;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.Murmur3;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.schema.ValueException;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.PartitionOrder;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.StatisticsReader;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code flushline dump}: an sstable as JSON, laid out byte for byte as Cassandra 5.0.9's
 * sstabledump prints it (default pretty JSON, {@code -l} JSON Lines, {@code -t} raw timestamps,
 * {@code -k} point lookups through Summary.db and Index.db).
 */
public final class DumpCommand {
    private DumpCommand() {}

    static final String HELP =
            "Usage: flushline dump --schema table.cql [--table NAME] SSTABLE_OR_DIR... [-k KEY]... [-d] [-t] [-l]\n"
          + "       [--format json|jsonl] [--now EPOCH_SECONDS]\n"
          + "\n"
          + "Prints the partitions of Cassandra 5.0 'oa' BIG and 'da' BTI (or 4.x 'nb' BIG) sstables as JSON, in the same layout\n"
          + "as Cassandra 5.0.9's sstabledump: one array of partitions, each with its key, position in Data.db\n"
          + "(uncompressed), partition deletion, static row, rows (liveness, deletion, cells with timestamps, TTLs\n"
          + "and local deletion times, collection elements) and range tombstone bounds and boundaries. The output\n"
          + "ends with a newline (sstabledump's does not; otherwise it is the same, byte for byte).\n"
          + "\n"
          + "Arguments:\n"
          + "  SSTABLE_OR_DIR     any component of one sstable, or a directory: every sstable in it that has a\n"
          + "                     TOC.txt, in generation order (one JSON document per sstable, each on its own lines)\n"
          + "  --schema FILE      the table's schema (must agree with the sstable's header): its CREATE TABLE, with the\n"
          + "                     CREATE TYPE statements it uses; a whole DESCRIBE KEYSPACE output is fine\n"
          + "  --table NAME       the table (t or ks.t) when the schema file defines several\n"
          + "  -k KEY             only this partition (repeatable), found through the partition index, in sstabledump's\n"
          + "                     syntax: a one-column key as its value, as the JSON \"key\" array prints it; a multi-column\n"
          + "                     key as the key array's values joined by ':', each with ':' escaped as '\\:' and a '!'\n"
          + "                     added after a value that ends in '\\' or '!' (the form -d prints between [ and ]); a\n"
          + "                     tuple or UDT key as its components joined by ':' ('@' for null), a blob, vector or\n"
          + "                     frozen collection as hex\n"
          + "  -d                 one line per partition deletion, static row, row and marker, in Cassandra's\n"
          + "                     internal notation ([key]@position Row[info=...]: clustering | cells)\n"
          + "  -t                 timestamps and local deletion times as raw numbers instead of ISO-8601\n"
          + "  --format json|jsonl  json: one pretty-printed array per sstable (default); jsonl: JSON Lines, one\n"
          + "                     partition per line in compact JSON, the same content as the array's elements, each\n"
          + "                     line ending with a newline, across all the sstables\n"
          + "  -l                 the same as --format jsonl (sstabledump's option)\n"
          + "  --now SECONDS      the clock for the \"expired\" flags of TTL'd data (default: the system clock)\n"
          + "\n"
          + "Exit status: 0 ok, 1 bad input or usage (also a refused or corrupt sstable; message on stderr),\n"
          + "2 internal or I/O failure.\n";

    static final Set<String> WITH_VALUE = Set.of("schema", "table", "now", "format", "-k");
    static final Set<String> FLAGS = Set.of("-t", "-l", "-d");
    private static final Args.Spec SPEC = new Args.Spec(WITH_VALUE, FLAGS).shortOptions(Set.of("-k", "-t", "-l", "-d"))
            .repeatable(Set.of("-k")).positionals();

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        if (Args.wantsHelp(argv)) {
            out.print(HELP);
            return 0;
        }
        Options o = new Options();
        try {
            Args a = new Args("dump", argv, SPEC);
            o.schemaFile = a.required("schema");
            o.table = a.string("table", null);
            o.paths.addAll(a.positionals());
            o.keys.addAll(a.all("-k"));
            o.rawTime = a.has("-t");
            o.debug = a.has("-d");
            String format = a.choice("format", a.has("-l") ? "jsonl" : "json", "json", "jsonl");
            if (a.has("-l") && a.has("format") && !format.equals("jsonl")) throw new UsageException("-l is --format jsonl; drop one");
            o.jsonLines = format.equals("jsonl");
            if (o.debug && a.has("format")) throw new UsageException("-d prints its own line form; drop --format");
            o.nowSeconds = a.longValue("now", System.currentTimeMillis() / 1000, Long.MIN_VALUE + 1, Long.MAX_VALUE);
            if (o.paths.isEmpty()) throw new UsageException("no sstable or directory given (see flushline dump --help)");
        } catch (UsageException e) {
            return usage(err, e.getMessage());
        }
        BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        SSTableFiles current = null;
        try {
            TableSchema schema = LoadCommand.readSchema(o.schemaFile, o.table);
            List<byte[]> keys = new ArrayList<>();
            for (String k : o.keys) keys.add(parseKey(schema, k));
            boolean first = true;
            for (String p : o.paths) {
                SSTableArgs.Target t = SSTableArgs.resolve(p);
                if (t.refused != null) {
                    w.flush();
                    err.println("flushline dump: " + t.refused);
                    return 1;
                }
                for (Path incomplete : t.withoutToc) {
                    err.println("flushline dump: skipped " + incomplete + ": no TOC.txt, so not a complete sstable (another writer's"
                            + " still being written, or a complete one whose TOC.txt was lost)");
                }
                for (SSTableFiles f : t.sstables) {
                    current = f;
                    // -d: a blank line between sstables, as before; the JSON forms end each document (or line) themselves.
                    if (!first && o.debug) w.write('\n');
                    first = false;
                    new Dumper(f, schema, o, w).dump(keys);
                }
            }
            w.flush();
            return 0;
        } catch (UsageException e) {
            flushQuietly(w);
            err.println("flushline dump: " + e.getMessage());
            return 1;
        } catch (CorruptSSTableException e) {
            flushQuietly(w);
            err.println("flushline dump: CORRUPT " + e.file() + ": " + e.reason() + " at byte offset " + e.offset());
            return 1;
        } catch (IncompatibleSSTableException e) {
            flushQuietly(w);
            err.println("flushline dump: REFUSED " + e.getMessage());
            return 1;
        } catch (IOException e) {
            flushQuietly(w);
            err.println("flushline dump: I/O error" + (current == null ? "" : " in " + current) + ": " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        }
    }

    private static void flushQuietly(BufferedWriter w) {
        try {
            w.flush();
        } catch (IOException ignored) {
            // the error that brought us here is reported instead
        }
    }

    private static int usage(PrintStream err, String message) {
        err.println("flushline dump: " + message);
        return 1;
    }

    static final class Options {
        String schemaFile;
        String table;
        final List<String> paths = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        boolean rawTime, jsonLines, debug;
        long nowSeconds = Long.MIN_VALUE;
    }

    // ---- -k: partition keys from their string form ------------------------------------------------

    /**
     * A partition key from its -k text, as sstabledump reads it ({@code partitionKeyType.fromString}):
     * one column's value as that type's string form; several columns as a composite string, the
     * components split at each ':' not preceded by '\\', each unescaped ('\\:' is ':', one trailing
     * '!' is dropped: the '!' Cassandra's escape adds after a component that ends in '\\' or '!').
     * That is the form -d prints a key in, and the JSON key array's components, escaped so and
     * joined by ':' (see {@link #keyArgument}). One extension: a component that is exactly "_" is that
     * text here, where Cassandra reads it as an end-of-component marker (which no partition key
     * holds, so sstabledump finds nothing for it).
     */
    static byte[] parseKey(TableSchema schema, String text) throws UsageException {
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        if (pk.length == 1) return parseValue(pk[0], text, text);
        List<String> parts = splitUnescaped(text);
        if (parts.size() != pk.length || parts.contains("!")) {
            throw new UsageException("-k " + text + ": the partition key has " + pk.length + " columns; give their values joined by ':'"
                    + " (a ':' inside a value as '\\:')");
        }
        byte[][] values = new byte[pk.length][];
        for (int i = 0; i < pk.length; i++) values[i] = parseValue(pk[i], unescapeComponent(parts.get(i)), text);
        try {
            return PartitionKey.compose(values);
        } catch (IllegalArgumentException e) {
            throw new UsageException("-k " + text + ": " + e.getMessage());
        }
    }

    /** Cassandra's composite split: at every ':' not preceded by '\\'; the empty text has no parts. */
    static List<String> splitUnescaped(String text) {
        List<String> parts = new ArrayList<>();
        if (text.isEmpty()) return parts;
        int prev = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == ':' && (i == 0 || text.charAt(i - 1) != '\\')) {
                parts.add(text.substring(prev, i));
                prev = i + 1;
            }
        }
        parts.add(text.substring(prev));
        return parts;
    }

    /** The inverse of {@link ValueText#escapeComponent}: "\\:" is ':', and one trailing '!' goes. */
    static String unescapeComponent(String part) {
        if (part.isEmpty()) return part;
        String r = part.replace("\\:", ":");
        return r.charAt(r.length() - 1) == '!' ? r.substring(0, r.length() - 1) : r;
    }

    /**
     * The -k text of a partition key given as the components dump prints in its JSON "key" array:
     * the one component itself, or the components escaped and joined by ':' (Cassandra's composite
     * string, which -d prints).
     */
    static String keyArgument(List<String> components) {
        if (components.size() == 1) return components.get(0);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < components.size(); i++) {
            if (i > 0) sb.append(':');
            sb.append(ValueText.escapeComponent(components.get(i)));
        }
        return sb.toString();
    }

    private static byte[] parseValue(ColumnMetadata c, String value, String text) throws UsageException {
        CqlType t = c.type();
        try {
            return fromString(t, value);
        } catch (ValueException | IllegalArgumentException e) {
            throw new UsageException("-k " + text + ": key column '" + c.name() + "' (" + t + "): " + e.getMessage());
        }
    }

    /**
     * A key component from its text, as Cassandra's {@code AbstractType.fromString} reads it for
     * sstabledump's -k: a tuple or UDT as its components joined by ':' ('\\:' and '\\@' escaped,
     * '@' for null), a frozen collection, vector or blob as hex, the other types as their CQL
     * literals (ValueCodec reads a string as fromString does).
     */
    static byte[] fromString(CqlType t, String text) {
        switch (t.kind()) {
            case TUPLE:
            case UDT: {
                List<String> parts = splitUnescaped(text);
                if (parts.size() > t.size()) {
                    throw new IllegalArgumentException("too many components: " + t + " has " + t.size() + ", the text " + parts.size());
                }
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < parts.size(); i++) {
                    String part = parts.get(i);
                    if (part.equals("@")) {
                        out.writeBytes(new byte[] {-1, -1, -1, -1});
                        continue;
                    }
                    byte[] v = fromString(t.component(i), part.replace("\\:", ":").replace("\\@", "@"));
                    out.writeBytes(java.nio.ByteBuffer.allocate(4).putInt(v.length).array());
                    out.writeBytes(v);
                }
                return out.toByteArray();
            }
            case LIST:
            case SET:
            case MAP:
            case VECTOR:
            case BLOB:
                return (byte[]) ValueCodec.encode(CqlType.of(CqlType.Kind.BLOB), text.startsWith("0x") ? text : "0x" + text);
            default:
                return ValueCodec.encode(t, text);
        }
    }

    // ---- the JSON, as sstabledump's JsonTransformer lays it out ---------------------------------

    private static final class Dumper {
        private final SSTableFiles files;
        private final TableSchema schema;
        private final Options o;
        private final JsonOut j;
        private final SerializationHeader header;
        private final BufferedWriter w;

        Dumper(SSTableFiles files, TableSchema schema, Options o, BufferedWriter w) throws IOException {
            this.w = w;
            this.files = files;
            this.schema = schema;
            this.o = o;
            this.j = new JsonOut(w, !o.jsonLines, System.lineSeparator());
            this.header = StatisticsReader.read(files, schema, false).header;
        }

        void dump(List<byte[]> keys) throws IOException {
            try (SSTableCursor c = new SSTableCursor(DataChunks.open(files, true), header)) {
                if (o.debug) {
                    if (keys.isEmpty()) {
                        while (c.advance() == SSTableCursor.PARTITION_START) debugPartition(c);
                    } else {
                        for (long position : lookup(keys)) {
                            c.seek(position);
                            c.advance();
                            debugPartition(c);
                        }
                    }
                    w.flush();
                    return;
                }
                if (!o.jsonLines) j.startArray();
                if (keys.isEmpty()) {
                    while (c.advance() == SSTableCursor.PARTITION_START) partition(c);
                } else {
                    for (long position : lookup(keys)) {
                        c.seek(position);
                        if (c.advance() != SSTableCursor.PARTITION_START) {
                            throw new CorruptSSTableException(files.path(Component.DATA), position, "the partition index points at no partition");
                        }
                        partition(c);
                    }
                }
                if (!o.jsonLines) {
                    j.endArray();
                    j.endLine();
                }
                j.flush();
            }
        }

        /** Data.db positions of the keys that the sstable has, in partition order, each once. */
        private long[] lookup(List<byte[]> keys) throws IOException {
            List<byte[]> sorted = new ArrayList<>(keys);
            sorted.sort((a, b) -> PartitionOrder.compare(Murmur3.token(a, 0, a.length), a, 0, a.length,
                    Murmur3.token(b, 0, b.length), b, 0, b.length));
            Path missing = PartitionIndex.missingComponent(files);
            if (missing != null) throw new IOException(missing + ": -k needs the partition index, and the sstable lists no such file");
            long[] out = new long[sorted.size()];
            int n = 0;
            try (PartitionIndex index = PartitionIndex.open(files, schema)) {
                byte[] previous = null;
                for (byte[] key : sorted) {
                    if (previous != null && Arrays.equals(previous, key)) continue;
                    previous = key;
                    long position = index.position(key, 0, key.length);
                    if (position >= 0) out[n++] = position;
                }
            }
            return Arrays.copyOf(out, n);
        }

        private String date(TimeUnit unit, long time) {
            if (o.rawTime) return Long.toString(time);
            long secs = unit.toSeconds(time);
            long nanos = Math.floorMod(unit.toNanos(time), 1_000_000_000L);
            return Instant.ofEpochSecond(secs, nanos).toString();
        }

        /** REQUIRES: the cursor is at PARTITION_START. Leaves it after PARTITION_END. */
        private void partition(SSTableCursor c) throws IOException {
            SSTableCursor.Partition p = c.partition();
            byte[] key = p.keyCopy();
            boolean deleted = p.isDeleted();
            long delTs = p.deletionTimestamp(), delLdt = p.deletionLocalTime();
            long position = p.startOffset() + p.headerLength();
            int kind = c.advance();
            boolean staticRowWaiting = false;
            if (kind == SSTableCursor.ROW && c.row().isStatic()) {
                position = c.row().endOffset();
                staticRowWaiting = true;
            }
            j.startObject();
            j.fieldName("table kind");
            j.string("REGULAR");
            j.fieldName("partition");
            j.startObject();
            j.fieldName("key");
            partitionKey(key);
            j.fieldName("position");
            j.number(position);
            if (deleted) deletion(delTs, delLdt);
            j.endObject();
            j.fieldName("rows");
            j.startArray();
            if (staticRowWaiting) {
                if (!c.row().isEmpty()) row(c, position);
                kind = c.advance();
            }
            while (kind != SSTableCursor.PARTITION_END) {
                if (kind == SSTableCursor.ROW) row(c, c.row().offset());
                else if (kind == SSTableCursor.MARKER) marker(c);
                else throw new CorruptSSTableException(files.path(Component.DATA), c.position(), "partition does not end");
                kind = c.advance();
            }
            j.endArray();
            j.endObject();
            if (o.jsonLines) j.endLine();
        }

        private void partitionKey(byte[] key) throws IOException {
            j.objectCompact = true;
            j.arrayCompact = true;
            j.startArray();
            ColumnMetadata[] pk = schema.partitionKeyColumns();
            if (pk.length == 1) {
                j.string(ValueText.plain(pk[0].type(), key, 0, key.length));
            } else {
                int[] parts = new int[2 * pk.length];
                int n = PartitionKey.decompose(key, pk.length, parts);
                for (int i = 0; i < n; i++) j.string(ValueText.plain(pk[i].type(), key, parts[2 * i], parts[2 * i + 1]));
            }
            j.endArray();
            j.objectCompact = false;
            j.arrayCompact = false;
        }

        private void deletion(long ts, long ldt) throws IOException {
            j.fieldName("deletion_info");
            j.objectCompact = true;
            j.startObject();
            j.fieldName("marked_deleted");
            j.string(date(TimeUnit.MICROSECONDS, ts));
            j.fieldName("local_delete_time");
            j.string(date(TimeUnit.SECONDS, ldt));
            j.endObject();
            j.objectCompact = false;
        }

        private void clustering(SSTableCursor c, int size, boolean marker) throws IOException {
            if (size == 0) return;
            ColumnMetadata[] ck = schema.clusteringColumns();
            byte[] b = c.buffer();
            j.fieldName("clustering");
            j.objectCompact = true;
            j.startArray();
            j.arrayCompact = true;
            for (int i = 0; i < ck.length; i++) {
                if (i >= size) {
                    j.string("*");
                    continue;
                }
                int off = marker ? c.marker().clusteringOffset(i) : c.row().clusteringOffset(i);
                int len = marker ? c.marker().clusteringLength(i) : c.row().clusteringLength(i);
                j.raw(len < 0 ? "null" : ValueText.json(ck[i].type(), b, off, len));
            }
            j.endArray();
            j.objectCompact = false;
            j.arrayCompact = false;
        }

        private void row(SSTableCursor c, long position) throws IOException {
            SSTableCursor.Row r = c.row();
            j.startObject();
            j.fieldName("type");
            j.string(r.isStatic() ? "static_block" : "row");
            j.fieldName("position");
            j.number(position);
            if (!r.isStatic()) clustering(c, r.clusteringSize(), false);
            boolean live = r.hasLiveness();
            if (live) {
                j.objectCompact = false;
                j.fieldName("liveness_info");
                j.objectCompact = true;
                j.startObject();
                j.fieldName("tstamp");
                j.string(date(TimeUnit.MICROSECONDS, r.livenessTimestamp()));
                if (r.livenessTtl() != 0) {
                    j.fieldName("ttl");
                    j.number(r.livenessTtl());
                    j.fieldName("expires_at");
                    j.string(date(TimeUnit.SECONDS, r.livenessExpirationTime()));
                    j.fieldName("expired");
                    j.bool(r.livenessExpirationTime() < o.nowSeconds);
                }
                j.endObject();
                j.objectCompact = false;
            }
            if (r.isDeleted()) deletion(r.deletionTimestamp(), r.deletionLocalTime());
            j.fieldName("cells");
            j.startArray();
            byte[] b = c.buffer();
            for (int col = 0; col < r.columnCount(); col++) {
                ColumnMetadata cm = r.column(col);
                String name = ValueText.cqlName(cm.name());
                if (!r.isComplex(col)) {
                    cell(b, r, r.cell(r.firstCell(col)), cm, name, false);
                    continue;
                }
                if (r.complexDeletionTimestamp(col) != Long.MIN_VALUE) {
                    j.objectCompact = true;
                    j.startObject();
                    j.fieldName("name");
                    j.string(name);
                    deletion(r.complexDeletionTimestamp(col), r.complexDeletionLocalTime(col));
                    j.objectCompact = true;
                    j.endObject();
                    j.objectCompact = false;
                }
                for (int k = r.firstCell(col); k < r.firstCell(col) + r.cellCount(col); k++) cell(b, r, r.cell(k), cm, name, true);
            }
            j.endArray();
            j.endObject();
        }

        private void cell(byte[] b, SSTableCursor.Row r, SSTableCursor.Cell cell, ColumnMetadata cm, String name, boolean complex)
                throws IOException {
            j.startObject();
            j.objectCompact = true;
            j.fieldName("name");
            j.string(name);
            CqlType t = cm.type();
            CqlType valueType = t;
            if (complex) {
                j.fieldName("path");
                j.arrayCompact = true;
                j.startArray();
                j.string(pathText(t, b, cell));
                j.endArray();
                j.arrayCompact = false;
                valueType = t.cellValueType(b, cell.pathOffset(), cell.pathLength());
            }
            if (cell.isTombstone()) {
                j.fieldName("deletion_info");
                j.objectCompact = true;
                j.startObject();
                j.fieldName("local_delete_time");
                j.string(date(TimeUnit.SECONDS, cell.localDeletionTime()));
                j.endObject();
                j.objectCompact = false;
            } else {
                j.fieldName("value");
                j.raw(valueType == null ? "\"\"" : ValueText.json(valueType, b, cell.valueOffset(), cell.valueLength()));
            }
            boolean live = r.hasLiveness();
            if (!live || cell.timestamp() != r.livenessTimestamp()) {
                j.fieldName("tstamp");
                j.string(date(TimeUnit.MICROSECONDS, cell.timestamp()));
            }
            if (cell.isExpiring() && (!live || cell.ttl() != r.livenessTtl())) {
                j.fieldName("ttl");
                j.number(cell.ttl());
                j.fieldName("expires_at");
                j.string(date(TimeUnit.SECONDS, cell.localDeletionTime()));
                j.fieldName("expired");
                j.bool(!(o.nowSeconds < cell.localDeletionTime()));
            }
            j.endObject();
            j.objectCompact = false;
        }

        private void marker(SSTableCursor c) throws IOException {
            SSTableCursor.Marker m = c.marker();
            j.startObject();
            j.fieldName("type");
            int kind = m.kind();
            if (!m.isBoundary()) {
                j.string("range_tombstone_bound");
                bound(c, m.isStart(), kind == 1 || kind == 6, m.deletionTimestamp(), m.deletionLocalTime());
            } else {
                j.string("range_tombstone_boundary");
                // The opening side first (the deletion that starts here), then the closing side.
                bound(c, true, kind == 2, m.startDeletionTimestamp(), m.startDeletionLocalTime());
                bound(c, false, kind == 5, m.deletionTimestamp(), m.deletionLocalTime());
            }
            j.endObject();
            j.objectCompact = false;
        }

        private void bound(SSTableCursor c, boolean start, boolean inclusive, long ts, long ldt) throws IOException {
            j.fieldName(start ? "start" : "end");
            j.startObject();
            j.fieldName("type");
            j.string(inclusive ? "inclusive" : "exclusive");
            clustering(c, c.marker().clusteringSize(), true);
            deletion(ts, ldt);
            j.endObject();
        }

        // ---- -d: Cassandra's toString of partitions, rows and markers -------------------------------

        private void line(String keyText, long position, String what) throws IOException {
            w.write('[');
            w.write(keyText);
            w.write("]@");
            w.write(Long.toString(position));
            w.write(' ');
            w.write(what);
            w.write(System.lineSeparator());
        }

        private String keyText(byte[] key) {
            ColumnMetadata[] pk = schema.partitionKeyColumns();
            if (pk.length == 1) return ValueText.plain(pk[0].type(), key, 0, key.length);
            StringBuilder sb = new StringBuilder();
            int[] parts = new int[2 * pk.length];
            int n = PartitionKey.decompose(key, pk.length, parts);
            for (int i = 0; i < n; i++) {
                if (i > 0) sb.append(':');
                int off = parts[2 * i], len = parts[2 * i + 1];
                sb.append(ValueText.escapeComponent(ValueText.plain(pk[i].type(), key, off, len)));
                byte eoc = off + len < key.length ? key[off + len] : 0;
                if (eoc != 0) sb.append(eoc < 0 ? ":_" : ":!");
            }
            return sb.toString();
        }

        private static String deletionText(long ts, long ldt) {
            return "deletedAt=" + ts + ", localDeletion=" + ldt;
        }

        private void debugPartition(SSTableCursor c) throws IOException {
            SSTableCursor.Partition p = c.partition();
            byte[] key = p.keyCopy();
            String keyText = keyText(key);
            boolean deleted = p.isDeleted();
            long delTs = p.deletionTimestamp(), delLdt = p.deletionLocalTime();
            long position = p.startOffset() + p.headerLength();
            int kind = c.advance();
            boolean staticRow = kind == SSTableCursor.ROW && c.row().isStatic();
            if (staticRow) position = c.row().endOffset();
            if (deleted) line(keyText, position, deletionText(delTs, delLdt));
            if (staticRow) {
                if (!c.row().isEmpty()) line(keyText, position, rowText(c, true));
                kind = c.advance();
            }
            while (kind != SSTableCursor.PARTITION_END) {
                if (kind == SSTableCursor.ROW) line(keyText, c.row().offset(), rowText(c, false));
                else line(keyText, c.marker().offset(), markerText(c));
                kind = c.advance();
            }
        }

        private String rowText(SSTableCursor c, boolean isStatic) {
            SSTableCursor.Row r = c.row();
            byte[] b = c.buffer();
            StringBuilder sb = new StringBuilder("Row[info=");
            if (r.livenessTtl() != 0) {
                sb.append("[ts=").append(r.livenessTimestamp()).append(" ttl=").append(r.livenessTtl())
                        .append(", let=").append(r.livenessExpirationTime()).append(']');
            } else {
                sb.append("[ts=").append(r.livenessTimestamp()).append(']');
            }
            if (r.isDeleted()) {
                sb.append(" del=").append(deletionText(r.deletionTimestamp(), r.deletionLocalTime()));
                if (r.hasShadowableDeletion()) sb.append("(shadowable)");
            }
            sb.append(" ]: ");
            if (isStatic) {
                sb.append("STATIC");
            } else {
                ColumnMetadata[] ck = schema.clusteringColumns();
                for (int i = 0; i < r.clusteringSize(); i++) {
                    if (i > 0) sb.append(", ");
                    sb.append(ValueText.cqlLiteral(ck[i].type(), b, r.clusteringOffset(i), r.clusteringLength(i)));
                }
            }
            sb.append(" | ");
            boolean first = true;
            for (int col = 0; col < r.columnCount(); col++) {
                if (!r.isComplex(col) || r.cellCount(col) > 0 || r.complexDeletionTimestamp(col) != Long.MIN_VALUE) {
                    if (first) first = false;
                    else sb.append(", ");
                } else {
                    continue; // Cassandra's row holds no data for this column
                }
                ColumnMetadata cm = r.column(col);
                if (!r.isComplex(col)) {
                    cellText(sb, b, r.cell(r.firstCell(col)), cm, false);
                    continue;
                }
                if (r.complexDeletionTimestamp(col) != Long.MIN_VALUE) {
                    sb.append("del(").append(cm.name()).append(")=")
                            .append(deletionText(r.complexDeletionTimestamp(col), r.complexDeletionLocalTime(col)));
                }
                for (int k = r.firstCell(col); k < r.firstCell(col) + r.cellCount(col); k++) {
                    sb.append(", ");
                    cellText(sb, b, r.cell(k), cm, true);
                }
            }
            return sb.toString();
        }

        private static void cellText(StringBuilder sb, byte[] b, SSTableCursor.Cell cell, ColumnMetadata cm, boolean complex) {
            CqlType t = cm.type();
            if (t.isCounter() && !cell.isTombstone()) {
                // a live counter cell prints the total of its context and its timestamp, nothing else
                sb.append('[').append(cm.name()).append('=').append(ValueText.counterTotal(b, cell.valueOffset(), cell.valueLength()))
                        .append(" ts=").append(cell.timestamp()).append(']');
                return;
            }
            sb.append('[').append(cm.name());
            if (complex) {
                sb.append('[').append(pathText(t, b, cell)).append(']');
                CqlType valueType = t.cellValueType(b, cell.pathOffset(), cell.pathLength());
                sb.append('=');
                if (cell.isTombstone()) sb.append("<tombstone>");
                else if (valueType != null) sb.append(ValueText.plain(valueType, b, cell.valueOffset(), cell.valueLength()));
            } else {
                sb.append('=');
                if (cell.isTombstone()) sb.append("<tombstone>");
                else sb.append(ValueText.plain(t, b, cell.valueOffset(), cell.valueLength()));
            }
            sb.append(' ');
            if (cell.isExpiring()) {
                sb.append("ts=").append(cell.timestamp()).append(" ttl=").append(cell.ttl()).append(" ldt=").append(cell.localDeletionTime());
            } else if (cell.isTombstone()) {
                sb.append("ts=").append(cell.timestamp()).append(" ldt=").append(cell.localDeletionTime());
            } else {
                sb.append("ts=").append(cell.timestamp());
            }
            sb.append(']');
        }


        /**
         * A cell path as sstabledump prints it: the element or key in plain form for a collection,
         * the field's name for a non-frozen UDT (the index itself if it names no field).
         */
        static String pathText(CqlType t, byte[] b, SSTableCursor.Cell cell) {
            if (t.kind() == CqlType.Kind.UDT) {
                int i = t.fieldIndexOfPath(b, cell.pathOffset(), cell.pathLength());
                if (i >= 0) return t.fieldName(i);
            }
            return ValueText.plain(t.cellPathType(), b, cell.pathOffset(), cell.pathLength());
        }

        private static final String[] KINDS = {"EXCL_END_BOUND", "INCL_START_BOUND", "EXCL_END_INCL_START_BOUNDARY", "STATIC_CLUSTERING",
                "CLUSTERING", "INCL_END_EXCL_START_BOUNDARY", "INCL_END_BOUND", "EXCL_START_BOUND"};

        private String markerText(SSTableCursor c) {
            SSTableCursor.Marker m = c.marker();
            ColumnMetadata[] ck = schema.clusteringColumns();
            StringBuilder sb = new StringBuilder("Marker ").append(KINDS[m.kind()]).append('(');
            for (int i = 0; i < m.clusteringSize(); i++) {
                if (i > 0) sb.append(", ");
                int len = m.clusteringLength(i);
                sb.append(len < 0 ? "null" : ValueText.plain(ck[i].type(), c.buffer(), m.clusteringOffset(i), len));
            }
            sb.append(")@").append(m.deletionTimestamp()).append('/').append(m.deletionLocalTime());
            if (m.isBoundary()) sb.append('-').append(m.startDeletionTimestamp()).append('/').append(m.startDeletionLocalTime());
            return sb.toString();
        }
    }
}
