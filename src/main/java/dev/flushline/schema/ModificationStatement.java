package dev.flushline.schema;

import dev.flushline.schema.CqlParser.T;
import dev.flushline.schema.CqlParser.Token;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * One CQL {@code INSERT}, {@code UPDATE} or {@code DELETE} statement with bind markers, parsed
 * against a {@link TableSchema}: the statement a bulk writer applies once per row of values.
 *
 * <p>Accepted, and nothing else (anything more is refused with a {@link SchemaException} whose
 * message starts {@code line L, column C:}):
 * <pre>
 * INSERT INTO [ks.]t (c1, c2, ...) VALUES (term, term, ...) [USING attrs] [;]
 * UPDATE [ks.]t [USING attrs] SET assignment, ... WHERE key relations [;]
 * DELETE [c1, c2, ...] FROM [ks.]t [USING TIMESTAMP term] WHERE key relations [;]
 *
 * attrs      := TIMESTAMP term [AND TTL term] | TTL term [AND TIMESTAMP term]
 * assignment := c = term | c = c + term | c += term      (the last two append to a non-frozen collection)
 * relation   := c = term  (every key column; DELETE: also a range c (&lt;|&lt;=|&gt;|&gt;=) term on the clustering
 *               column after the prefix that '=' fixes, one lower and/or one upper bound)
 * term       := ? | :name | number | 'string' | uuid | true | false | null | 0xhex
 * </pre>
 * Bind markers are numbered in the order they appear in the text, as Cassandra numbers them. A
 * {@code ?} takes the name of what it binds (the column, {@code [timestamp]} or {@code [ttl]}); a
 * {@code :name} marker takes its own name. Literals are kept in the input model of
 * {@link ValueCodec} (numbers as BigDecimal, strings as String) and encoded with the row.
 *
 * <p>Whether a statement's key is complete for what it writes (e.g. an INSERT without clustering
 * values that sets only static columns) is the mutation builder's check, done per row.
 *
 * <p>Immutable and thread-safe once parsed.
 */
public final class ModificationStatement {
    public enum Kind { INSERT, UPDATE, DELETE }

    public enum Operator {
        EQ("="), LT("<"), LE("<="), GT(">"), GE(">=");

        public final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }
    }

    /** A value position in the statement: a bind marker or a literal. */
    public static final class Term {
        /** The marker's index among {@link #markers()}, or -1 for a literal. */
        public final int markerIndex;
        /** A literal in {@link ValueCodec}'s input model; null is CQL's null. Unused for a marker. */
        public final Object literal;

        Term(int markerIndex, Object literal) {
            this.markerIndex = markerIndex;
            this.literal = literal;
        }

        public boolean isMarker() {
            return markerIndex >= 0;
        }
    }

    /** A bind marker: the name {@code addRow(Map)} looks it up by, and the CQL type of its value. */
    public static final class Marker {
        public final String name;
        public final CqlType type;
        /** The column it binds, or null for the timestamp and TTL. */
        public final ColumnMetadata column;

        Marker(String name, CqlType type, ColumnMetadata column) {
            this.name = name;
            this.type = type;
            this.column = column;
        }

        @Override
        public String toString() {
            return name + " (" + type + ")";
        }
    }

    /** {@code c = term} (append false) or {@code c = c + term} / {@code c += term} (append true). */
    public static final class Assignment {
        public final ColumnMetadata column;
        public final boolean append;
        public final Term value;

        Assignment(ColumnMetadata column, boolean append, Term value) {
            this.column = column;
            this.append = append;
            this.value = value;
        }
    }

    /** One WHERE relation on a primary key column. */
    public static final class Relation {
        public final ColumnMetadata column;
        public final Operator operator;
        public final Term value;

        Relation(ColumnMetadata column, Operator operator, Term value) {
            this.column = column;
            this.operator = operator;
            this.value = value;
        }
    }

    public static final String TIMESTAMP_MARKER_NAME = "[timestamp]";
    public static final String TTL_MARKER_NAME = "[ttl]";

    private final TableSchema schema;
    private final Kind kind;
    private final List<Marker> markers;
    private final List<ColumnMetadata> columns;
    private final List<Term> values;
    private final List<Assignment> assignments;
    private final List<Relation> where;
    private final Term timestamp;
    private final Term ttl;

    private ModificationStatement(TableSchema schema, Kind kind, List<Marker> markers, List<ColumnMetadata> columns,
                                  List<Term> values, List<Assignment> assignments, List<Relation> where,
                                  Term timestamp, Term ttl) {
        this.schema = schema;
        this.kind = kind;
        this.markers = Collections.unmodifiableList(markers);
        this.columns = Collections.unmodifiableList(columns);
        this.values = Collections.unmodifiableList(values);
        this.assignments = Collections.unmodifiableList(assignments);
        this.where = Collections.unmodifiableList(where);
        this.timestamp = timestamp;
        this.ttl = ttl;
    }

    /** @throws SchemaException naming the refused construct with its line and column in {@code cql}. */
    /**
     * The table an INSERT, UPDATE or DELETE writes, as {@code "ks"."t"} or {@code "t"} (quoted, so
     * that {@link SchemaFile#table} takes the names as the statement resolved them), to pick the
     * table of a schema file that defines several. @throws SchemaException if none is found.
     */
    public static String tableName(String cql) {
        List<Token> tokens = new CqlParser.Lexer(cql).tokens();
        for (int k = 0; k + 1 < tokens.size(); k++) {
            Token t = tokens.get(k);
            boolean before = t.isKeyword("into") || t.isKeyword("from") || (k == 0 && t.isKeyword("update"));
            if (!before) continue;
            Token a = tokens.get(k + 1);
            if (a.type != T.IDENT && a.type != T.QUOTED) break;
            if (k + 3 < tokens.size() && tokens.get(k + 2).isSymbol(".")) {
                Token b = tokens.get(k + 3);
                if (b.type == T.IDENT || b.type == T.QUOTED) return quote(a.text) + "." + quote(b.text);
            }
            return quote(a.text);
        }
        Token first = tokens.get(0);
        throw CqlParser.error(first, "expected INSERT INTO, UPDATE or DELETE ... FROM a table, found " + first.describe());
    }

    private static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    public static ModificationStatement parse(String cql, TableSchema schema) {
        return new Parser(new CqlParser.Lexer(cql).tokens(), schema).parse();
    }

    public TableSchema schema() { return schema; }

    public Kind kind() { return kind; }

    /** The bind markers in text order. */
    public List<Marker> markers() { return markers; }

    /** INSERT: the columns named, in order; DELETE: the columns deleted (empty: the whole row or range). */
    public List<ColumnMetadata> columns() { return columns; }

    /** INSERT: the value of each of {@link #columns()}. */
    public List<Term> values() { return values; }

    /** UPDATE: the SET clause. */
    public List<Assignment> assignments() { return assignments; }

    /** UPDATE and DELETE: the WHERE clause. */
    public List<Relation> where() { return where; }

    /** {@code USING TIMESTAMP}, or null (the write time). */
    public Term timestamp() { return timestamp; }

    /** {@code USING TTL}, or null (the table's default). */
    public Term ttl() { return ttl; }

    // ---------------------------------------------------------------------------------------

    private static final class Parser extends TokenParser {
        private final TableSchema schema;
        private final List<Marker> markers = new ArrayList<>();

        Parser(List<Token> tokens, TableSchema schema) {
            super(tokens);
            this.schema = schema;
        }

        ModificationStatement parse() {
            Token first = next();
            ModificationStatement st;
            if (first.isKeyword("insert")) {
                st = insert();
            } else if (first.isKeyword("update")) {
                st = update();
            } else if (first.isKeyword("delete")) {
                st = delete();
            } else {
                throw CqlParser.error(first, "expected INSERT, UPDATE or DELETE, found " + first.describe()
                        + " (only these modification statements are supported)");
            }
            if (peek().isKeyword("if")) {
                throw CqlParser.error(peek(), "conditional statements (IF ...) are not supported by a bulk writer");
            }
            if (peek().isSymbol(";")) next();
            Token end = next();
            if (end.type != T.EOF) throw CqlParser.error(end, "unexpected " + end.describe() + " after the statement");
            if (st.markers.isEmpty()) {
                throw CqlParser.error(first, "the statement has no bind markers (? or :name); a bulk writer binds one row of values per call");
            }
            return st;
        }

        // ---- statements

        private ModificationStatement insert() {
            expectKeyword("into");
            tableName();
            expectSymbol("(");
            List<ColumnMetadata> cols = new ArrayList<>();
            List<Token> colTokens = new ArrayList<>();
            while (true) {
                Token t = peek();
                ColumnMetadata c = column();
                if (cols.contains(c)) throw CqlParser.error(t, "column '" + c.name() + "' is named twice");
                cols.add(c);
                colTokens.add(t);
                if (peek().isSymbol(",")) {
                    next();
                    continue;
                }
                expectSymbol(")");
                break;
            }
            if (peek().isKeyword("json")) throw CqlParser.error(peek(), "INSERT ... JSON is not supported");
            Token valuesToken = expectKeyword("values");
            expectSymbol("(");
            List<Term> vals = new ArrayList<>();
            while (true) {
                Token t = peek();
                if (vals.size() == cols.size()) {
                    throw CqlParser.error(t, "more values than the " + cols.size() + " columns named");
                }
                vals.add(term(cols.get(vals.size()), cols.get(vals.size()).name(), cols.get(vals.size()).type()));
                if (peek().isSymbol(",")) {
                    next();
                    continue;
                }
                Token close = expectSymbol(")");
                if (vals.size() < cols.size()) {
                    throw CqlParser.error(close, cols.size() + " columns named but " + vals.size() + " values given");
                }
                break;
            }
            for (ColumnMetadata pk : schema.partitionKeyColumns()) {
                if (!cols.contains(pk)) {
                    throw CqlParser.error(valuesToken, "partition key column '" + pk.name() + "' (" + pk.type()
                            + ") is missing from the INSERT");
                }
            }
            checkInsertKey(cols, valuesToken);
            Term[] attrs = using(true);
            return new ModificationStatement(schema, Kind.INSERT, markers, cols, vals, List.of(), List.of(), attrs[0], attrs[1]);
        }

        /**
         * As CQL: every clustering column, unless the INSERT names none and sets static columns
         * only (then it writes the static row alone).
         */
        private void checkInsertKey(List<ColumnMetadata> cols, Token at) {
            ColumnMetadata[] ck = schema.clusteringColumns();
            int named = 0;
            ColumnMetadata missing = null;
            for (ColumnMetadata c : ck) {
                if (cols.contains(c)) named++;
                else if (missing == null) missing = c;
            }
            if (missing == null) return;
            boolean staticOnly = named == 0;
            boolean anyStatic = false;
            for (ColumnMetadata c : cols) {
                if (c.role() == ColumnMetadata.Role.REGULAR) staticOnly = false;
                if (c.role() == ColumnMetadata.Role.STATIC) anyStatic = true;
            }
            if (staticOnly && anyStatic) return;
            throw CqlParser.error(at, "clustering column '" + missing.name() + "' (" + missing.type() + ") is missing from the INSERT"
                    + (named == 0 ? " (an INSERT without clustering columns may set static columns only)" : ""));
        }

        /**
         * As CQL: writing a regular column needs the full primary key by '='; writing static
         * columns only takes the partition key alone. {@code what} names the statement ("an UPDATE").
         */
        private void checkWriteKey(List<ColumnMetadata> written, List<Relation> where, Token at, String what) {
            boolean regular = schema.clusteringColumns().length == 0;
            for (ColumnMetadata c : written) regular |= c.role() == ColumnMetadata.Role.REGULAR;
            for (Relation r : where) {
                if (r.column.role() != ColumnMetadata.Role.CLUSTERING) continue;
                if (!regular) {
                    throw CqlParser.error(at, what + " of static columns only takes the partition key, not clustering column '"
                            + r.column.name() + "' (CQL refuses it too)");
                }
                if (r.operator != Operator.EQ) {
                    throw CqlParser.error(at, what + " of columns needs '=' on clustering column '" + r.column.name()
                            + "', not '" + r.operator.symbol + "' (CQL has no range deletion of columns)");
                }
            }
            if (!regular) return;
            for (ColumnMetadata c : schema.clusteringColumns()) {
                if (find(where, c, true) == null) {
                    throw CqlParser.error(at, "clustering column '" + c.name() + "' (" + c.type() + ") is missing from WHERE; "
                            + what + " of regular columns needs the full primary key");
                }
            }
        }

        private ModificationStatement update() {
            tableName();
            Term[] attrs = using(true);
            expectKeyword("set");
            List<Assignment> assignments = new ArrayList<>();
            List<ColumnMetadata> seen = new ArrayList<>();
            while (true) {
                Token at = peek();
                ColumnMetadata c = column();
                if (c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING) {
                    throw CqlParser.error(at, "primary key column '" + c.name() + "' cannot be SET; it belongs in WHERE");
                }
                if (seen.contains(c)) throw CqlParser.error(at, "column '" + c.name() + "' is set twice");
                seen.add(c);
                boolean append;
                Token op = next();
                if (op.isSymbol("+") && peek().isSymbol("=")) {
                    next();
                    append = true;
                } else if (op.isSymbol("=")) {
                    Token maybeSelf = peek();
                    if ((maybeSelf.type == T.IDENT || maybeSelf.type == T.QUOTED) && !isTermKeyword(maybeSelf)) {
                        ColumnMetadata self = column();
                        if (self != c) {
                            throw CqlParser.error(maybeSelf, "expected '" + c.name() + " + ...', found column '" + self.name() + "'");
                        }
                        Token plus = next();
                        if (!plus.isSymbol("+")) {
                            throw CqlParser.error(plus, plus.isSymbol("-") ? "removing from a collection (" + c.name()
                                    + " - ...) is not supported" : "expected '+' after '" + c.name() + "', found " + plus.describe());
                        }
                        append = true;
                    } else {
                        append = false;
                    }
                } else if (op.isSymbol("-") || op.isSymbol("[")) {
                    throw CqlParser.error(op, op.isSymbol("-") ? "removing from a collection (-=) is not supported"
                            : "setting a collection element (" + c.name() + "[...]) is not supported");
                } else if (op.isSymbol(".")) {
                    throw CqlParser.error(op, "setting a field of a user-defined type (" + c.name() + ".field = ...) is not supported "
                            + "by the Java writer (not done); set the whole value, or write it through flushline load");
                } else {
                    throw CqlParser.error(op, "expected '=' or '+=' after column '" + c.name() + "', found " + op.describe());
                }
                if (append && !c.isComplex()) {
                    throw CqlParser.error(at, "column '" + c.name() + "' (" + c.type() + "): appending needs a non-frozen list, set or map");
                }
                Token valueAt = peek();
                Term value = term(c, c.name(), c.type());
                if (!append && peek().isSymbol("+")) {
                    throw CqlParser.error(peek(), "prepending to a list (... + " + c.name() + ") is not supported");
                }
                if (append && !value.isMarker() && value.literal != null) {
                    throw CqlParser.error(valueAt, "collection literals are not supported; bind the elements with a marker");
                }
                assignments.add(new Assignment(c, append, value));
                if (peek().isSymbol(",")) {
                    next();
                    continue;
                }
                break;
            }
            Token whereAt = peek();
            List<Relation> where = where(false);
            List<ColumnMetadata> setColumns = new ArrayList<>();
            for (Assignment a : assignments) setColumns.add(a.column);
            checkWriteKey(setColumns, where, whereAt, "an UPDATE");
            return new ModificationStatement(schema, Kind.UPDATE, markers, List.of(), List.of(), assignments, where, attrs[0], attrs[1]);
        }

        private ModificationStatement delete() {
            List<ColumnMetadata> cols = new ArrayList<>();
            if (!peek().isKeyword("from")) {
                while (true) {
                    Token at = peek();
                    ColumnMetadata c = column();
                    if (peek().isSymbol("[")) {
                        throw CqlParser.error(peek(), "deleting a collection element (" + c.name() + "[...]) is not supported");
                    }
                    if (peek().isSymbol(".")) {
                        throw CqlParser.error(peek(), "deleting a field of a user-defined type (" + c.name() + ".field) is not supported "
                                + "by the Java writer (not done); write it through flushline load");
                    }
                    if (c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING) {
                        throw CqlParser.error(at, "primary key column '" + c.name() + "' cannot be deleted; delete the row");
                    }
                    if (cols.contains(c)) throw CqlParser.error(at, "column '" + c.name() + "' is named twice");
                    cols.add(c);
                    if (peek().isSymbol(",")) {
                        next();
                        continue;
                    }
                    break;
                }
            }
            expectKeyword("from");
            tableName();
            Term[] attrs = using(false);
            Token whereAt = peek();
            List<Relation> where = where(true);
            if (!cols.isEmpty()) checkWriteKey(cols, where, whereAt, "a DELETE");
            return new ModificationStatement(schema, Kind.DELETE, markers, cols, List.of(), List.of(), where, attrs[0], null);
        }

        // ---- pieces

        private void tableName() {
            Token first = next();
            if (first.type != T.IDENT && first.type != T.QUOTED) {
                throw CqlParser.error(first, "expected a table name, found " + first.describe());
            }
            String keyspace = null, table = first.text;
            if (peek().isSymbol(".")) {
                next();
                Token second = next();
                if (second.type != T.IDENT && second.type != T.QUOTED) {
                    throw CqlParser.error(second, "expected a table name, found " + second.describe());
                }
                keyspace = first.text;
                table = second.text;
            }
            if (!table.equals(schema.name()) || (keyspace != null && !keyspace.equals(schema.keyspace()))) {
                throw CqlParser.error(first, "the statement writes " + (keyspace == null ? "" : CqlParser.shown(keyspace) + ".")
                        + CqlParser.shown(table) + " but the table is " + schema.keyspace() + "." + schema.name());
            }
        }

        private ColumnMetadata column() {
            Token t = next();
            if (t.type != T.IDENT && t.type != T.QUOTED) throw CqlParser.error(t, "expected a column name, found " + t.describe());
            ColumnMetadata c = schema.column(t.text);
            if (c == null) {
                throw CqlParser.error(t, "unknown column '" + CqlParser.shown(t.text) + "'; table " + schema + " has no such column");
            }
            return c;
        }

        /** {@code USING TIMESTAMP t [AND TTL t]} in either order; returns {timestamp, ttl}. */
        private Term[] using(boolean ttlAllowed) {
            Term[] out = new Term[2];
            if (!peek().isKeyword("using")) return out;
            next();
            while (true) {
                Token t = next();
                if (t.isKeyword("timestamp")) {
                    if (out[0] != null) throw CqlParser.error(t, "TIMESTAMP is given twice");
                    out[0] = term(null, TIMESTAMP_MARKER_NAME, CqlType.of(CqlType.Kind.BIGINT));
                    if (!out[0].isMarker() && !(out[0].literal instanceof BigDecimal)) {
                        throw CqlParser.error(t, "USING TIMESTAMP needs an integer (microseconds) or a bind marker");
                    }
                } else if (t.isKeyword("ttl")) {
                    if (!ttlAllowed) throw CqlParser.error(t, "a DELETE takes no TTL");
                    if (out[1] != null) throw CqlParser.error(t, "TTL is given twice");
                    out[1] = term(null, TTL_MARKER_NAME, CqlType.of(CqlType.Kind.INT));
                    if (!out[1].isMarker() && !(out[1].literal instanceof BigDecimal)) {
                        throw CqlParser.error(t, "USING TTL needs an integer (seconds) or a bind marker");
                    }
                } else {
                    throw CqlParser.error(t, "expected TIMESTAMP or TTL after USING, found " + t.describe());
                }
                if (!peek().isKeyword("and")) return out;
                next();
            }
        }

        private List<Relation> where(boolean rangesAllowed) {
            expectKeyword("where");
            List<Relation> out = new ArrayList<>();
            while (true) {
                Token at = peek();
                ColumnMetadata c = column();
                if (c.role() != ColumnMetadata.Role.PARTITION_KEY && c.role() != ColumnMetadata.Role.CLUSTERING) {
                    throw CqlParser.error(at, "column '" + c.name() + "' in WHERE is not a primary key column");
                }
                Token opToken = next();
                Operator op = operator(opToken);
                if (op != Operator.EQ) {
                    if (c.role() == ColumnMetadata.Role.PARTITION_KEY) {
                        throw CqlParser.error(opToken, "partition key column '" + c.name() + "' takes only '=', not '" + op.symbol + "'");
                    }
                    if (!rangesAllowed) {
                        throw CqlParser.error(opToken, "an UPDATE needs '=' on every primary key column, not '" + op.symbol
                                + "' on '" + c.name() + "'");
                    }
                }
                for (Relation r : out) {
                    if (r.column == c && (r.operator == Operator.EQ || op == Operator.EQ || lower(r.operator) == lower(op))) {
                        throw CqlParser.error(at, "column '" + c.name() + "' is restricted twice in WHERE");
                    }
                }
                out.add(new Relation(c, op, term(c, c.name(), c.type())));
                if (out.get(out.size() - 1).value.literal == null && !out.get(out.size() - 1).value.isMarker()) {
                    throw CqlParser.error(at, "null is not a value for primary key column '" + c.name() + "'");
                }
                if (!peek().isKeyword("and")) break;
                next();
            }
            checkKeyShape(out);
            return out;
        }

        private static boolean lower(Operator op) {
            return op == Operator.GT || op == Operator.GE;
        }

        /** Every partition key column by '='; clustering: an '=' prefix, then at most one column with a range. */
        private void checkKeyShape(List<Relation> where) {
            Token end = peek();
            for (ColumnMetadata pk : schema.partitionKeyColumns()) {
                if (find(where, pk, true) == null) {
                    throw CqlParser.error(end, "partition key column '" + pk.name() + "' (" + pk.type() + ") is missing from WHERE");
                }
            }
            ColumnMetadata[] ck = schema.clusteringColumns();
            int n = 0;
            while (n < ck.length && find(where, ck[n], true) != null) n++;
            for (int j = n; j < ck.length; j++) {
                boolean ranged = find(where, ck[j], false) != null;
                boolean fixed = find(where, ck[j], true) != null;
                if ((fixed || ranged) && j > n) {
                    throw CqlParser.error(end, "clustering column '" + ck[j].name() + "' is restricted but '" + ck[n].name()
                            + "' before it is not fixed by '='");
                }
            }
        }

        private static Relation find(List<Relation> where, ColumnMetadata c, boolean eq) {
            for (Relation r : where) {
                if (r.column == c && (r.operator == Operator.EQ) == eq) return r;
            }
            return null;
        }

        private Operator operator(Token t) {
            if (t.isSymbol("=")) return Operator.EQ;
            if (t.isSymbol("<") || t.isSymbol(">")) {
                boolean eq = peek().isSymbol("=") && peek().line == t.line && peek().column == t.column + 1;
                if (eq) next();
                if (t.isSymbol("<")) return eq ? Operator.LE : Operator.LT;
                return eq ? Operator.GE : Operator.GT;
            }
            if (t.isKeyword("in")) throw CqlParser.error(t, "IN is not supported; write one row per key");
            throw CqlParser.error(t, "expected =, <, <=, > or >=, found " + t.describe());
        }

        private static boolean isTermKeyword(Token t) {
            return t.type == T.IDENT && (t.text.equals("null") || t.text.equals("true") || t.text.equals("false"));
        }

        /** A value position: registers a marker named {@code name} of {@code type}, or keeps a literal. */
        private Term term(ColumnMetadata column, String name, CqlType type) {
            Token t = next();
            if (t.isSymbol("?")) {
                markers.add(new Marker(name, type, column));
                return new Term(markers.size() - 1, null);
            }
            if (t.isSymbol(":")) {
                Token n = next();
                if (n.type != T.IDENT && n.type != T.QUOTED) throw CqlParser.error(n, "expected a marker name after ':', found " + n.describe());
                markers.add(new Marker(n.text, type, column));
                return new Term(markers.size() - 1, null);
            }
            switch (t.type) {
                case STRING:
                case UUID:
                    return new Term(-1, t.text);
                case HEX:
                    return new Term(-1, "0x" + t.text.substring(2));
                case NUMBER: {
                    Token x = peek();
                    if (t.text.equals("0") && x.type == T.IDENT && x.line == t.line && x.column == t.column + 1
                            && x.text.startsWith("x")) {
                        next();
                        return new Term(-1, "0x" + x.text.substring(1));
                    }
                    try {
                        return new Term(-1, new BigDecimal(t.text));
                    } catch (NumberFormatException e) {
                        throw CqlParser.error(t, "'" + CqlParser.shown(t.text) + "' is not a number");
                    }
                }
                case IDENT:
                    if (t.text.equals("null")) return new Term(-1, null);
                    if (t.text.equals("true")) return new Term(-1, Boolean.TRUE);
                    if (t.text.equals("false")) return new Term(-1, Boolean.FALSE);
                    break;
                case SYMBOL:
                    if (t.isSymbol("[") || t.isSymbol("{") || t.isSymbol("(")) {
                        throw CqlParser.error(t, "collection and tuple literals are not supported; bind the value with a marker");
                    }
                    break;
                default:
                    break;
            }
            throw CqlParser.error(t, "expected a value (?, :name or a literal), found " + t.describe());
        }
    }
}
