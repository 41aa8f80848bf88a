package dev.flushline.schema;

import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
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

    static String collection(Random r, boolean frozen) {
        String body;
        switch (r.nextInt(3)) {
            case 0: body = "list<" + nativeType(r) + ">"; break;
            case 1: body = "set<" + nativeType(r) + ">"; break;
            default: body = "map<" + nativeType(r) + ", " + nativeType(r) + ">"; break;
        }
        return frozen ? "frozen<" + body + ">" : body;
    }

    static String keyType(Random r) {
        return r.nextInt(5) == 0 ? collection(r, true) : nativeType(r);
    }

    static String anyType(Random r) {
        int x = r.nextInt(6);
        return x == 0 ? collection(r, false) : x == 1 ? collection(r, true) : nativeType(r);
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

    static String validStatement(Random r) {
        StringBuilder sb = new StringBuilder("CREATE TABLE ");
        if (r.nextInt(4) == 0) sb.append("IF NOT EXISTS ");
        sb.append("ks").append(r.nextInt(100)).append('.').append("t_").append(r.nextInt(1000)).append(" (");
        int pk = 1 + r.nextInt(3), ck = r.nextInt(4), regular = r.nextInt(8), statics = ck == 0 ? 0 : r.nextInt(3);
        List<String> names = new ArrayList<>(), resolved = new ArrayList<>();
        List<String> defs = new ArrayList<>();
        int i = 0;
        for (int k = 0; k < pk + ck; k++, i++) {
            String n = name(r, i, resolved);
            names.add(n);
            defs.add(n + " " + keyType(r));
        }
        for (int k = 0; k < regular; k++, i++) defs.add(name(r, i, resolved) + " " + anyType(r));
        for (int k = 0; k < statics; k++, i++) defs.add(name(r, i, resolved) + " " + anyType(r) + (r.nextBoolean() ? " STATIC" : " static"));
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
        if (r.nextInt(3) == 0) options.add("default_time_to_live = " + r.nextInt(1_000_000));
        if (r.nextInt(3) == 0) options.add("min_index_interval = " + (1 + r.nextInt(2048)));
        if (r.nextInt(4) == 0) options.add("id = " + new UUID(r.nextLong(), r.nextLong()));
        if (r.nextInt(4) == 0) options.add("compaction = {'class': '" + (r.nextBoolean() ? "LeveledCompactionStrategy" : "SizeTieredCompactionStrategy") + "'}");
        if (r.nextInt(4) == 0) options.add("caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}");
        for (int k = 0; k < options.size(); k++) sb.append(k == 0 ? " WITH " : space(r) + "AND ").append(options.get(k));
        if (r.nextBoolean()) sb.append(';');
        return sb.toString();
    }

    // ---- mutation -------------------------------------------------------------------------------

    static final Pattern TOKEN = Pattern.compile("\"(?:[^\"]|\"\")*\"|'(?:[^']|'')*'|\\w+|\\s+|.", Pattern.DOTALL);
    static final String[] INSERTS = {"(", ")", "<", ">", ",", ";", "'", "\"", "frozen<", "list<", "map<int,", "PRIMARY KEY",
            "static", "--", "/*", "*/", "$$", "\u0000", "\u00e9", "\uD800", "\n", "WITH", "AND", "=", "{", "}", ":", ".",
            "1e999999999", "-1", "0x", "counter", "tuple<int>", "duration", "vector<float, 3>", "CREATE", "\"\"", "''",
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

    /** Cassandra accepts the statement too, with the same keyspace, name, columns (in order) and types. */
    static void sameAsCassandra(String cql, TableSchema ours, String info) {
        TableMetadata theirs;
        try {
            // Cassandra's lexer needs a line end after a -- comment; cqlsh and files have one.
            theirs = CreateTableStatement.parse(cql + "\n", ours.keyspace()).build();
            theirs.validate();
        } catch (RuntimeException e) {
            String why = e.getMessage() == null ? "" : e.getMessage();
            // Documented: the values of compaction and caching are accepted and ignored (they do not
            // change a flushed sstable); Cassandra checks them.
            if (why.contains("compaction") || why.contains("caching")) return;
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
        CqlParserTest.assertSameCompression(theirs.params.compression, ours.compressionParams(), info + ": " + cql);
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
