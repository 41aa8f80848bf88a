package dev.flushline.schema;

import org.apache.cassandra.cql3.CQLFragmentParser;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Keyspaces;
import org.apache.cassandra.schema.TableMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random valid CREATE TABLE statements, which both we and cassandra-all 5.0.9's
 * CreateTableStatement accept with the same columns; and mutations of them (token drops and
 * duplications, random characters, unbalanced brackets, very long identifiers, deep nesting),
 * which either parse or are refused with a {@link SchemaException} naming a line and column
 * inside the statement. Nothing else may escape (no StackOverflowError, no runtime exception).
 * Bounded by count; a failure names its seed.
 */
class CqlParserFuzzTest {

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static final String[] NATIVE = {"ascii", "bigint", "blob", "boolean", "date", "decimal", "double", "float", "inet", "int",
            "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint", "varchar"};

    static String nativeType(Random r) {
        String t = NATIVE[r.nextInt(NATIVE.length)];
        return r.nextInt(5) == 0 ? t.toUpperCase(Locale.ROOT) : t;
    }

    /** The user-defined types of the schema being generated. */
    static final class Udts {
        final List<String> names = new ArrayList<>();
        /** Per type: whether a field is a non-frozen collection (no non-frozen column of it then). */
        final List<Boolean> multiCellField = new ArrayList<>();
        /** Types that hold a duration somewhere (no primary key may use them). */
        final List<String> withDuration = new ArrayList<>();
        final List<String> statements = new ArrayList<>();

        boolean holdsDuration(String type) {
            if (type.contains("duration")) return true;
            for (String d : withDuration) {
                if (type.contains("<" + d + ">") || type.contains("<" + d + ",") || type.contains(" " + d + ">") || type.contains(" " + d + ",")) {
                    return true;
                }
            }
            return false;
        }
    }

    /** A type that may sit inside another (frozen where it must be), up to {@code depth} more levels. */
    static String innerType(Random r, Udts u, int depth, boolean keyPosition) {
        if (depth <= 0) return nativeType(r);
        switch (r.nextInt(9)) {
            case 0: return "frozen<" + collection(r, u, depth - 1) + ">";
            case 1: return "tuple<" + innerType(r, u, depth - 1, false) + (r.nextBoolean() ? ", " + innerType(r, u, depth - 1, false) : "") + ">";
            case 2: return "vector<" + (r.nextBoolean() ? nativeType(r) : innerType(r, u, depth - 1, false)) + ", " + (1 + r.nextInt(5)) + ">";
            case 3: if (!u.names.isEmpty()) return "frozen<" + u.names.get(r.nextInt(u.names.size())) + ">";
                return nativeType(r);
            case 4: if (!keyPosition) return "duration";
                return nativeType(r);
            default: return nativeType(r);
        }
    }

    static String collection(Random r, Udts u, int depth) {
        switch (r.nextInt(3)) {
            case 0: return "list<" + innerType(r, u, depth, false) + ">";
            case 1: return "set<" + innerType(r, u, depth, true) + ">";
            default: return "map<" + innerType(r, u, depth, true) + ", " + innerType(r, u, depth, false) + ">";
        }
    }

    static String keyType(Random r, Udts u) {
        while (true) {
            int x = r.nextInt(6);
            String t = x == 0 ? "frozen<" + collection(r, u, 1) + ">" : x == 1 ? innerType(r, u, 2, true) : nativeType(r);
            if (!u.holdsDuration(t)) return t; // a duration may not be part of the primary key, however deep
        }
    }

    static String anyType(Random r, Udts u) {
        int x = r.nextInt(8);
        if (x == 0) return collection(r, u, 1);
        if (x == 1) return "frozen<" + collection(r, u, 1) + ">";
        if (x == 2) return innerType(r, u, 2, false);
        if (x == 3 && !u.names.isEmpty()) {
            int k = r.nextInt(u.names.size());
            // a non-frozen UDT column may not hold a non-frozen collection
            return u.multiCellField.get(k) || r.nextBoolean() ? "frozen<" + u.names.get(k) + ">" : u.names.get(k);
        }
        return nativeType(r);
    }

    /** CREATE TYPE statements in keyspace ks, each using only the types before it. */
    static Udts types(Random r, String ks) {
        Udts u = new Udts();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            String name = r.nextInt(5) == 0 ? "\"Ty" + i + "\"" : "ty" + i;
            int fields = 1 + r.nextInt(4);
            boolean multiCell = false;
            StringBuilder sb = new StringBuilder("CREATE TYPE " + (r.nextInt(4) == 0 ? "IF NOT EXISTS " : "") + ks + "." + name + " (");
            for (int f = 0; f < fields; f++) {
                String type;
                if (r.nextInt(5) == 0) {
                    type = collection(r, u, 1);
                    multiCell = true;
                } else {
                    type = innerType(r, u, 2, false);
                }
                sb.append(f == 0 ? "" : ",").append(space(r)).append(r.nextInt(5) == 0 ? "\"F" + f + "\"" : "f" + f).append(' ').append(type);
            }
            String statement = sb.append(')').toString();
            u.statements.add(statement);
            if (u.holdsDuration(statement.substring(statement.indexOf('(')))) u.withDuration.add(name);
            u.names.add(name);
            u.multiCellField.add(multiCell);
        }
        return u;
    }

    /** A name no CQL keyword can be: unquoted c_..., or quoted with capitals and a doubled quote. */
    static String name(Random r, int i, List<String> resolved) {
        if (r.nextInt(6) == 0) {
            String raw = "Col" + i + (r.nextBoolean() ? "" : "\"\"q");
            resolved.add(raw.replace("\"\"", "\""));
            return "\"" + raw + "\"";
        }
        String n = "c_" + i + Integer.toString(r.nextInt(1000), 36);
        resolved.add(n);
        return r.nextInt(4) == 0 ? n.toUpperCase(Locale.ROOT) : n;
    }

    static String space(Random r) {
        switch (r.nextInt(8)) {
            case 0: return "\n  ";
            case 1: return " -- note\n";
            case 2: return " /* x */ ";
            case 3: return "\t";
            default: return " ";
        }
    }

    /**
     * A schema file as DESCRIBE prints one: now and then a CREATE KEYSPACE, then CREATE TYPEs,
     * the CREATE TABLE using them, and now and then an index or a function after it; statements
     * separated by ";" and a line end.
     */
    static String validStatement(Random r) {
        String ks = "ks" + r.nextInt(100);
        Udts u = r.nextInt(3) == 0 ? new Udts() : types(r, ks);
        List<String> statements = new ArrayList<>();
        if (r.nextInt(4) == 0) {
            statements.add("CREATE KEYSPACE " + (r.nextBoolean() ? "IF NOT EXISTS " : "") + ks
                    + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'} AND durable_writes = true");
        }
        statements.addAll(u.statements);
        StringBuilder sb = new StringBuilder("CREATE TABLE ");
        if (r.nextInt(4) == 0) sb.append("IF NOT EXISTS ");
        sb.append(ks).append('.').append("t_").append(r.nextInt(1000)).append(" (");
        boolean counters = r.nextInt(12) == 0;
        int pk = 1 + r.nextInt(3), ck = r.nextInt(4), regular = r.nextInt(8) + (counters ? 1 : 0), statics = ck == 0 ? 0 : r.nextInt(3);
        List<String> names = new ArrayList<>(), resolved = new ArrayList<>();
        List<String> defs = new ArrayList<>();
        int i = 0;
        for (int k = 0; k < pk + ck; k++, i++) {
            String n = name(r, i, resolved);
            names.add(n);
            defs.add(n + " " + keyType(r, u));
        }
        for (int k = 0; k < regular; k++, i++) defs.add(name(r, i, resolved) + " " + (counters ? "counter" : anyType(r, u)));
        for (int k = 0; k < statics; k++, i++) {
            defs.add(name(r, i, resolved) + " " + (counters ? "counter" : anyType(r, u)) + (r.nextBoolean() ? " STATIC" : " static"));
        }
        boolean inline = pk == 1 && ck == 0 && r.nextBoolean();
        if (inline) defs.set(0, defs.get(0) + " PRIMARY KEY");
        // shuffle the column order: the PRIMARY KEY clause decides the roles
        for (int k = defs.size() - 1; k > 0; k--) {
            int j = r.nextInt(k + 1);
            String t = defs.get(k);
            defs.set(k, defs.get(j));
            defs.set(j, t);
        }
        for (int k = 0; k < defs.size(); k++) sb.append(k == 0 ? "" : ",").append(space(r)).append(defs.get(k));
        if (!inline) {
            sb.append(",").append(space(r)).append("PRIMARY KEY (");
            if (pk > 1 || r.nextBoolean()) sb.append('(').append(String.join(", ", names.subList(0, pk))).append(')');
            else sb.append(names.get(0));
            for (int k = 0; k < ck; k++) sb.append(", ").append(names.get(pk + k));
            sb.append(')');
        }
        sb.append(')');
        List<String> options = new ArrayList<>();
        if (ck > 0 && r.nextBoolean()) {
            int n = 1 + r.nextInt(ck);
            StringBuilder order = new StringBuilder("CLUSTERING ORDER BY (");
            for (int k = 0; k < n; k++) order.append(k == 0 ? "" : ", ").append(names.get(pk + k)).append(r.nextBoolean() ? " ASC" : " DESC");
            options.add(order.append(')').toString());
        }
        if (r.nextBoolean()) {
            String[] comp = {"{'class': 'LZ4Compressor', 'chunk_length_in_kb': " + (1 << r.nextInt(8)) + "}", "{'enabled': 'false'}", "{}",
                    "{'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}",
                    "{'class': 'ZstdCompressor', 'compression_level': " + (r.nextInt(28) - 5) + "}",
                    "{'class': 'SnappyCompressor', 'min_compress_ratio': " + (1 + r.nextInt(3)) + ".5}",
                    "{'class': 'DeflateCompressor', 'chunk_length_in_kb': " + (1 << r.nextInt(8)) + "}",
                    "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'high', 'lz4_high_compressor_level': " + (1 + r.nextInt(17)) + "}"};
            options.add("compression = " + comp[r.nextInt(comp.length)]);
        }
        if (r.nextInt(3) == 0) options.add("comment = 'it''s " + r.nextInt() + "'");
        if (r.nextInt(3) == 0) options.add("gc_grace_seconds = " + r.nextInt(1_000_000));
        if (r.nextInt(3) == 0) options.add("bloom_filter_fp_chance = 0.0" + (1 + r.nextInt(9)));
        if (!counters && r.nextInt(3) == 0) options.add("default_time_to_live = " + r.nextInt(1_000_000));
        int minInterval = 128;
        if (r.nextInt(3) == 0) options.add("min_index_interval = " + (minInterval = 1 + r.nextInt(2048)));
        if (r.nextInt(3) == 0) options.add("max_index_interval = " + (minInterval + r.nextInt(4096)));
        if (r.nextInt(4) == 0) options.add("id = " + new UUID(r.nextLong(), r.nextLong()));
        if (r.nextInt(4) == 0) options.add("compaction = {'class': '" + (r.nextBoolean() ? "LeveledCompactionStrategy" : "SizeTieredCompactionStrategy") + "'}");
        if (r.nextInt(4) == 0) options.add("caching = {'keys': 'ALL', 'rows_per_partition': '" + (r.nextBoolean() ? "NONE" : "10") + "'}");
        // the rest of what DESCRIBE prints
        String[] more = {"additional_write_policy = '99p'", "allow_auto_snapshot = true", "cdc = false", "crc_check_chance = 1.0",
                "extensions = {}", "incremental_backups = true", "memtable = 'default'", "memtable_flush_period_in_ms = 0",
                "read_repair = 'BLOCKING'", "speculative_retry = '99p'", "read_repair = 'NONE'", "speculative_retry = 'ALWAYS'",
                "extensions = {'x': 0x0102}", "allow_auto_snapshot = 'no'", "crc_check_chance = 0.5",
                "speculative_retry = 'MIN(99p,50ms)'", "additional_write_policy = 'NEVER'"};
        for (String o : more) {
            String key = o.substring(0, o.indexOf(' '));
            boolean dup = false;
            for (String x : options) dup |= x.startsWith(key + " ");
            if (!dup && r.nextInt(5) == 0) options.add(o);
        }
        for (int k = 0; k < options.size(); k++) sb.append(k == 0 ? " WITH " : space(r) + "AND ").append(options.get(k));
        statements.add(sb.toString());
        if (r.nextInt(5) == 0) statements.add("CREATE INDEX IF NOT EXISTS ix ON " + ks + ".t_0 (v)");
        if (r.nextInt(8) == 0) {
            statements.add("CREATE FUNCTION " + ks + ".f(x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS $$ return x; $$");
        }
        String text = String.join(";\n", statements);
        if (r.nextBoolean()) text += ';';
        return text;
    }

    // ---- mutation -------------------------------------------------------------------------------

    static final Pattern TOKEN = Pattern.compile("\"(?:[^\"]|\"\")*\"|'(?:[^']|'')*'|\\w+|\\s+|.", Pattern.DOTALL);
    static final String[] INSERTS = {"(", ")", "<", ">", ",", ";", "'", "\"", "frozen<", "list<", "map<int,", "PRIMARY KEY",
            "static", "--", "/*", "*/", "$$", "\u0000", "\u00e9", "\uD800", "\n", "WITH", "AND", "=", "{", "}", ":", ".",
            "1e999999999", "-1", "0x", "counter", "tuple<int>", "duration", "vector<float, 3>", "CREATE", "CREATE TYPE ks.u (a int);", "frozen<ty0>", "ty1", "vector<", "tuple<", ", 0>", "USE ks;", "CREATE INDEX i ON ks.t (v);", "\"\"", "''",
            "\"../x\"", "\"a/b\""};

    static String mutate(Random r, String statement) {
        List<String> tokens = new ArrayList<>();
        Matcher m = TOKEN.matcher(statement);
        while (m.find()) tokens.add(m.group());
        int rounds = 1 + r.nextInt(3);
        for (int k = 0; k < rounds; k++) {
            int at = r.nextInt(tokens.size() + 1);
            int some = tokens.isEmpty() ? -1 : r.nextInt(tokens.size());
            switch (r.nextInt(9)) {
                case 0: if (some >= 0) tokens.remove(some); break;
                case 1: if (some >= 0) tokens.add(at, tokens.get(some)); break;
                case 2: tokens.add(at, INSERTS[r.nextInt(INSERTS.length)]); break;
                case 3: { // random characters
                    StringBuilder sb = new StringBuilder();
                    int n = 1 + r.nextInt(4);
                    for (int c = 0; c < n; c++) sb.append((char) (r.nextBoolean() ? 32 + r.nextInt(95) : r.nextInt(0x3000)));
                    tokens.add(at, sb.toString());
                    break;
                }
                case 4: { // a very long identifier, quoted or not
                    int n = r.nextInt(8) == 0 ? 100_000 : 300;
                    if (some >= 0) tokens.set(some, r.nextBoolean() ? "x".repeat(n) : "\"" + "Y".repeat(n) + "\"");
                }
                    break;
                case 5: { // deep nesting
                    String[] open = {"frozen<", "list<", "(", "<", "map<int, ", "frozen<list<frozen<"};
                    String o = open[r.nextInt(open.length)];
                    tokens.add(at, o.repeat(r.nextInt(8) == 0 ? 100_000 : 50)); // the 100k case costs 0.1 s: keep it rare
                    break;
                }
                case 6: if (some >= 0 && some + 1 < tokens.size()) { // swap neighbours
                    String t = tokens.get(some);
                    tokens.set(some, tokens.get(some + 1));
                    tokens.set(some + 1, t);
                }
                break;
                case 7: if (some >= 0) tokens.subList(some, tokens.size()).clear(); break; // truncate
                default: if (some >= 0) tokens.set(some, tokens.get(some).toUpperCase(Locale.ROOT)); break;
            }
        }
        return String.join("", tokens);
    }

    // ---- checks -------------------------------------------------------------------------------

    static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+): .+", Pattern.DOTALL);

    /** Parses; a refusal must be a SchemaException naming a line and column inside the statement. Returns null then. */
    static TableSchema parseOrRefuse(String cql, String info) {
        try {
            return CqlParser.parse(cql);
        } catch (SchemaException e) {
            String msg = e.getMessage();
            Matcher m = POSITION.matcher(msg);
            assertTrue(m.matches(), info + ": no position in " + shorten(msg));
            int line = Integer.parseInt(m.group(1)), column = Integer.parseInt(m.group(2));
            String[] lines = cql.split("\n", -1);
            assertTrue(line >= 1 && line <= lines.length, info + ": line " + line + " of " + lines.length + ": " + shorten(msg));
            assertTrue(column >= 1 && column <= lines[line - 1].length() + 1,
                    info + ": column " + column + " of a " + lines[line - 1].length() + "-char line: " + shorten(msg));
            assertTrue(msg.length() < 2000, info + ": a message of " + msg.length() + " chars: " + shorten(msg));
            return null;
        } catch (Throwable t) {
            throw new AssertionError(info + ": internal error " + t + " on " + shorten(cql), t);
        }
    }

    static String shorten(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "... (" + s.length() + " chars)" : s;
    }

    /**
     * Cassandra accepts the schema too: its CREATE TYPE statements (applied one after the other
     * by Cassandra, as a node applies them) and CREATE TABLE, with the same keyspace, name,
     * columns (in order) and types, and the same options that change the bytes.
     */
    static void sameAsCassandra(String cql, TableSchema ours, String info) {
        TableMetadata theirs;
        try {
            // (the Types.RawBuilder route would lose the quotes of a quoted type name used in a field)
            Keyspaces schema = Keyspaces.of(KeyspaceMetadata.create(ours.keyspace(), KeyspaceParams.simple(1)));
            String table = null;
            for (String st : statements(cql)) {
                String head = st.replaceFirst("^(\\s|--[^\n]*(\n|$)|//[^\n]*(\n|$)|/\\*(?s:.*?)\\*/)*", "").toLowerCase(Locale.ROOT);
                // Cassandra's lexer needs a line end after a -- comment; cqlsh and files have one.
                if (head.matches("(?s)create\\s+type\\b.*")) {
                    org.apache.cassandra.cql3.statements.schema.CreateTypeStatement stmt =
                            CQLFragmentParser.parseAny(org.apache.cassandra.cql3.CqlParser::createTypeStatement, st + "\n", "CREATE TYPE")
                                             .prepare(null);
                    if (schema.getNullable(stmt.keyspace()) == null) { // a type of another keyspace: that keyspace exists too
                        schema = schema.withAddedOrUpdated(KeyspaceMetadata.create(stmt.keyspace(), KeyspaceParams.simple(1)));
                    }
                    schema = stmt.apply(schema);
                } else if (head.matches("(?s)create\\s+(table|columnfamily)\\b.*")) {
                    table = st;
                }
            }
            assertTrue(table != null, info + ": no table statement found in " + shorten(cql));
            theirs = CQLFragmentParser.parseAny(org.apache.cassandra.cql3.CqlParser::createTableStatement, table + "\n", "CREATE TABLE")
                                      .keyspace(ours.keyspace()).prepare(null).builder(schema.getNullable(ours.keyspace()).types).build();
            theirs.validate();
        } catch (RuntimeException e) {
            String why = e.getMessage() == null ? "" : e.getMessage();
            // Documented: the compaction strategy's options and the memtable configuration name are
            // accepted and ignored (they do not change a flushed sstable, and the memtable names
            // depend on the node's cassandra.yaml); Cassandra checks them.
            if (why.contains("compaction") || why.toLowerCase(Locale.ROOT).contains("memtable")) return;
            throw new AssertionError(info + ": we accept what Cassandra refuses (" + shorten(e.toString()) + "): " + shorten(cql), e);
        }
        assertEquals(theirs.keyspace, ours.keyspace(), info);
        assertEquals(theirs.name, ours.name(), info);
        assertEquals(describe(theirs.partitionKeyColumns()), describe(ours.partitionKeyColumns()), info + ": " + cql);
        assertEquals(describe(theirs.clusteringColumns()), describe(ours.clusteringColumns()), info + ": " + cql);
        assertEquals(describe(theirs.staticColumns()), describe(ours.staticColumns()), info + ": " + cql);
        assertEquals(describe(theirs.regularColumns()), describe(ours.regularColumns()), info + ": " + cql);
        assertEquals(theirs.params.bloomFilterFpChance, ours.bloomFilterFpChance(), info + ": " + cql);
        assertEquals(theirs.params.defaultTimeToLive, ours.defaultTimeToLiveSeconds(), info + ": " + cql);
        assertEquals(theirs.params.minIndexInterval, ours.minIndexInterval(), info + ": " + cql);
        assertEquals(theirs.params.maxIndexInterval, ours.maxIndexInterval(), info + ": " + cql);
        CqlParserTest.assertSameCompression(theirs.params.compression, ours.compressionParams(), info + ": " + cql);
        assertEquals(theirs.isCounter(), ours.isCounterTable(), info + ": " + cql);
    }

    /** The statements of a schema file, split at the ';' that end them (found with our lexer, so quotes and comments are respected). */
    static List<String> statements(String cql) {
        int[] lineStarts = new int[cql.split("\n", -1).length];
        for (int i = 0, l = 1; i < cql.length(); i++) if (cql.charAt(i) == '\n') lineStarts[l++] = i + 1;
        List<String> out = new ArrayList<>();
        int from = 0, depth = 0;
        for (CqlParser.Token t : new CqlParser.Lexer(cql).tokens()) {
            if (t.isSymbol("(") || t.isSymbol("{") || t.isSymbol("[")) depth++;
            if (t.isSymbol(")") || t.isSymbol("}") || t.isSymbol("]")) depth--;
            if (depth == 0 && (t.isSymbol(";") || t.type == CqlParser.T.EOF)) {
                int at = t.type == CqlParser.T.EOF ? cql.length() : lineStarts[t.line - 1] + t.column - 1;
                if (!cql.substring(from, at).isBlank()) out.add(cql.substring(from, at));
                from = Math.min(cql.length(), at + 1);
            }
        }
        return out;
    }

    static List<String> describe(Iterable<org.apache.cassandra.schema.ColumnMetadata> cs) {
        List<String> out = new ArrayList<>();
        for (org.apache.cassandra.schema.ColumnMetadata c : cs) out.add(c.name + " " + c.type);
        return out;
    }

    static List<String> describe(ColumnMetadata[] cs) {
        List<String> out = new ArrayList<>();
        for (ColumnMetadata c : cs) out.add(c.name() + " " + c.marshalName());
        return out;
    }

    // ---- tests -------------------------------------------------------------------------------------

    @Test
    void validStatementsParseAsCassandraParsesThem() {
        for (int seed = 0; seed < 600; seed++) {
            String cql = validStatement(new Random(seed));
            String info = "seed " + seed;
            TableSchema ours = parseOrRefuse(cql, info);
            if (ours == null) {
                try {
                    CqlParser.parse(cql);
                } catch (SchemaException e) {
                    throw new AssertionError(info + ": a valid statement was refused: " + e.getMessage() + "\n" + cql);
                }
            }
            sameAsCassandra(cql, ours, info);
        }
    }

    @Test
    void mutatedStatementsParseOrNameLineAndColumn() {
        int refused = 0, accepted = 0;
        List<String> disagreements = new ArrayList<>();
        for (int seed = 0; seed < 3000; seed++) {
            Random r = new Random(100_000 + seed);
            String cql = mutate(r, validStatement(r));
            String info = "seed " + (100_000 + seed);
            TableSchema ours = parseOrRefuse(cql, info);
            if (ours == null) {
                refused++;
            } else {
                accepted++;
                try {
                    sameAsCassandra(cql, ours, info);
                } catch (AssertionError e) {
                    disagreements.add(e.getMessage());
                }
            }
        }
        if (!disagreements.isEmpty()) throw new AssertionError(disagreements.size() + " disagreements:\n" + shorten(String.join("\n", disagreements)));
        assertTrue(refused > 1000 && accepted > 100, refused + " refused, " + accepted + " accepted");
    }

    @Test
    void deepNestingAndLongNamesAreRefusedWithAPosition() {
        String deep = "frozen<".repeat(100_000);
        String[] statements = {
                "CREATE TABLE ks.t (k int PRIMARY KEY, v " + deep + "list<int>" + ">".repeat(100_000) + ")",
                "CREATE TABLE ks.t (k int PRIMARY KEY, v " + deep + ")",
                "CREATE TABLE ks.t (k int PRIMARY KEY, v " + "frozen<list<".repeat(100_000) + ")",
                "CREATE TABLE ks.t (k int PRIMARY KEY, v " + "list<".repeat(100_000) + ")",
                "CREATE TABLE ks.t " + "(".repeat(100_000),
                "CREATE TABLE ks.t (k int, PRIMARY KEY " + "(".repeat(100_000) + "k" + ")".repeat(100_000) + ")",
                "CREATE TABLE ks.t (" + "x".repeat(100_000) + " int PRIMARY KEY, " + "x".repeat(100_000) + " int)",
                "CREATE TABLE ks.t (k int PRIMARY KEY, v " + "x".repeat(100_000) + ")",
                "CREATE TABLE ks.t (k int PRIMARY KEY) WITH " + "x".repeat(100_000) + " = 1",
        };
        for (int i = 0; i < statements.length; i++) {
            assertEquals(null, parseOrRefuse(statements[i], "statement " + i), "statement " + i);
        }
    }
}
