package dev.flushline.cli;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CompressionParams;
import dev.flushline.schema.CqlPrinter;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.MarshalTypes;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.StatisticsReader;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code flushline schema}: the table's CQL recovered from its sstables. Statistics.db's
 * serialization header spells the partition key's and clustering columns' types (ReversedType for
 * DESC) and the static and regular columns with their names and types, user-defined types with
 * their keyspace, name and fields; CompressionInfo.db holds the compressor, its options and the
 * chunk length (CRC.db instead: no compression); VALIDATION the bloom filter's false-positive
 * chance. Not stored anywhere: the key columns' names (printed as pk0.., ck0..), columns no
 * sstable has data for, and the other table options. With {@code --schema} the files are checked
 * against a given table instead (as dump and verify check them), and that table is printed.
 *
 * <p>Thread safety: one invocation per thread.
 */
public final class SchemaCommand {
    private SchemaCommand() {}

    static final String HELP =
            "Usage: flushline schema SSTABLE_OR_DIR... [--schema table.cql [--table NAME]] [--json]\n"
          + "\n"
          + "Prints the CREATE TYPE and CREATE TABLE statements of the table whose sstables ('oa' or 'nb' BIG, or 'da' BTI;\n"
          + "ours or Cassandra's) are given, recovered from the files: from Statistics.db's serialization header the\n"
          + "partition key and clustering types (DESC from ReversedType), the static and regular columns with\n"
          + "their names and types, and user-defined types (keyspace, name, fields); from CompressionInfo.db the\n"
          + "compressor, its options and chunk length (or, with CRC.db, no compression); from Statistics.db the\n"
          + "bloom filter's false-positive chance. The files do not store the key columns' names: they are\n"
          + "printed as pk0, pk1.. and ck0, ck1... Keyspace, table and table id come from the table directory's\n"
          + "name (<keyspace>/<table>-<id>/) when it has that form, else the keyspace of a user-defined type, or\n"
          + "unknown_keyspace and unknown_table. Columns that no given sstable has data for, and table options\n"
          + "other than compression and bloom_filter_fp_chance, cannot be recovered. Several sstables must agree\n"
          + "on the key and on each column's type (their columns add up); compression is the last sstable's (a\n"
          + "directory's in generation order), and a difference is said on stderr. The output reads back with\n"
          + "--schema in load, dump, verify and compact.\n"
          + "\n"
          + "Arguments:\n"
          + "  SSTABLE_OR_DIR   any component of one sstable (e.g. oa-1-big-Data.db), or a directory: every\n"
          + "                   sstable in it that has a TOC.txt\n"
          + "  --schema FILE    check the sstables against this table instead (CREATE TABLE with the CREATE TYPE\n"
          + "                   statements it uses, or a whole DESCRIBE KEYSPACE output), as dump and verify check them,\n"
          + "                   and print that table; a difference in compression is said on stderr, not refused\n"
          + "  --table NAME     with --schema: the table (t or ks.t) when the file defines several\n"
          + "  --json           print one JSON object on one line instead of the CQL: command, status, wall_ms, cpu_ms;\n"
          + "                   keyspace, table, id; key_names (\"placeholders\" for pk0/ck0.., or \"schema\" with\n"
          + "                   --schema); partition_key, clustering (with order ASC or DESC), static and regular: lists\n"
          + "                   of {name, type} in CQL; types: the user-defined types {keyspace, name, fields: [{name,\n"
          + "                   type}]}, a type before the types that use it; compression: the table's compression map;\n"
          + "                   bloom_filter_fp_chance; cql: the text printed without --json; sstables: how many were\n"
          + "                   read; notes: what is otherwise said on stderr; error when the status is not 0 (stdout\n"
          + "                   then holds this object alone)\n"
          + "\n"
          + "Exit status: 0 ok, 1 bad input or usage (sstables that disagree with each other or with --schema, a\n"
          + "refused or corrupt file), 2 internal or I/O failure.\n";

    static final Set<String> WITH_VALUE = Set.of("schema", "table");
    static final Set<String> FLAGS = Set.of(JsonSummary.FLAG);

    /** A table directory's name: {@code <table>-<32 hex id>}. */
    private static final Pattern TABLE_DIR = Pattern.compile("(\\w{1,222})-([0-9a-f]{32})");
    private static final Pattern WORD = Pattern.compile("\\w{1,48}");

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        if (Args.wantsHelp(argv)) {
            out.print(HELP);
            return 0;
        }
        JsonSummary summary = JsonSummary.ifRequested("schema", argv);
        return JsonSummary.finish(summary, schema(argv, out, err, summary), out);
    }

    private static int schema(String[] argv, PrintStream out, PrintStream err, JsonSummary summary) {
        List<String> notes = new ArrayList<>();
        try {
            Args a = new Args("schema", argv, new Args.Spec(WITH_VALUE, FLAGS).positionals());
            if (a.has("table") && !a.has("schema")) throw new UsageException("--table picks a table of --schema; give --schema too");
            List<String> paths = a.positionals();
            if (paths.isEmpty()) throw new UsageException("no sstable or directory given (see flushline schema --help)");
            List<SSTableFiles> sstables = new ArrayList<>();
            for (String p : paths) {
                SSTableArgs.Target t = SSTableArgs.resolve(p);
                if (t.refused != null) throw new UsageException("refused " + t.refused);
                for (Path incomplete : t.withoutToc) {
                    note(notes, err, "skipped " + incomplete + ": no TOC.txt, so not a complete sstable");
                }
                sstables.addAll(t.sstables);
            }
            if (sstables.isEmpty()) throw new UsageException("no complete sstable in " + paths);
            TableSchema schema;
            boolean given = a.has("schema");
            if (given) {
                schema = LoadCommand.readSchema(a.required("schema"), a.string("table", null));
                check(schema, sstables, notes, err);
            } else {
                schema = recover(sstables, notes, err);
            }
            String cql;
            try {
                cql = CqlPrinter.schema(schema);
            } catch (IllegalArgumentException e) {
                // one type name for two definitions (a type altered between sstables), or a chunk length CQL cannot say
                throw new UsageException("no one schema fits these sstables: " + e.getMessage());
            }
            if (summary != null) {
                describe(summary, schema, given, cql, sstables.size(), notes);
            } else {
                out.print(cql);
                out.flush();
            }
            return 0;
        } catch (UsageException e) {
            return failed(summary, err, notes, "flushline schema: " + e.getMessage(), 1);
        } catch (IncompatibleSSTableException e) {
            return failed(summary, err, notes, "flushline schema: REFUSED " + e.getMessage(), 1);
        } catch (CorruptSSTableException e) {
            return failed(summary, err, notes, "flushline schema: CORRUPT " + e.file() + ": " + e.reason() + " at byte offset " + e.offset(), 1);
        } catch (IOException e) {
            return failed(summary, err, notes, "flushline schema: I/O error: " + dev.flushline.io.IoErrors.withCause(e), 2);
        } catch (RuntimeException e) {
            return failed(summary, err, notes, "flushline schema: internal error: " + e, 2);
        }
    }

    private static int failed(JsonSummary summary, PrintStream err, List<String> notes, String message, int status) {
        JsonSummary.report(summary, err, message);
        if (summary != null && !notes.isEmpty()) summary.put("notes", new ArrayList<Object>(notes));
        return status;
    }

    /** Says {@code text} on stderr now, and keeps it for the JSON summary's notes. */
    private static void note(List<String> notes, PrintStream err, String text) {
        notes.add(text);
        err.println("flushline schema: " + text);
    }

    /** The members of {@code schema --json} (see the help). */
    private static void describe(JsonSummary s, TableSchema t, boolean given, String cql, int sstables, List<String> notes) {
        s.put("keyspace", t.keyspace());
        s.put("table", t.name());
        s.put("id", t.id().toString());
        s.put("key_names", given ? "schema" : "placeholders");
        s.put("partition_key", columns(t.partitionKeyColumns(), false));
        s.put("clustering", columns(t.clusteringColumns(), true));
        s.put("static", columns(t.staticColumns(), false));
        s.put("regular", columns(t.regularColumns(), false));
        List<Object> types = new ArrayList<>();
        for (CqlType u : CqlPrinter.userTypes(t)) {
            Map<String, Object> type = JsonSummary.object();
            type.put("keyspace", u.keyspace());
            type.put("name", u.typeName());
            List<Object> fields = new ArrayList<>();
            for (int i = 0; i < u.size(); i++) fields.add(column(u.fieldName(i), CqlPrinter.type(u.component(i))));
            type.put("fields", fields);
            types.add(type);
        }
        s.put("types", types);
        s.put("compression", new LinkedHashMap<String, Object>(CqlPrinter.compressionMap(t.compressionParams())));
        s.put("bloom_filter_fp_chance", t.bloomFilterFpChance());
        s.put("cql", cql);
        s.put("sstables", sstables);
        s.put("notes", new ArrayList<Object>(notes));
    }

    private static List<Object> columns(ColumnMetadata[] cs, boolean withOrder) {
        List<Object> list = new ArrayList<>(cs.length);
        for (ColumnMetadata c : cs) {
            Map<String, Object> m = column(c.name(), CqlPrinter.type(c.type()));
            if (withOrder) m.put("order", c.isReversed() ? "DESC" : "ASC");
            list.add(m);
        }
        return list;
    }

    private static Map<String, Object> column(String name, String type) {
        Map<String, Object> m = JsonSummary.object();
        m.put("name", name);
        m.put("type", type);
        return m;
    }

    /** Checks every sstable's header against {@code schema} (as dump reads it), and says where the compression differs. */
    private static void check(TableSchema schema, List<SSTableFiles> sstables, List<String> notes, PrintStream err) throws IOException {
        for (SSTableFiles f : sstables) {
            StatisticsReader.read(f, schema, false); // refuses a header that does not fit the schema, naming file and offset
            CompressionParams c = compression(f);
            if (!c.equals(schema.compressionParams())) {
                note(notes, err, "note: " + f.path(Component.DATA) + " is compressed with " + CqlPrinter.compression(c)
                        + "; the schema says " + CqlPrinter.compression(schema.compressionParams()));
            }
        }
    }

    private static CompressionParams compression(SSTableFiles f) throws IOException {
        if (!f.isCompressed()) return CompressionParams.NONE;
        try (DataChunks chunks = DataChunks.open(f, false)) {
            return chunks.compression();
        }
    }

    /** One column as the headers spell it, and the first sstable that does. */
    private record Column(String name, String marshalName, boolean isStatic, SSTableFiles from) {}

    /** The table the sstables' headers describe (see the class comment). */
    static TableSchema recover(List<SSTableFiles> sstables, List<String> notes, PrintStream err) throws IOException, UsageException {
        String pkType = null;
        String[] ckTypes = null;
        SSTableFiles keyFrom = null;
        Map<String, Column> columns = new LinkedHashMap<>();
        double bloomFp = Double.NaN;
        CompressionParams compression = null;
        SSTableFiles compressionFrom = null;
        for (SSTableFiles f : sstables) {
            StatisticsReader.HeaderTypes h = StatisticsReader.headerTypes(f);
            Path stats = f.path(Component.STATISTICS);
            if (pkType == null) {
                pkType = h.partitionKeyType;
                ckTypes = h.clusteringTypes;
                keyFrom = f;
            } else if (!pkType.equals(h.partitionKeyType) || !java.util.Arrays.equals(ckTypes, h.clusteringTypes)) {
                throw new UsageException("the sstables are not of one table: " + keyFrom.path(Component.STATISTICS) + " has key "
                        + keyText(pkType, ckTypes) + ", " + stats + " has " + keyText(h.partitionKeyType, h.clusteringTypes));
            }
            add(columns, h.staticNames, h.staticTypes, true, f);
            add(columns, h.regularNames, h.regularTypes, false, f);
            if (!Double.isNaN(h.bloomFilterFpChance)) bloomFp = h.bloomFilterFpChance;
            CompressionParams c = compression(f);
            if (compression != null && !c.equals(compression)) {
                note(notes, err, "note: the sstables differ in compression: " + compressionFrom.path(Component.DATA) + " has "
                        + CqlPrinter.compression(compression) + ", " + f.path(Component.DATA) + " has " + CqlPrinter.compression(c)
                        + "; printed: the last one's");
            }
            // The last sstable's (a directory's come in generation order): the table's option as it was last set.
            compression = c;
            compressionFrom = f;
        }

        List<CqlType> pk;
        List<CqlType> ck = new ArrayList<>();
        boolean[] reversed = new boolean[ckTypes.length];
        List<String> staticNames = new ArrayList<>(), regularNames = new ArrayList<>();
        List<CqlType> staticTypes = new ArrayList<>(), regularTypes = new ArrayList<>();
        try {
            pk = MarshalTypes.parsePartitionKey(pkType);
            for (int i = 0; i < ckTypes.length; i++) {
                ck.add(MarshalTypes.parseClustering(ckTypes[i]));
                reversed[i] = MarshalTypes.isReversed(ckTypes[i]);
            }
            for (Column c : columns.values()) {
                CqlType t = MarshalTypes.parse(c.marshalName);
                (c.isStatic ? staticNames : regularNames).add(c.name);
                (c.isStatic ? staticTypes : regularTypes).add(t);
            }
        } catch (MarshalTypes.Refused e) {
            throw new IncompatibleSSTableException(keyFrom.path(Component.STATISTICS), "the serialization header's " + e.getMessage());
        }

        // Key columns get pk0.. and ck0.., made unique against the columns the header names.
        Set<String> taken = new HashSet<>(columns.keySet());
        List<String> pkNames = new ArrayList<>(), ckNames = new ArrayList<>();
        for (int i = 0; i < pk.size(); i++) pkNames.add(unique("pk" + i, taken));
        for (int i = 0; i < ck.size(); i++) ckNames.add(unique("ck" + i, taken));

        Names names = names(keyFrom, pk, ck, staticTypes, regularTypes);
        TableSchema t;
        try {
            t = new TableSchema(names.keyspace, names.table, names.id, pkNames, pk, ckNames, ck, reversed, staticNames, staticTypes,
                    regularNames, regularTypes, TableSchema.Compression.NONE, TableSchema.DEFAULT_CHUNK_LENGTH_BYTES,
                    Double.isNaN(bloomFp) ? TableSchema.DEFAULT_BLOOM_FILTER_FP_CHANCE : bloomFp, TableSchema.DEFAULT_MIN_INDEX_INTERVAL, 0)
                    .withCompression(compression);
        } catch (IllegalArgumentException e) {
            throw new IncompatibleSSTableException(keyFrom.path(Component.STATISTICS), "the serialization header describes no valid table: "
                    + e.getMessage());
        }
        // What dump and verify compare: the recovered columns must spell what the header spells.
        selfCheck(t, pkType, ckTypes, columns, notes, err);
        return t;
    }

    private static String keyText(String pk, String[] ck) {
        return pk + (ck.length == 0 ? "" : " clustered by " + String.join(", ", ck));
    }

    private static void add(Map<String, Column> columns, String[] names, String[] types, boolean isStatic, SSTableFiles f)
            throws UsageException {
        for (int i = 0; i < names.length; i++) {
            Column earlier = columns.get(names[i]);
            if (earlier == null) {
                columns.put(names[i], new Column(names[i], types[i], isStatic, f));
            } else if (!earlier.marshalName.equals(types[i]) || earlier.isStatic != isStatic) {
                throw new UsageException("the sstables disagree on column '" + names[i] + "': " + earlier.from.path(Component.STATISTICS)
                        + " has " + (earlier.isStatic ? "static " : "") + earlier.marshalName + ", " + f.path(Component.STATISTICS)
                        + " has " + (isStatic ? "static " : "") + types[i]);
            }
        }
    }

    private static String unique(String name, Set<String> taken) {
        String n = name;
        while (!taken.add(n)) n = n + "_";
        return n;
    }

    private record Names(String keyspace, String table, UUID id) {}

    /**
     * Keyspace, table and id: from the table directory's name, else the keyspace of a user-defined
     * type (a table can only use its own keyspace's types), else placeholders; the id from the
     * directory, else the name-based one CqlParser gives a table without one.
     */
    private static Names names(SSTableFiles f, List<CqlType> pk, List<CqlType> ck, List<CqlType> statics, List<CqlType> regulars) {
        String keyspace = null, table = null;
        UUID id = null;
        Path dir = f.dir().toAbsolutePath().normalize();
        Matcher m = dir.getFileName() == null ? null : TABLE_DIR.matcher(dir.getFileName().toString());
        if (m != null && m.matches() && dir.getParent() != null && dir.getParent().getFileName() != null
                && WORD.matcher(dir.getParent().getFileName().toString()).matches()) {
            keyspace = dir.getParent().getFileName().toString();
            table = m.group(1);
            String hex = m.group(2);
            id = new UUID(Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16));
        }
        String udtKeyspace = null;
        for (List<CqlType> ts : List.of(pk, ck, statics, regulars)) {
            for (CqlType t : ts) if (udtKeyspace == null) udtKeyspace = udtKeyspace(t);
        }
        if (udtKeyspace != null) keyspace = udtKeyspace;
        if (keyspace == null) keyspace = "unknown_keyspace";
        if (table == null) table = "unknown_table";
        if (id == null) id = UUID.nameUUIDFromBytes((keyspace + "." + table).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return new Names(keyspace, table, id);
    }

    private static String udtKeyspace(CqlType t) {
        switch (t.kind()) {
            case UDT: return t.keyspace();
            case LIST: case SET: case VECTOR: return udtKeyspace(t.elementType());
            case MAP: {
                String k = udtKeyspace(t.elementType());
                return k != null ? k : udtKeyspace(t.valueType());
            }
            case TUPLE:
                for (int i = 0; i < t.size(); i++) {
                    String k = udtKeyspace(t.component(i));
                    if (k != null) return k;
                }
                return null;
            default: return null;
        }
    }

    /** Says on stderr where the printed schema would spell a type otherwise than the header does (dump would refuse it). */
    private static void selfCheck(TableSchema t, String pkType, String[] ckTypes, Map<String, Column> columns, List<String> notes,
                                  PrintStream err) {
        List<String> differ = new ArrayList<>();
        if (!t.partitionKeyMarshalName().equals(pkType)) differ.add("partition key " + pkType + " as " + t.partitionKeyMarshalName());
        for (int i = 0; i < ckTypes.length; i++) {
            ColumnMetadata c = t.clusteringColumns()[i];
            if (!c.marshalName().equals(ckTypes[i])) differ.add(c.name() + " " + ckTypes[i] + " as " + c.marshalName());
        }
        for (Column col : columns.values()) {
            ColumnMetadata c = t.column(col.name);
            if (!c.marshalName().equals(col.marshalName)) differ.add(col.name + " " + col.marshalName + " as " + c.marshalName());
        }
        for (String d : differ) {
            note(notes, err, "note: the header spells " + d + " in the printed schema; dump and verify compare the"
                    + " spellings and would refuse these sstables with it");
        }
    }
}
