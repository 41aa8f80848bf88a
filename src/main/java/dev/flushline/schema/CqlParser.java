package dev.flushline.schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Parses one CQL {@code CREATE TABLE} statement into a {@link TableSchema}.
 *
 * <p>Accepted: {@code CREATE TABLE [IF NOT EXISTS] ks.t (...) [WITH ...] [;]} with columns
 * {@code name type [STATIC] [PRIMARY KEY]} and a {@code PRIMARY KEY (pk, c...)} or
 * {@code PRIMARY KEY ((p1, p2), c...)} clause; the native types of {@link CqlType.Kind} and
 * list/set/map of them, frozen or not. Identifiers follow CQL: unquoted ones are lowercased,
 * "quoted" ones keep their case ({@code ""} escapes a quote). Comments ({@code --}, {@code //},
 * {@code /* *}{@code /}) are skipped. Everything else is refused with a {@link SchemaException}
 * whose message starts with {@code line L, column C:} (1-based, of the refused construct).
 *
 * <p>Table options, as Cassandra 5.0 knows them:
 * <ul>
 *   <li>{@code compression}: every map Cassandra 5.0.9 accepts, read with its rules
 *       ({@link CompressionParams#fromCqlMap}): {@code class} (LZ4Compressor, ZstdCompressor,
 *       SnappyCompressor, DeflateCompressor or NoopCompressor, with or without its package),
 *       {@code chunk_length_in_kb}, {@code min_compress_ratio}, {@code enabled}, and the codec's own
 *       options ({@code lz4_compressor_type}, {@code lz4_high_compressor_level},
 *       {@code compression_level}); {@code {'enabled': false}} or {@code {}} is none. Absent means
 *       LZ4 with 16 KiB chunks, the 5.0 table default. What Cassandra refuses is refused.
 *   <li>{@code id}: the table id (it names the table folder). Without it the id is
 *       {@code UUID.nameUUIDFromBytes("ks.t" as UTF-8)}, a name-based (version 3) UUID, so that
 *       repeated runs write into the same folder. Cassandra would pick a random id instead.
 *   <li>{@code bloom_filter_fp_chance}, {@code min_index_interval}, {@code default_time_to_live}:
 *       kept in the schema, since they change what a flush writes. The bloom filter default
 *       follows {@code compaction}: 0.1 for LeveledCompactionStrategy, else 0.01, as in Cassandra.
 *   <li>{@code gc_grace_seconds} (default 864000) and the {@code compaction} sub-option
 *       {@code only_purge_repaired_tombstones}: kept in the schema, since they decide what compaction
 *       may purge.
 *   <li>Accepted and ignored, as they do not change a flushed sstable: {@code comment},
 *       {@code caching}, {@code compaction} (but see above),
 *       {@code memtable_flush_period_in_ms}, {@code max_index_interval},
 *       {@code speculative_retry}, {@code additional_write_policy}, {@code crc_check_chance},
 *       {@code cdc}, {@code read_repair}, {@code extensions}, {@code allow_auto_snapshot},
 *       {@code incremental_backups}, {@code memtable}.
 *   <li>Refused: {@code COMPACT STORAGE}, unknown options, an option given twice.
 * </ul>
 * Keyspace and table names name directories, so they are word characters only (ASCII letters,
 * digits, '_'), as Cassandra requires: a keyspace name up to 48 of them, a table name up to 222,
 * so that the table folder {@code <table>-<id>} fits a 255-byte file name. Names and literals
 * repeated in a message are cut to {@value #MAX_SHOWN_CHARS} chars.
 *
 * <p>Thread safety: stateless; each call parses with its own state.
 */
public final class CqlParser {
    private CqlParser() {}

    /** @throws SchemaException naming the construct and its position (line, column) in the statement. */
    public static TableSchema parse(String cql) {
        return new Parser(new Lexer(cql).tokens()).parseCreateTable();
    }

    // ---------------------------------------------------------------------------------------
    // Lexer

    enum T { IDENT, QUOTED, STRING, NUMBER, UUID, SYMBOL, EOF }

    static final class Token {
        final T type;
        /** Identifier as CQL resolves it (lowercased unless quoted); literal text; the symbol. */
        final String text;
        final int line;
        final int column;

        Token(T type, String text, int line, int column) {
            this.type = type;
            this.text = text;
            this.line = line;
            this.column = column;
        }

        boolean isKeyword(String kw) {
            return type == T.IDENT && text.equals(kw);
        }

        boolean isSymbol(String s) {
            return type == T.SYMBOL && text.equals(s);
        }

        String describe() {
            switch (type) {
                case EOF: return "end of statement";
                case QUOTED: return "\"" + shown(text) + "\"";
                case STRING: return "'" + shown(text) + "'";
                default: return "'" + shown(text) + "'";
            }
        }
    }

    /** Longest keyspace name, as Cassandra's. */
    static final int MAX_KEYSPACE_NAME_LENGTH = 48;
    /**
     * Longest table name: Cassandra sets no limit, but the table folder {@code <table>-<32 hex id>}
     * must fit a file name of 255 bytes.
     */
    static final int MAX_TABLE_NAME_LENGTH = 255 - 33;

    /** Longest name or literal repeated in a message, in chars, before it is cut: a 100 KB identifier must not flood it. */
    static final int MAX_SHOWN_CHARS = 80;

    static String shown(String s) {
        return s.length() <= MAX_SHOWN_CHARS ? s : s.substring(0, MAX_SHOWN_CHARS) + "... (" + s.length() + " chars)";
    }

    static SchemaException error(int line, int column, String message) {
        return new SchemaException("line " + line + ", column " + column + ": " + message);
    }

    static SchemaException error(Token at, String message) {
        return error(at.line, at.column, message);
    }

    static final class Lexer {
        private final String s;
        private int pos;
        private int line = 1;
        private int lineStart;

        Lexer(String s) {
            this.s = s;
        }

        List<Token> tokens() {
            List<Token> out = new ArrayList<>();
            while (true) {
                skipSpaceAndComments();
                int col = pos - lineStart + 1;
                if (pos >= s.length()) {
                    out.add(new Token(T.EOF, "", line, col));
                    return out;
                }
                char c = s.charAt(pos);
                int startLine = line;
                if (uuidAhead()) {
                    out.add(new Token(T.UUID, s.substring(pos, pos + 36), line, col));
                    pos += 36;
                } else if (isLetter(c)) {
                    int start = pos;
                    while (pos < s.length() && (isLetter(s.charAt(pos)) || isDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
                    out.add(new Token(T.IDENT, s.substring(start, pos).toLowerCase(Locale.ROOT), line, col));
                } else if (c == '"') {
                    out.add(new Token(T.QUOTED, quoted('"', startLine, col), startLine, col));
                } else if (c == '\'') {
                    out.add(new Token(T.STRING, quoted('\'', startLine, col), startLine, col));
                } else if (c == '$' && s.startsWith("$$", pos)) {
                    int end = s.indexOf("$$", pos + 2);
                    if (end < 0) throw error(startLine, col, "unterminated $$ string");
                    String body = s.substring(pos + 2, end);
                    advanceTo(end + 2);
                    out.add(new Token(T.STRING, body, startLine, col));
                } else if (isDigit(c) || ((c == '-' || c == '+') && pos + 1 < s.length() && isDigit(s.charAt(pos + 1)))) {
                    int start = pos;
                    pos++;
                    while (pos < s.length() && (isDigit(s.charAt(pos)) || s.charAt(pos) == '.'
                            || s.charAt(pos) == 'e' || s.charAt(pos) == 'E'
                            || ((s.charAt(pos) == '-' || s.charAt(pos) == '+')
                                && (s.charAt(pos - 1) == 'e' || s.charAt(pos - 1) == 'E')))) pos++;
                    out.add(new Token(T.NUMBER, s.substring(start, pos), line, col));
                } else {
                    // every other character is a symbol token; the parser refuses it where it
                    // stands, so that a refused statement is named before its odd characters are
                    out.add(new Token(T.SYMBOL, String.valueOf(c), line, col));
                    pos++;
                }
            }
        }

        private boolean uuidAhead() {
            if (pos + 36 > s.length()) return false;
            for (int i = 0; i < 36; i++) {
                char c = s.charAt(pos + i);
                boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
                boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
                if (dash ? c != '-' : !hex) return false;
            }
            return pos + 36 == s.length() || !(isLetter(s.charAt(pos + 36)) || isDigit(s.charAt(pos + 36)));
        }

        /** A quoted identifier or string; a doubled quote stands for one. */
        private String quoted(char q, int startLine, int col) {
            StringBuilder sb = new StringBuilder();
            int p = pos + 1;
            while (true) {
                if (p >= s.length()) {
                    throw error(startLine, col, q == '"' ? "unterminated quoted identifier" : "unterminated string");
                }
                char c = s.charAt(p);
                if (c == q) {
                    if (p + 1 < s.length() && s.charAt(p + 1) == q) {
                        sb.append(q);
                        p += 2;
                        continue;
                    }
                    advanceTo(p + 1);
                    return sb.toString();
                }
                sb.append(c);
                p++;
            }
        }

        /** Moves to {@code end}, keeping line and column right across newlines. */
        private void advanceTo(int end) {
            for (; pos < end; pos++) {
                if (s.charAt(pos) == '\n') {
                    line++;
                    lineStart = pos + 1;
                }
            }
        }

        private void skipSpaceAndComments() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == '\n') {
                    pos++;
                    line++;
                    lineStart = pos;
                } else if (Character.isWhitespace(c)) {
                    pos++;
                } else if (s.startsWith("--", pos) || s.startsWith("//", pos)) {
                    while (pos < s.length() && s.charAt(pos) != '\n') pos++;
                } else if (s.startsWith("/*", pos)) {
                    int end = s.indexOf("*/", pos + 2);
                    if (end < 0) throw error(line, pos - lineStart + 1, "unterminated comment");
                    advanceTo(end + 2);
                } else {
                    return;
                }
            }
        }

        private static boolean isLetter(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }
    }

    // ---------------------------------------------------------------------------------------
    // Parser

    private static final Map<String, CqlType.Kind> NATIVE = new HashMap<>();

    static {
        for (CqlType.Kind k : CqlType.Kind.values()) {
            if (!k.isCollection()) NATIVE.put(k.name().toLowerCase(Locale.ROOT), k);
        }
        NATIVE.put("varchar", CqlType.Kind.TEXT);
    }

    private static final Set<String> IGNORED_OPTIONS = Set.of(
            "comment", "caching", "compaction", "memtable_flush_period_in_ms",
            "max_index_interval", "speculative_retry", "additional_write_policy", "crc_check_chance",
            "cdc", "read_repair", "extensions", "allow_auto_snapshot", "incremental_backups", "memtable");

    private static final int MAX_TTL_SECONDS = 630_720_000; // 20 years, Cassandra's Attributes.MAX_TTL

    /** A column as declared, before roles are known. */
    private static final class ColumnDef {
        final String name;
        final Token nameToken;
        final CqlType type;
        final Token typeToken;
        final Token staticToken; // null unless STATIC

        ColumnDef(String name, Token nameToken, CqlType type, Token typeToken, Token staticToken) {
            this.name = name;
            this.nameToken = nameToken;
            this.type = type;
            this.typeToken = typeToken;
            this.staticToken = staticToken;
        }
    }

    /** An option value: a constant (text) or a map of constants. */
    private static final class OptionValue {
        final Token at;
        final String text; // null for a map
        final Map<String, String> map;

        OptionValue(Token at, String text, Map<String, String> map) {
            this.at = at;
            this.text = text;
            this.map = map;
        }
    }

    private static final class Parser extends TokenParser {

        Parser(List<Token> tokens) {
            super(tokens);
        }

        private boolean acceptSymbol(String sym) {
            if (peek().isSymbol(sym)) {
                i++;
                return true;
            }
            return false;
        }

        private Token identifier(String what) {
            Token t = next();
            if (t.type != T.IDENT && t.type != T.QUOTED) {
                throw error(t, "expected " + what + " but found " + t.describe());
            }
            return t;
        }

        TableSchema parseCreateTable() {
            Token first = peek();
            if (!first.isKeyword("create")) {
                throw error(first, "only CREATE TABLE statements are supported, found " + first.describe());
            }
            next();
            Token what = peek();
            if (what.isKeyword("index") || what.isKeyword("custom")) {
                throw error(what, "secondary indexes are not supported");
            }
            if (what.isKeyword("materialized")) throw error(what, "materialized views are not supported");
            if (!what.isKeyword("table") && !what.isKeyword("columnfamily")) {
                throw error(what, "only CREATE TABLE statements are supported, found CREATE " + what.describe());
            }
            next();
            if (peek().isKeyword("if")) {
                next();
                expectKeyword("not");
                expectKeyword("exists");
            }
            Token ksToken = identifier("keyspace name");
            if (!peek().isSymbol(".")) {
                throw error(ksToken, "the table name must name its keyspace (ks.table)");
            }
            next();
            Token tableToken = identifier("table name");
            checkName(ksToken, "keyspace", MAX_KEYSPACE_NAME_LENGTH);
            checkName(tableToken, "table", MAX_TABLE_NAME_LENGTH);

            expectSymbol("(");
            Map<String, ColumnDef> columns = new LinkedHashMap<>();
            List<Token> partitionKey = null;
            List<Token> clustering = new ArrayList<>();
            Token pkClause = null;
            Token inlinePk = null;
            do {
                Token t = peek();
                if (t.isKeyword("primary") && peek(1).isKeyword("key")) {
                    if (pkClause != null || inlinePk != null) throw error(t, "more than one PRIMARY KEY");
                    pkClause = t;
                    next();
                    next();
                    partitionKey = new ArrayList<>();
                    parsePrimaryKeyClause(partitionKey, clustering);
                } else {
                    Token nameToken = identifier("a column name");
                    if (columns.containsKey(nameToken.text)) {
                        throw error(nameToken, "column '" + shown(nameToken.text) + "' is defined twice");
                    }
                    Token typeToken = peek();
                    CqlType type = parseType(false);
                    Token staticToken = null;
                    if (peek().isKeyword("static")) staticToken = next();
                    if (peek().isKeyword("primary")) {
                        Token pk = next();
                        expectKeyword("key");
                        if (pkClause != null || inlinePk != null) throw error(pk, "more than one PRIMARY KEY");
                        inlinePk = pk;
                        partitionKey = new ArrayList<>();
                        partitionKey.add(nameToken);
                    }
                    columns.put(nameToken.text, new ColumnDef(nameToken.text, nameToken, type, typeToken, staticToken));
                }
            } while (acceptSymbol(","));
            Token close = expectSymbol(")");
            if (partitionKey == null) throw error(close, "the table has no PRIMARY KEY");

            Map<String, Boolean> clusteringOrder = new LinkedHashMap<>();
            Map<String, Token> clusteringOrderTokens = new HashMap<>();
            Map<String, OptionValue> options = new LinkedHashMap<>();
            if (peek().isKeyword("with")) {
                next();
                parseOption(clusteringOrder, clusteringOrderTokens, options);
                while (peek().isKeyword("and")) {
                    next();
                    parseOption(clusteringOrder, clusteringOrderTokens, options);
                }
            }
            acceptSymbol(";");
            Token end = peek();
            if (end.type != T.EOF) {
                throw error(end, end.isKeyword("create") || end.isKeyword("insert") || end.isKeyword("alter")
                        ? "only one statement is supported" : "unexpected " + end.describe());
            }
            return build(ksToken.text, tableToken.text, columns, partitionKey, clustering,
                    clusteringOrder, clusteringOrderTokens, options);
        }

        private void parsePrimaryKeyClause(List<Token> partitionKey, List<Token> clustering) {
            expectSymbol("(");
            if (acceptSymbol("(")) {
                do {
                    partitionKey.add(identifier("a partition key column"));
                } while (acceptSymbol(","));
                expectSymbol(")");
            } else {
                partitionKey.add(identifier("a partition key column"));
            }
            while (acceptSymbol(",")) {
                clustering.add(identifier("a clustering column"));
            }
            expectSymbol(")");
        }

        /**
         * Keyspace and table names become directory names under the output directory, so a quoted
         * name such as "../x" or "a/b" must not get through. Cassandra's rule: word characters
         * only (ASCII letters, digits and '_'), at least one.
         */
        private static void checkName(Token t, String what, int maxLength) {
            String n = t.text;
            boolean ok = !n.isEmpty() && n.length() <= maxLength;
            for (int k = 0; ok && k < n.length(); k++) {
                char c = n.charAt(k);
                ok = Lexer.isLetter(c) || Lexer.isDigit(c) || c == '_';
            }
            if (!ok) {
                throw error(t, what + " name must be 1 to " + maxLength + " letters, digits or underscores, not \""
                        + shown(n) + "\"");
            }
        }

        /** A type; {@code inCollection} when it is a collection's element, key or value. */
        private CqlType parseType(boolean inCollection) {
            Token t = next();
            if (t.type == T.STRING) throw error(t, "custom types ('" + shown(t.text) + "') are not supported");
            if (t.type != T.IDENT && t.type != T.QUOTED) throw error(t, "expected a type but found " + t.describe());
            String name = t.text;
            if (t.type == T.IDENT) {
                CqlType.Kind k = NATIVE.get(name);
                if (k != null) return CqlType.of(k);
                switch (name) {
                    case "counter": throw error(t, "counter columns are not supported");
                    case "duration": throw error(t, "duration columns are not supported");
                    case "tuple": throw error(t, "tuple types are not supported");
                    case "vector": throw error(t, "vector types are not supported");
                    case "frozen": {
                        expectSymbol("<");
                        Token inner = peek();
                        // Refused before recursing: frozen<frozen<... nested 100k deep must not overflow the stack.
                        if (inner.isKeyword("frozen")) throw error(inner, "frozen<frozen<...>> is not allowed: freeze a collection once");
                        if (!(inner.isKeyword("list") || inner.isKeyword("set") || inner.isKeyword("map"))) {
                            CqlType x = parseType(inCollection); // refuses unsupported types with their own message
                            throw error(inner, "frozen<" + x + "> is not allowed: only collections can be frozen");
                        }
                        if (inCollection) throw error(t, "nested collections are not supported");
                        next();
                        CqlType c = parseCollectionBody(inner, true);
                        expectSymbol(">");
                        return c;
                    }
                    case "list":
                    case "set":
                    case "map":
                        if (inCollection) throw error(t, "nested collections are not supported");
                        return parseCollectionBody(t, false);
                    default:
                        break;
                }
            }
            throw error(t, "user-defined or unknown type '" + shown(name) + "' is not supported");
        }

        /** After the collection keyword: {@code <T>} or {@code <K, V>}. */
        private CqlType parseCollectionBody(Token kind, boolean frozen) {
            expectSymbol("<");
            CqlType first = parseType(true);
            CqlType out;
            if (kind.isKeyword("map")) {
                expectSymbol(",");
                CqlType value = parseType(true);
                out = CqlType.map(first, value, frozen);
            } else if (kind.isKeyword("list")) {
                out = CqlType.list(first, frozen);
            } else {
                out = CqlType.set(first, frozen);
            }
            expectSymbol(">");
            return out;
        }

        private void parseOption(Map<String, Boolean> clusteringOrder, Map<String, Token> clusteringOrderTokens,
                                 Map<String, OptionValue> options) {
            Token t = peek();
            if (t.isKeyword("compact") && peek(1).isKeyword("storage")) {
                throw error(t, "COMPACT STORAGE is not supported");
            }
            if (t.isKeyword("clustering") && peek(1).isKeyword("order")) {
                if (!clusteringOrder.isEmpty()) throw error(t, "CLUSTERING ORDER is given twice");
                next();
                next();
                expectKeyword("by");
                expectSymbol("(");
                do {
                    Token col = identifier("a clustering column");
                    Token dir = next();
                    boolean asc;
                    if (dir.isKeyword("asc")) asc = true;
                    else if (dir.isKeyword("desc")) asc = false;
                    else throw error(dir, "expected ASC or DESC but found " + dir.describe());
                    if (clusteringOrder.put(col.text, asc) != null) {
                        throw error(col, "column '" + shown(col.text) + "' appears twice in CLUSTERING ORDER");
                    }
                    clusteringOrderTokens.put(col.text, col);
                } while (acceptSymbol(","));
                expectSymbol(")");
                return;
            }
            Token name = next();
            if (name.type != T.IDENT) throw error(name, "expected a table option but found " + name.describe());
            if (options.containsKey(name.text)) throw error(name, "table option '" + shown(name.text) + "' is given twice");
            expectSymbol("=");
            Token v = peek();
            OptionValue value;
            if (v.isSymbol("{")) {
                next();
                Map<String, String> map = new LinkedHashMap<>();
                if (!acceptSymbol("}")) {
                    do {
                        Token k = constant();
                        expectSymbol(":");
                        Token val = constant();
                        if (map.put(k.text, val.text) != null) {
                            throw error(k, "'" + shown(k.text) + "' is given twice in option '" + shown(name.text) + "'");
                        }
                    } while (acceptSymbol(","));
                    expectSymbol("}");
                }
                value = new OptionValue(v, null, map);
            } else {
                value = new OptionValue(v, constant().text, null);
            }
            options.put(name.text, value);
            if (!name.text.equals("compression") && !name.text.equals("id")
                    && !name.text.equals("bloom_filter_fp_chance") && !name.text.equals("min_index_interval")
                    && !name.text.equals("default_time_to_live") && !name.text.equals("gc_grace_seconds")
                    && !IGNORED_OPTIONS.contains(name.text)) {
                throw error(name, "unknown table option '" + shown(name.text) + "'");
            }
        }

        private Token constant() {
            Token t = next();
            if (t.type == T.STRING || t.type == T.NUMBER || t.type == T.UUID
                    || t.isKeyword("true") || t.isKeyword("false")) {
                return t;
            }
            throw error(t, "expected a constant but found " + t.describe());
        }

        private TableSchema build(String ks, String table, Map<String, ColumnDef> columns,
                                  List<Token> pkTokens, List<Token> ckTokens,
                                  Map<String, Boolean> clusteringOrder, Map<String, Token> clusteringOrderTokens,
                                  Map<String, OptionValue> options) {
            Set<String> inKey = new HashSet<>();
            List<String> pkNames = new ArrayList<>(), ckNames = new ArrayList<>();
            List<CqlType> pkTypes = new ArrayList<>(), ckTypes = new ArrayList<>();
            for (int pass = 0; pass < 2; pass++) {
                for (Token t : pass == 0 ? pkTokens : ckTokens) {
                    ColumnDef c = columns.get(t.text);
                    if (c == null) throw error(t, "unknown column '" + shown(t.text) + "' in PRIMARY KEY");
                    if (!inKey.add(t.text)) throw error(t, "column '" + shown(t.text) + "' appears twice in PRIMARY KEY");
                    if (c.type.isMultiCell()) {
                        throw error(c.typeToken, "a non-frozen collection (" + c.type + ") cannot be part of the PRIMARY KEY;"
                                + " use frozen<" + c.type + ">");
                    }
                    if (c.staticToken != null) {
                        throw error(c.staticToken, "static column '" + shown(c.name) + "' cannot be part of the PRIMARY KEY");
                    }
                    (pass == 0 ? pkNames : ckNames).add(c.name);
                    (pass == 0 ? pkTypes : ckTypes).add(c.type);
                }
            }
            // CLUSTERING ORDER: clustering columns only, in their order; a prefix is enough
            int n = 0;
            for (Map.Entry<String, Boolean> e : clusteringOrder.entrySet()) {
                Token at = clusteringOrderTokens.get(e.getKey());
                if (!ckNames.contains(e.getKey())) {
                    throw error(at, "CLUSTERING ORDER names '" + shown(e.getKey()) + "', which is not a clustering column");
                }
                if (!ckNames.get(n).equals(e.getKey())) {
                    throw error(at, "CLUSTERING ORDER must list the clustering columns in their order: '"
                            + shown(ckNames.get(n)) + "' comes before '" + shown(e.getKey()) + "'");
                }
                n++;
            }
            boolean[] reversed = new boolean[ckNames.size()];
            for (int k = 0; k < reversed.length; k++) {
                reversed[k] = !clusteringOrder.getOrDefault(ckNames.get(k), true);
            }
            List<String> staticNames = new ArrayList<>(), regularNames = new ArrayList<>();
            List<CqlType> staticTypes = new ArrayList<>(), regularTypes = new ArrayList<>();
            for (ColumnDef c : columns.values()) {
                if (inKey.contains(c.name)) continue;
                if (c.staticToken != null) {
                    if (ckNames.isEmpty()) {
                        throw error(c.staticToken, "static columns need clustering columns");
                    }
                    staticNames.add(c.name);
                    staticTypes.add(c.type);
                } else {
                    regularNames.add(c.name);
                    regularTypes.add(c.type);
                }
            }

            OptionValue comp = options.get("compression");
            CompressionParams compression = comp == null ? CompressionParams.LZ4_DEFAULT : compression(comp);
            UUID id = UUID.nameUUIDFromBytes((ks + "." + table).getBytes(StandardCharsets.UTF_8));
            OptionValue idOpt = options.get("id");
            if (idOpt != null) {
                try {
                    if (idOpt.text == null) throw new IllegalArgumentException();
                    id = UUID.fromString(idOpt.text);
                } catch (IllegalArgumentException e) {
                    throw error(idOpt.at, "table option 'id' must be a UUID");
                }
            }
            double bloomFpChance = isLeveled(options.get("compaction")) ? 0.1 : TableSchema.DEFAULT_BLOOM_FILTER_FP_CHANCE;
            OptionValue bf = options.get("bloom_filter_fp_chance");
            if (bf != null) {
                bloomFpChance = number(bf, "bloom_filter_fp_chance");
                if (!(bloomFpChance > 0 && bloomFpChance <= 1)) {
                    throw error(bf.at, "bloom_filter_fp_chance must be in (0, 1]");
                }
            }
            int minIndexInterval = TableSchema.DEFAULT_MIN_INDEX_INTERVAL;
            OptionValue mii = options.get("min_index_interval");
            if (mii != null) {
                minIndexInterval = integer(mii, "min_index_interval");
                if (minIndexInterval < 1) throw error(mii.at, "min_index_interval must be at least 1");
            }
            int ttl = 0;
            OptionValue ttlOpt = options.get("default_time_to_live");
            if (ttlOpt != null) {
                ttl = integer(ttlOpt, "default_time_to_live");
                if (ttl < 0 || ttl > MAX_TTL_SECONDS) {
                    throw error(ttlOpt.at, "default_time_to_live must be between 0 and " + MAX_TTL_SECONDS);
                }
            }
            int gcGrace = TableSchema.DEFAULT_GC_GRACE_SECONDS;
            OptionValue gcOpt = options.get("gc_grace_seconds");
            if (gcOpt != null) {
                gcGrace = integer(gcOpt, "gc_grace_seconds");
                if (gcGrace < 0) throw error(gcOpt.at, "gc_grace_seconds must be at least 0");
            }
            return new TableSchema(ks, table, id, pkNames, pkTypes, ckNames, ckTypes, reversed,
                    staticNames, staticTypes, regularNames, regularTypes, TableSchema.Compression.NONE,
                    TableSchema.DEFAULT_CHUNK_LENGTH_BYTES, bloomFpChance, minIndexInterval, ttl)
                    .withCompression(compression)
                    .withPurgeOptions(gcGrace, onlyPurgeRepairedTombstones(options.get("compaction")));
        }

        /** The compaction sub-option only_purge_repaired_tombstones, read as Cassandra reads it (Boolean.parseBoolean). */
        private static boolean onlyPurgeRepairedTombstones(OptionValue compaction) {
            if (compaction == null || compaction.map == null) return false;
            String v = compaction.map.get("only_purge_repaired_tombstones");
            return v != null && v.equalsIgnoreCase("true");
        }

        private static boolean isLeveled(OptionValue compaction) {
            if (compaction == null || compaction.map == null) return false;
            String cls = compaction.map.get("class");
            return cls != null && (cls.equals("LeveledCompactionStrategy")
                    || cls.equals("org.apache.cassandra.db.compaction.LeveledCompactionStrategy"));
        }

        private static double number(OptionValue v, String name) {
            try {
                if (v.text == null) throw new NumberFormatException();
                return Double.parseDouble(v.text);
            } catch (NumberFormatException e) {
                throw error(v.at, name + " must be a number");
            }
        }

        private static int integer(OptionValue v, String name) {
            try {
                if (v.text == null) throw new NumberFormatException();
                return Integer.parseInt(v.text);
            } catch (NumberFormatException e) {
                throw error(v.at, name + " must be an integer");
            }
        }

        /** Cassandra's CompressionParams.fromMap rules (see {@link CompressionParams#fromCqlMap}). */
        private static CompressionParams compression(OptionValue v) {
            if (v.map == null) throw error(v.at, "compression must be a map, e.g. {'class': 'LZ4Compressor'}");
            try {
                return CompressionParams.fromCqlMap(v.map);
            } catch (IllegalArgumentException e) {
                throw error(v.at, "compression: " + shown(e.getMessage()));
            }
        }
    }
}
