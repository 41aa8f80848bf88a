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
 * Parses a CQL schema file into {@link TableSchema}s: what {@code DESCRIBE KEYSPACE} prints.
 *
 * <p>Statements, each ended by ';' (the last one may omit it):
 * <ul>
 *   <li>{@code CREATE KEYSPACE}: its name is checked, its options skipped (replication does not
 *       change sstables). {@code USE ks} sets the keyspace of names that do not give theirs.
 *   <li>{@code CREATE TYPE [IF NOT EXISTS] [ks.]name (field type, ...)}: a user-defined type, usable
 *       by the types and tables after it, in its own keyspace, as Cassandra rules: distinct field
 *       names, no counters, no non-frozen UDT fields.
 *   <li>{@code CREATE TABLE [IF NOT EXISTS] ks.t (...) [WITH ...]}: columns
 *       {@code name type [STATIC] [PRIMARY KEY]} and a {@code PRIMARY KEY (pk, c...)} or
 *       {@code PRIMARY KEY ((p1, p2), c...)} clause. A file may define several tables; the
 *       caller picks one ({@link #parse(String, String)}).
 *   <li>{@code CREATE INDEX}, {@code CREATE CUSTOM INDEX}, {@code CREATE MATERIALIZED VIEW},
 *       {@code CREATE [OR REPLACE] FUNCTION}, {@code CREATE AGGREGATE}, {@code CREATE TRIGGER}:
 *       skipped whole (up to their ';'): none changes a table's sstables.
 *   <li>Refused: ALTER and DROP (write the schema as it stands), anything else.
 * </ul>
 * Types: the natives of {@link CqlType.Kind} (duration and counter included), list, set, map,
 * tuple, vector and user-defined types, frozen or not, nested as Cassandra 5.0 allows, with its
 * rules and refusals: no non-frozen collection or UDT inside a non-frozen collection, no
 * non-frozen collection inside a non-frozen UDT column, no counter inside another type (nor,
 * our own rule, inside a vector), no duration in a set or as a map key or anywhere in the
 * primary key, counters only in tables whose non-key columns are all counters, frozen<> only on
 * what can be frozen.
 *
 * <p>Identifiers follow CQL: unquoted ones are lowercased, "quoted" ones keep their case
 * ({@code ""} escapes a quote). Comments ({@code --}, {@code //}, {@code /* *}{@code /}) are
 * skipped. Everything else is refused with a {@link SchemaException} whose message starts with
 * {@code line L, column C:} (1-based, of the refused construct).
 *
 * <p>Table options, as Cassandra 5.0 knows them (every one it accepts parses):
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
 *       {@code max_index_interval} is kept and checked (at least min_index_interval), though a
 *       fresh sstable does not depend on it (Cassandra uses it when it downsamples summaries).
 *   <li>{@code gc_grace_seconds} (default 864000) and the {@code compaction} sub-option
 *       {@code only_purge_repaired_tombstones}: kept in the schema, since they decide what compaction
 *       may purge.
 *   <li>Accepted, checked as Cassandra checks them, and ignored, as they do not change an
 *       sstable: {@code comment}, {@code caching}, {@code compaction} (but see above),
 *       {@code memtable_flush_period_in_ms}, {@code speculative_retry},
 *       {@code additional_write_policy}, {@code crc_check_chance}, {@code cdc},
 *       {@code read_repair}, {@code extensions}, {@code allow_auto_snapshot},
 *       {@code incremental_backups}, {@code memtable}, {@code auto_repair} (Cassandra 5.0.9
 *       takes it only with auto-repair enabled; we take it always).
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

    /**
     * The one table a schema file defines (see the class comment for what the file may hold).
     * @throws SchemaException naming the construct and its position (line, column) in the file;
     *         or, when the file defines several tables, listing them
     */
    public static TableSchema parse(String cql) {
        return parseSchema(cql).onlyTable();
    }

    /**
     * The table {@code tableName} of a schema file ({@code t} or {@code ks.t}, a name as CQL
     * spells it: unquoted is lowercased, "quoted" keeps its case), or its only table when
     * {@code tableName} is null.
     * @throws SchemaException as {@link #parse(String)}; or when no table has that name, listing those there are
     */
    public static TableSchema parse(String cql, String tableName) {
        SchemaFile f = parseSchema(cql);
        return tableName == null ? f.onlyTable() : f.table(tableName);
    }

    /** Every type and table of a schema file, as {@code DESCRIBE KEYSPACE} prints them. */
    public static SchemaFile parseSchema(String cql) {
        return new Parser(new Lexer(cql).tokens()).parseStatements();
    }

    // ---------------------------------------------------------------------------------------
    // Lexer

    enum T { IDENT, QUOTED, STRING, NUMBER, UUID, HEX, SYMBOL, EOF }

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
                if (c == '0' && pos + 1 < s.length() && (s.charAt(pos + 1) == 'x' || s.charAt(pos + 1) == 'X')) {
                    // a blob constant, 0x and hex digits (DESCRIBE prints extensions' values so)
                    int start = pos;
                    pos += 2;
                    while (pos < s.length() && Character.digit(s.charAt(pos), 16) >= 0) pos++;
                    out.add(new Token(T.HEX, s.substring(start, pos), line, col));
                } else if (uuidAhead()) {
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
                    if (pos < s.length() && (isLetter(s.charAt(pos)) || s.charAt(pos) == '_')) {
                        // "611AND": Cassandra's lexer has no such token either
                        throw error(line, pos - lineStart + 1, "unexpected '" + s.charAt(pos) + "' right after the number "
                                + shown(s.substring(start, pos)));
                    }
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
            if (k.isNative()) NATIVE.put(k.name().toLowerCase(Locale.ROOT), k);
        }
        NATIVE.put("varchar", CqlType.Kind.TEXT);
    }

    /**
     * Options that do not change what is written; each is still checked as Cassandra checks it
     * (see {@code checkIgnoredOption}).
     */
    private static final Set<String> IGNORED_OPTIONS = Set.of(
            "comment", "caching", "compaction", "memtable_flush_period_in_ms",
            "speculative_retry", "additional_write_policy", "crc_check_chance",
            "cdc", "read_repair", "extensions", "allow_auto_snapshot", "incremental_backups", "memtable", "auto_repair");

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
        /** User-defined types by keyspace, then by name, in definition order. */
        private final Map<String, Map<String, CqlType>> types = new LinkedHashMap<>();
        private final List<TableSchema> tables = new ArrayList<>();
        private final List<String> skipped = new ArrayList<>();
        /** The keyspace of the last USE statement, for names that do not give theirs; null before any. */
        private String currentKeyspace;

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

        /**
         * Every statement of the file, as DESCRIBE KEYSPACE prints them: keyspaces (skipped),
         * types and tables (kept), USE (sets the keyspace of unqualified names), and indexes,
         * materialized views, functions, aggregates and triggers (skipped whole).
         */
        SchemaFile parseStatements() {
            while (true) {
                while (acceptSymbol(";")) {
                    // empty statements
                }
                Token first = peek();
                if (first.type == T.EOF) break;
                if (first.isKeyword("use")) {
                    next();
                    Token ks = identifier("a keyspace name");
                    checkName(ks, "keyspace", MAX_KEYSPACE_NAME_LENGTH);
                    currentKeyspace = ks.text;
                    endOfStatement();
                    continue;
                }
                if (first.isKeyword("alter") || first.isKeyword("drop")) {
                    throw error(first, first.text.toUpperCase(Locale.ROOT) + " statements are not supported: write the schema "
                            + "as it stands, with CREATE statements only");
                }
                if (!first.isKeyword("create")) {
                    throw error(first, "expected a CREATE statement (CREATE KEYSPACE, CREATE TYPE, CREATE TABLE, ...), found "
                            + first.describe());
                }
                Token what = peek(1);
                if (what.isKeyword("table") || what.isKeyword("columnfamily")) {
                    TableSchema t = parseCreateTable();
                    if (t != null) tables.add(t);
                } else if (what.isKeyword("type")) {
                    parseCreateType();
                } else if (what.isKeyword("keyspace") || what.isKeyword("schema")) {
                    next();
                    next();
                    if (peek().isKeyword("if")) {
                        next();
                        expectKeyword("not");
                        expectKeyword("exists");
                    }
                    Token ks = identifier("a keyspace name");
                    checkName(ks, "keyspace", MAX_KEYSPACE_NAME_LENGTH);
                    // replication and durable_writes say nothing about the sstables: read, not kept
                    expectKeyword("with");
                    Set<String> seen = new HashSet<>();
                    do {
                        Token option = identifier("a keyspace option");
                        if (!seen.add(option.text)) throw error(option, "keyspace option '" + shown(option.text) + "' is given twice");
                        expectSymbol("=");
                        if (peek().isSymbol("{")) constantMap(option.text);
                        else constant();
                    } while (peek().isKeyword("and") && next() != null);
                    endOfStatement();
                } else if (what.isKeyword("index") || what.isKeyword("custom") || what.isKeyword("materialized")
                        || what.isKeyword("function") || what.isKeyword("aggregate") || what.isKeyword("or")
                        || what.isKeyword("trigger")) {
                    // Indexes, views, functions, aggregates and triggers live in their own files or
                    // nowhere on disk; a table's sstables do not change with them.
                    String label = what.isKeyword("custom") ? "CUSTOM INDEX" : what.isKeyword("materialized") ? "MATERIALIZED VIEW"
                            : what.isKeyword("or") ? "OR REPLACE " + peek(3).text.toUpperCase(Locale.ROOT)
                            : what.text.toUpperCase(Locale.ROOT);
                    skipped.add("CREATE " + label + " at line " + first.line);
                    skipStatement();
                } else {
                    throw error(what, "CREATE " + what.describe() + " is not a statement this schema file may hold "
                            + "(expected KEYSPACE, TYPE, TABLE, INDEX, MATERIALIZED VIEW, FUNCTION, AGGREGATE or TRIGGER)");
                }
            }
            List<CqlType> allTypes = new ArrayList<>();
            for (Map<String, CqlType> m : types.values()) allTypes.addAll(m.values());
            return new SchemaFile(tables, allTypes, skipped, peek());
        }

        /**
         * Up to the ';' that ends the statement outside brackets, or the end of the file. Brackets
         * must balance (so that a damaged statement cannot swallow the ones after it).
         */
        private void skipStatement() {
            StringBuilder open = new StringBuilder();
            while (true) {
                Token t = next();
                if (t.type == T.EOF) {
                    if (open.length() > 0) throw error(t, "unclosed '" + open.charAt(open.length() - 1) + "' in the statement");
                    return;
                }
                if (t.type != T.SYMBOL) continue;
                char c = t.text.charAt(0);
                if (open.length() == 0 && c == ';') return;
                if (c == '(' || c == '{' || c == '[' || c == '<') {
                    open.append(c);
                } else if (c == ')' || c == '}' || c == ']' || c == '>') {
                    char want = c == ')' ? '(' : c == '}' ? '{' : c == ']' ? '[' : '<';
                    if (c == '>' && (open.length() == 0 || open.charAt(open.length() - 1) != '<')) continue; // a comparison
                    if (open.length() == 0 || open.charAt(open.length() - 1) != want) throw error(t, "unbalanced '" + c + "'");
                    open.setLength(open.length() - 1);
                }
            }
        }

        /** A statement ends with ';' or the end of the file. */
        private void endOfStatement() {
            Token end = peek();
            if (acceptSymbol(";") || end.type == T.EOF) return;
            throw error(end, end.isKeyword("create") || end.isKeyword("insert") || end.isKeyword("alter")
                    ? "expected ';' before the next statement" : "unexpected " + end.describe());
        }

        /** {@code [ks.]name}: the keyspace as given, else the one of USE. */
        private Token[] qualifiedName(String what) {
            Token first = identifier(what);
            if (acceptSymbol(".")) {
                return new Token[] {first, identifier(what)};
            }
            if (currentKeyspace == null) {
                throw error(first, "the " + what + " must name its keyspace (ks." + what.replace(" name", "") + "), or follow a USE statement");
            }
            return new Token[] {null, first};
        }

        private String keyspaceOf(Token[] name) {
            return name[0] == null ? currentKeyspace : name[0].text;
        }

        // -----------------------------------------------------------------------------------
        // CREATE TYPE

        /**
         * {@code CREATE TYPE [IF NOT EXISTS] [ks.]name (field type, ...)}, with Cassandra's rules:
         * distinct field names, no counter, no non-frozen UDT; field types may name types defined
         * before, in the same keyspace.
         */
        private void parseCreateType() {
            next();
            next();
            boolean ifNotExists = false;
            if (peek().isKeyword("if")) {
                next();
                expectKeyword("not");
                expectKeyword("exists");
                ifNotExists = true;
            }
            Token[] name = qualifiedName("type name");
            String ks = keyspaceOf(name);
            if (name[0] != null) checkName(name[0], "keyspace", MAX_KEYSPACE_NAME_LENGTH);
            Token nameToken = name[1];
            if (nameToken.text.isEmpty()) throw error(nameToken, "a type name may not be empty");
            if (NATIVE.containsKey(nameToken.text) && nameToken.type == T.IDENT) {
                throw error(nameToken, "'" + shown(nameToken.text) + "' is a native type name; a user-defined type may not take it");
            }
            expectSymbol("(");
            List<String> fieldNames = new ArrayList<>();
            List<CqlType> fieldTypes = new ArrayList<>();
            do {
                Token f = identifier("a field name");
                if (fieldNames.contains(f.text)) throw error(f, "field '" + shown(f.text) + "' is defined twice in type '" + shown(nameToken.text) + "'");
                RawType raw = parseType(0);
                if (raw.isCounter()) throw error(raw.at, "a user-defined type cannot contain counters");
                if (raw.kind == CqlType.Kind.UDT && !raw.frozen) {
                    throw error(raw.at, "a user-defined type cannot contain a non-frozen user-defined type; use frozen<"
                            + shown(raw.name.text) + ">");
                }
                fieldNames.add(f.text);
                fieldTypes.add(prepare(raw, ks));
            } while (acceptSymbol(","));
            expectSymbol(")");
            endOfStatement();
            Map<String, CqlType> inKeyspace = types.computeIfAbsent(ks, k -> new LinkedHashMap<>());
            if (inKeyspace.containsKey(nameToken.text)) {
                if (ifNotExists) return;
                throw error(nameToken, "type " + shown(ks) + "." + shown(nameToken.text) + " is defined twice");
            }
            inKeyspace.put(nameToken.text, CqlType.udt(ks, nameToken.text, fieldNames, fieldTypes, false));
        }

        // -----------------------------------------------------------------------------------
        // CREATE TABLE

        /** The table, or null when IF NOT EXISTS names a table defined before. */
        TableSchema parseCreateTable() {
            next();
            next();
            boolean ifNotExists = false;
            if (peek().isKeyword("if")) {
                next();
                expectKeyword("not");
                expectKeyword("exists");
                ifNotExists = true;
            }
            Token ksToken = identifier("keyspace name");
            Token tableToken;
            if (peek().isSymbol(".")) {
                next();
                tableToken = identifier("table name");
            } else if (currentKeyspace != null) {
                tableToken = ksToken;
                ksToken = null;
            } else {
                throw error(ksToken, "the table name must name its keyspace (ks.table)");
            }
            String ks = ksToken == null ? currentKeyspace : ksToken.text;
            if (ksToken != null) checkName(ksToken, "keyspace", MAX_KEYSPACE_NAME_LENGTH);
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
                    RawType raw = parseType(0);
                    CqlType type = prepare(raw, ks);
                    if (type.kind() == CqlType.Kind.UDT && type.isMultiCell()) {
                        for (int f = 0; f < type.size(); f++) {
                            if (type.component(f).isMultiCell()) {
                                throw error(typeToken, "a non-frozen user-defined type (" + shown(type.toString()) + ") cannot hold a non-frozen "
                                        + "collection (field '" + shown(type.fieldName(f)) + "' is " + shown(type.component(f).toString())
                                        + "); use frozen<" + shown(type.toString()) + ">");
                            }
                        }
                    }
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
            endOfStatement();
            for (TableSchema t : tables) {
                if (t.keyspace().equals(ks) && t.name().equals(tableToken.text)) {
                    if (ifNotExists) return null;
                    throw error(tableToken, "table " + shown(ks) + "." + shown(tableToken.text) + " is defined twice");
                }
            }
            return build(ks, tableToken.text, columns, partitionKey, clustering,
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

        // -----------------------------------------------------------------------------------
        // Types

        /**
         * A type as written, before it is resolved: Cassandra's {@code CQL3Type.Raw}. The rules
         * that depend on where a type stands (frozen or not, inside what) are checked when it is
         * prepared, after {@code frozen<...>} has frozen what it encloses.
         */
        private static final class RawType {
            final Token at;
            final CqlType.Kind kind;
            final boolean frozen;
            /** Element / key, value / components / vector element. */
            final RawType[] params;
            /** A UDT's keyspace (null if not given) and name. */
            final Token keyspace;
            final Token name;
            final int dimension;

            RawType(Token at, CqlType.Kind kind, boolean frozen, RawType[] params, Token keyspace, Token name, int dimension) {
                this.at = at;
                this.kind = kind;
                this.frozen = frozen;
                this.params = params;
                this.keyspace = keyspace;
                this.name = name;
                this.dimension = dimension;
            }

            boolean isCounter() {
                return kind == CqlType.Kind.COUNTER;
            }

            boolean supportsFreezing() {
                return !kind.isNative();
            }

            /** Cassandra's Raw.freeze(): collections freeze their parameters too; tuples and vectors are frozen already. */
            RawType freeze() {
                if (kind.isCollection()) {
                    RawType[] p = new RawType[params.length];
                    for (int k = 0; k < p.length; k++) p[k] = params[k].supportsFreezing() ? params[k].freeze() : params[k];
                    return new RawType(at, kind, true, p, keyspace, name, dimension);
                }
                if (kind == CqlType.Kind.UDT) return new RawType(at, kind, true, params, keyspace, name, dimension);
                return this;
            }

            @Override
            public String toString() {
                String s;
                switch (kind) {
                    case LIST: s = "list<" + params[0] + ">"; break;
                    case SET: s = "set<" + params[0] + ">"; break;
                    case MAP: s = "map<" + params[0] + ", " + params[1] + ">"; break;
                    case UDT: s = (keyspace == null ? "" : keyspace.text + ".") + name.text; break;
                    case VECTOR: return "vector<" + params[0] + ", " + dimension + ">";
                    case TUPLE: {
                        StringBuilder sb = new StringBuilder("tuple<");
                        for (int k = 0; k < params.length; k++) sb.append(k == 0 ? "" : ", ").append(params[k]);
                        return sb.append('>').toString();
                    }
                    default: return kind.name().toLowerCase(Locale.ROOT);
                }
                return frozen ? "frozen<" + s + ">" : s;
            }
        }

        /** Deeper than any schema needs; bounds the recursion, so that 100k nested types cannot overflow the stack. */
        static final int MAX_TYPE_DEPTH = 32;

        /** A type as written (see {@link RawType}). */
        private RawType parseType(int depth) {
            Token t = next();
            if (depth > MAX_TYPE_DEPTH) throw error(t, "types nested deeper than " + MAX_TYPE_DEPTH + " levels are not supported");
            if (t.type == T.STRING) throw error(t, "custom types ('" + shown(t.text) + "') are not supported");
            if (t.type != T.IDENT && t.type != T.QUOTED) throw error(t, "expected a type but found " + t.describe());
            if (t.type == T.IDENT) {
                CqlType.Kind k = NATIVE.get(t.text);
                if (k != null) return new RawType(t, k, false, NO_RAW, null, null, 0);
                switch (t.text) {
                    case "frozen": {
                        expectSymbol("<");
                        Token inner = peek();
                        // Refused before recursing: frozen<frozen<... nested 100k deep must not overflow the stack.
                        if (inner.isKeyword("frozen")) throw error(inner, "frozen<frozen<...>> is not allowed: freeze a collection once");
                        RawType x = parseType(depth + 1);
                        expectSymbol(">");
                        if (!x.supportsFreezing()) {
                            throw error(inner, "frozen<> is only allowed on collections, tuples, vectors and user-defined types, not "
                                    + shown(x.toString()));
                        }
                        return x.freeze();
                    }
                    case "list":
                    case "set":
                        if (!peek().isSymbol("<")) break;
                        expectSymbol("<");
                        RawType e = parseType(depth + 1);
                        expectSymbol(">");
                        return new RawType(t, t.text.equals("list") ? CqlType.Kind.LIST : CqlType.Kind.SET, false,
                                new RawType[] {e}, null, null, 0);
                    case "map": {
                        if (!peek().isSymbol("<")) break;
                        expectSymbol("<");
                        RawType key = parseType(depth + 1);
                        expectSymbol(",");
                        RawType value = parseType(depth + 1);
                        expectSymbol(">");
                        return new RawType(t, CqlType.Kind.MAP, false, new RawType[] {key, value}, null, null, 0);
                    }
                    case "tuple": {
                        if (!peek().isSymbol("<")) break;
                        expectSymbol("<");
                        List<RawType> cs = new ArrayList<>();
                        do {
                            RawType c = parseType(depth + 1);
                            cs.add(c.supportsFreezing() ? c.freeze() : c); // Cassandra freezes what a tuple holds
                        } while (acceptSymbol(","));
                        expectSymbol(">");
                        return new RawType(t, CqlType.Kind.TUPLE, true, cs.toArray(NO_RAW), null, null, 0);
                    }
                    case "vector": {
                        if (!peek().isSymbol("<")) break;
                        expectSymbol("<");
                        RawType e2 = parseType(depth + 1);
                        expectSymbol(",");
                        Token d = next();
                        int dimension;
                        try {
                            if (d.type != T.NUMBER) throw new NumberFormatException();
                            dimension = Integer.parseInt(d.text);
                        } catch (NumberFormatException x) {
                            throw error(d, "expected a vector dimension (a positive integer) but found " + d.describe());
                        }
                        if (dimension <= 0) throw error(d, "vectors may only have positive dimensions; given " + dimension);
                        expectSymbol(">");
                        return new RawType(t, CqlType.Kind.VECTOR, true, new RawType[] {e2}, null, null, dimension);
                    }
                    default:
                        break;
                }
            }
            // a user-defined type: [ks.]name
            Token ks = null, name = t;
            if (peek().isSymbol(".")) {
                next();
                ks = t;
                name = identifier("a type name");
            }
            return new RawType(t, CqlType.Kind.UDT, false, NO_RAW, ks, name, 0);
        }

        private static final RawType[] NO_RAW = new RawType[0];

        /** Resolves a written type in {@code keyspace}, with Cassandra's rules for what may nest where. */
        private CqlType prepare(RawType r, String keyspace) {
            switch (r.kind) {
                case LIST:
                case SET:
                case MAP: {
                    RawType values = r.params[r.params.length - 1];
                    RawType keys = r.kind == CqlType.Kind.MAP ? r.params[0] : null;
                    checkInCollection(r, values);
                    if (values.kind == CqlType.Kind.DURATION && r.kind == CqlType.Kind.SET) {
                        throw error(values.at, "durations are not allowed inside sets: " + shown(r.toString()));
                    }
                    if (keys != null) {
                        checkInCollection(r, keys);
                        if (keys.kind == CqlType.Kind.DURATION) throw error(keys.at, "durations are not allowed as map keys: " + shown(r.toString()));
                    }
                    CqlType v = prepare(values, keyspace);
                    switch (r.kind) {
                        case LIST: return CqlType.list(v, r.frozen);
                        case SET: return CqlType.set(v, r.frozen);
                        default: return CqlType.map(prepare(keys, keyspace), v, r.frozen);
                    }
                }
                case TUPLE: {
                    List<CqlType> cs = new ArrayList<>();
                    for (RawType c : r.params) {
                        if (c.isCounter()) throw error(c.at, "counters are not allowed inside tuples");
                        cs.add(prepare(c, keyspace));
                    }
                    return CqlType.tuple(cs);
                }
                case VECTOR: {
                    RawType e = r.params[0];
                    if (e.isCounter()) throw error(e.at, "counters are not allowed inside vectors");
                    CqlType et = prepare(e, keyspace);
                    try {
                        return CqlType.vector(et, r.dimension);
                    } catch (IllegalArgumentException x) {
                        throw error(r.at, shown(x.getMessage()));
                    }
                }
                case UDT: {
                    String ks = r.keyspace == null ? keyspace : r.keyspace.text;
                    if (!ks.equals(keyspace)) {
                        throw error(r.at, "a table or type of keyspace " + shown(keyspace) + " cannot use type " + shown(ks) + "."
                                + shown(r.name.text) + ": user-defined types can only be used in the keyspace they are defined in");
                    }
                    Map<String, CqlType> inKeyspace = types.get(ks);
                    CqlType t = inKeyspace == null ? null : inKeyspace.get(r.name.text);
                    if (t == null) {
                        throw error(r.at, "unknown type " + shown(ks) + "." + shown(r.name.text)
                                + " (no CREATE TYPE for it before this statement)");
                    }
                    return r.frozen ? t.freeze() : t;
                }
                default:
                    return CqlType.of(r.kind);
            }
        }

        /** What a collection may hold: no counter; a non-frozen collection no non-frozen collection or UDT. */
        private static void checkInCollection(RawType collection, RawType inner) {
            if (inner.isCounter()) throw error(inner.at, "counters are not allowed inside collections: " + shown(collection.toString()));
            if (!collection.frozen && inner.supportsFreezing() && !inner.frozen) {
                throw error(inner.at, (inner.kind == CqlType.Kind.UDT ? "non-frozen user-defined types" : "non-frozen collections")
                        + " are not allowed inside collections: " + shown(collection.toString()) + "; use frozen<" + shown(inner.toString()) + ">");
            }
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
                value = new OptionValue(v, null, constantMap(name.text));
            } else {
                value = new OptionValue(v, constant().text, null);
            }
            options.put(name.text, value);
            if (!name.text.equals("compression") && !name.text.equals("id")
                    && !name.text.equals("bloom_filter_fp_chance") && !name.text.equals("min_index_interval")
                    && !name.text.equals("default_time_to_live") && !name.text.equals("gc_grace_seconds")
                    && !name.text.equals("max_index_interval")
                    && !IGNORED_OPTIONS.contains(name.text)) {
                throw error(name, "unknown table option '" + shown(name.text) + "'");
            }
            if (IGNORED_OPTIONS.contains(name.text)) checkIgnoredOption(name.text, value);
        }

        /**
         * The options that change nothing on disk, checked as Cassandra's TableAttributes and
         * TableParams check them, so that a file Cassandra refuses is refused here too: booleans
         * are 1/true/yes or 0/false/no (any case), numbers parse and are in range, maps are maps.
         * The speculative retry policies, the memtable configuration name and the compaction
         * strategy's own options are taken as given (they need the node's configuration to judge).
         */
        private static void checkIgnoredOption(String name, OptionValue v) {
            switch (name) {
                case "caching": {
                    Map<String, String> m = map(v, name);
                    for (Map.Entry<String, String> e : m.entrySet()) {
                        String x = e.getValue();
                        if (e.getKey().equals("keys")) {
                            if (!x.equalsIgnoreCase("ALL") && !x.equalsIgnoreCase("NONE")) {
                                throw error(v.at, "caching: 'keys' must be 'ALL' or 'NONE', not '" + shown(x) + "'");
                            }
                        } else if (e.getKey().equals("rows_per_partition")) {
                            if (!x.equalsIgnoreCase("ALL") && !x.equalsIgnoreCase("NONE")) {
                                int rows;
                                try {
                                    rows = Integer.parseInt(x);
                                } catch (NumberFormatException ex) {
                                    rows = -1;
                                }
                                if (rows < 0) {
                                    throw error(v.at, "caching: 'rows_per_partition' must be 'ALL', 'NONE' or a number of rows, not '"
                                            + shown(x) + "'");
                                }
                            }
                        } else {
                            throw error(v.at, "caching: unknown sub-option '" + shown(e.getKey())
                                    + "' (only 'keys' and 'rows_per_partition' are allowed)");
                        }
                    }
                    return;
                }
                case "compaction": {
                    Map<String, String> m = map(v, name);
                    if (!m.containsKey("class")) throw error(v.at, "compaction: missing sub-option 'class'");
                    return;
                }
                case "auto_repair":
                    map(v, name);
                    return;
                case "extensions": // Cassandra 5.0.9 reads nothing of it when a table is created: any value
                    return;
                case "cdc":
                case "allow_auto_snapshot":
                case "incremental_backups": {
                    String x = text(v, name).toLowerCase(Locale.ROOT);
                    if (!x.equals("1") && !x.equals("true") && !x.equals("yes") && !x.equals("0") && !x.equals("false") && !x.equals("no")) {
                        throw error(v.at, name + " must be a boolean (true or false), not '" + shown(x) + "'");
                    }
                    return;
                }
                case "crc_check_chance": {
                    double d = number(v, name);
                    if (!(d >= 0 && d <= 1)) throw error(v.at, "crc_check_chance must be between 0 and 1");
                    return;
                }
                case "memtable_flush_period_in_ms":
                    if (integer(v, name) < 0) throw error(v.at, "memtable_flush_period_in_ms must be at least 0");
                    return;
                case "read_repair": {
                    String x = text(v, name);
                    if (!x.equalsIgnoreCase("BLOCKING") && !x.equalsIgnoreCase("NONE")) {
                        throw error(v.at, "read_repair must be 'BLOCKING' or 'NONE', not '" + shown(x) + "'");
                    }
                    return;
                }
                case "speculative_retry":
                case "additional_write_policy": {
                    String x = text(v, name);
                    if (retryPolicyKind(x) == null) {
                        throw error(v.at, name + " '" + shown(x) + "' is not a retry policy (ALWAYS, NEVER, NONE, Np for a "
                                + "percentile, Nms, or MIN/MAX of a percentile and a time)");
                    }
                    return;
                }
                default: // comment, memtable: any string
                    text(v, name);
            }
        }

        private static final java.util.regex.Pattern PERCENTILE =
                java.util.regex.Pattern.compile("([0-9.]+)p(ercentile)?", java.util.regex.Pattern.CASE_INSENSITIVE);
        private static final java.util.regex.Pattern FIXED =
                java.util.regex.Pattern.compile("([0-9.]+)ms", java.util.regex.Pattern.CASE_INSENSITIVE);
        private static final java.util.regex.Pattern HYBRID = java.util.regex.Pattern.compile(
                "(MIN|MAX)\\(([0-9.]+[a-z]+)\\s*,\\s*([0-9.]+[a-z]+)\\)", java.util.regex.Pattern.CASE_INSENSITIVE);

        /**
         * The kind of a speculative retry policy as Cassandra's SpeculativeRetryPolicy.fromString
         * reads it ("always", "never", "percentile" in (0, 100), "fixed" ms, "hybrid" of one
         * percentile and one fixed), or null if it reads none.
         */
        static String retryPolicyKind(String s) {
            if (s.equalsIgnoreCase("ALWAYS")) return "always";
            if (s.equalsIgnoreCase("NEVER") || s.equalsIgnoreCase("NONE")) return "never";
            java.util.regex.Matcher m = PERCENTILE.matcher(s);
            if (m.matches()) {
                try {
                    double p = Double.parseDouble(m.group(1));
                    return p > 0 && p < 100 ? "percentile" : null;
                } catch (NumberFormatException e) {
                    return null;
                }
            }
            m = FIXED.matcher(s);
            if (m.matches()) {
                try {
                    Double.parseDouble(m.group(1));
                    return "fixed";
                } catch (NumberFormatException e) {
                    return null;
                }
            }
            m = HYBRID.matcher(s);
            if (m.matches()) {
                String a = retryPolicyKind(m.group(2)), b = retryPolicyKind(m.group(3));
                if (a == null || b == null || a.equals(b)) return null;
                boolean ok = (a.equals("percentile") || a.equals("fixed")) && (b.equals("percentile") || b.equals("fixed"));
                return ok ? "hybrid" : null;
            }
            return null;
        }

        private static Map<String, String> map(OptionValue v, String name) {
            if (v.map == null) throw error(v.at, name + " must be a map, as {'key': 'value'}");
            return v.map;
        }

        private static String text(OptionValue v, String name) {
            if (v.text == null) throw error(v.at, name + " must be a constant, not a map");
            return v.text;
        }

        /** {@code { constant : constant, ... }}. */
        private Map<String, String> constantMap(String option) {
            expectSymbol("{");
            Map<String, String> map = new LinkedHashMap<>();
            if (!acceptSymbol("}")) {
                do {
                    Token k = constant();
                    expectSymbol(":");
                    Token val = constant();
                    if (map.put(k.text, val.text) != null) {
                        throw error(k, "'" + shown(k.text) + "' is given twice in option '" + shown(option) + "'");
                    }
                } while (acceptSymbol(","));
                expectSymbol("}");
            }
            return map;
        }

        private Token constant() {
            Token t = next();
            if (t.type == T.STRING || t.type == T.NUMBER || t.type == T.UUID || t.type == T.HEX
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
                        throw error(c.typeToken, "a non-frozen " + (c.type.isCollection() ? "collection" : "user-defined type")
                                + " (" + shown(c.type.toString()) + ") cannot be part of the PRIMARY KEY; use frozen<" + shown(c.type.toString()) + ">");
                    }
                    if (c.type.isCounter()) {
                        throw error(c.typeToken, "a counter cannot be part of the PRIMARY KEY (column '" + shown(c.name) + "')");
                    }
                    if (c.type.referencesDuration()) {
                        throw error(c.typeToken, "a duration cannot be part of the PRIMARY KEY (column '" + shown(c.name) + "' is "
                                + shown(c.type.toString()) + ")");
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
            // A counter table holds counters only, outside its primary key (Cassandra merges
            // counter cells by their contexts, which other cells do not have).
            ColumnDef firstCounter = null, firstOther = null;
            for (ColumnDef c : columns.values()) {
                if (inKey.contains(c.name)) continue;
                if (c.type.isCounter()) {
                    if (firstCounter == null) firstCounter = c;
                } else if (firstOther == null) {
                    firstOther = c;
                }
            }
            if (firstCounter != null && firstOther != null) {
                ColumnDef later = firstCounter.nameToken.line > firstOther.nameToken.line
                        || (firstCounter.nameToken.line == firstOther.nameToken.line && firstCounter.nameToken.column > firstOther.nameToken.column)
                        ? firstCounter : firstOther;
                throw error(later.typeToken, "cannot mix counter and non-counter columns in the same table ('"
                        + shown(firstCounter.name) + "' is a counter, '" + shown(firstOther.name) + "' is " + shown(firstOther.type.toString()) + ")");
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
            if (ttl > 0 && firstCounter != null) {
                throw error(ttlOpt.at, "default_time_to_live cannot be set on a table with counters");
            }
            int maxIndexInterval = TableSchema.DEFAULT_MAX_INDEX_INTERVAL;
            OptionValue maxii = options.get("max_index_interval");
            if (maxii != null) maxIndexInterval = integer(maxii, "max_index_interval");
            if (maxIndexInterval < minIndexInterval) {
                throw error(maxii != null ? maxii.at : mii.at, "max_index_interval (" + maxIndexInterval
                        + ") must be at least min_index_interval (" + minIndexInterval + ")");
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
                    .withPurgeOptions(gcGrace, onlyPurgeRepairedTombstones(options.get("compaction")))
                    .withMaxIndexInterval(maxIndexInterval);
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
