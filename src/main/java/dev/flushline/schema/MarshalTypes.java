package dev.flushline.schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Types from their marshal names, as an sstable's serialization header spells them (the inverse of
 * {@link CqlType#marshalName()}): {@code org.apache.cassandra.db.marshal.Int32Type},
 * {@code ...ListType(...FrozenType(...SetType(...UTF8Type)))}, {@code ...UserType(ks,<hex name>,<hex
 * field>:<type>,...)}, {@code ...VectorType(<type> , 3)}; for a DESC clustering column
 * {@code ReversedType(<type>)}, and for a multi-column partition key
 * {@code CompositeType(<type>,<type>,...)}. The package may be left out, as Cassandra's own type
 * parser allows.
 *
 * <p>Freezing: a name spells {@code FrozenType(...)} only where freezing is not implied; inside a
 * frozen type (and inside a tuple) nothing is wrapped again. So a type is read frozen from the
 * first {@code FrozenType} (or tuple) down, and a collection field of a user-defined type that is
 * only ever used frozen reads as a frozen collection, whether or not its CREATE TYPE froze it (the
 * bytes are the same either way).
 *
 * <p>Refused, with the name: types Cassandra has that CQL tables do not use (DynamicCompositeType,
 * DateType, LexicalUUIDType, ... and custom classes), and ReversedType or CompositeType anywhere
 * but where the header puts them.
 *
 * <p>Thread safety: stateless.
 */
public final class MarshalTypes {
    private MarshalTypes() {}

    static final String PACKAGE = "org.apache.cassandra.db.marshal.";
    /** Deeper than any schema needs (CqlParser allows 32 levels of CQL types); bounds the recursion. */
    static final int MAX_DEPTH = 64;

    private static final Map<String, CqlType.Kind> NATIVE = new HashMap<>();

    static {
        for (CqlType.Kind k : CqlType.Kind.values()) {
            if (!k.isNative()) continue;
            String m = CqlType.of(k).marshalName();
            NATIVE.put(m.substring(PACKAGE.length()), k);
        }
    }

    /** A column's type (not a clustering column's ReversedType, nor a partition key's CompositeType). */
    public static CqlType parse(String marshalName) {
        Node n = new Reader(marshalName).whole();
        return type(n, false, marshalName);
    }

    /** Whether a clustering type is DESC: {@code ReversedType(...)}. */
    public static boolean isReversed(String marshalName) {
        Node n = new Reader(marshalName).whole();
        return simpleName(n).equals("ReversedType");
    }

    /** A clustering column's type, inside its ReversedType if it has one. */
    public static CqlType parseClustering(String marshalName) {
        Node n = new Reader(marshalName).whole();
        if (simpleName(n).equals("ReversedType")) n = onlyArgument(n, marshalName);
        return type(n, false, marshalName);
    }

    /** The partition key's column types: a CompositeType's components, or the one type. */
    public static List<CqlType> parsePartitionKey(String marshalName) {
        Node n = new Reader(marshalName).whole();
        List<CqlType> out = new ArrayList<>();
        if (simpleName(n).equals("CompositeType")) {
            if (n.args == null || n.args.isEmpty()) throw refused(marshalName, "a CompositeType without components");
            for (Node c : n.args) out.add(type(c, false, marshalName));
        } else {
            out.add(type(n, false, marshalName));
        }
        return out;
    }

    // ---- the grammar: name [ '(' arg (',' arg)* ')' ], arg := [hex ':'] name-with-args ---------------

    /** One parsed name: the class, its arguments (null without parentheses), and a UDT field's hex name before ':'. */
    private static final class Node {
        String name;
        String fieldHex;
        List<Node> args;
    }

    private static final class Reader {
        private final String s;
        private int pos;
        private int depth;

        Reader(String s) {
            this.s = s;
        }

        Node whole() {
            Node n = node();
            skipSpaces();
            if (pos != s.length()) throw refused(s, "unexpected '" + s.charAt(pos) + "' at character " + (pos + 1));
            return n;
        }

        private Node node() {
            if (++depth > MAX_DEPTH) throw refused(s, "types nested deeper than " + MAX_DEPTH + " levels");
            skipSpaces();
            int start = pos;
            while (pos < s.length() && "(),: ".indexOf(s.charAt(pos)) < 0) pos++;
            String name = s.substring(start, pos);
            if (name.isEmpty()) throw refused(s, "a type name expected at character " + (pos + 1));
            skipSpaces();
            Node n;
            if (pos < s.length() && s.charAt(pos) == ':') {
                pos++;
                n = node();
                n.fieldHex = name;
                depth--;
                return n;
            }
            n = new Node();
            n.name = name;
            if (pos < s.length() && s.charAt(pos) == '(') {
                pos++;
                n.args = new ArrayList<>();
                skipSpaces();
                if (pos < s.length() && s.charAt(pos) == ')') {
                    pos++;
                } else {
                    while (true) {
                        n.args.add(node());
                        skipSpaces();
                        if (pos < s.length() && s.charAt(pos) == ',') {
                            pos++;
                            continue;
                        }
                        if (pos < s.length() && s.charAt(pos) == ')') {
                            pos++;
                            break;
                        }
                        throw refused(s, "',' or ')' expected at character " + (pos + 1));
                    }
                }
            }
            depth--;
            return n;
        }

        private void skipSpaces() {
            while (pos < s.length() && s.charAt(pos) == ' ') pos++;
        }
    }

    private static String simpleName(Node n) {
        // A class outside Cassandra's marshal package keeps its package, and is refused as unknown.
        return n.name.startsWith(PACKAGE) ? n.name.substring(PACKAGE.length()) : n.name;
    }

    private static Node onlyArgument(Node n, String whole) {
        if (n.args == null || n.args.size() != 1) throw refused(whole, simpleName(n) + " takes one type");
        return n.args.get(0);
    }

    /** {@code frozen}: inside a frozen type or a tuple, where nothing spells FrozenType again. */
    private static CqlType type(Node n, boolean frozen, String whole) {
        if (n.fieldHex != null) throw refused(whole, "a field name outside a UserType");
        String name = simpleName(n);
        CqlType.Kind k = NATIVE.get(name);
        if (k != null) {
            if (n.args != null) throw refused(whole, name + " takes no parameters");
            return CqlType.of(k);
        }
        try {
            switch (name) {
                case "FrozenType": {
                    CqlType t = type(onlyArgument(n, whole), true, whole);
                    if (t.isNative()) throw refused(whole, "FrozenType of " + t);
                    return t.freeze();
                }
                case "ListType":
                    return CqlType.list(type(onlyArgument(n, whole), frozen, whole), frozen);
                case "SetType":
                    return CqlType.set(type(onlyArgument(n, whole), frozen, whole), frozen);
                case "MapType": {
                    if (n.args == null || n.args.size() != 2) throw refused(whole, "MapType takes two types");
                    return CqlType.map(type(n.args.get(0), frozen, whole), type(n.args.get(1), frozen, whole), frozen);
                }
                case "TupleType": {
                    if (n.args == null || n.args.isEmpty()) throw refused(whole, "a TupleType without components");
                    List<CqlType> cs = new ArrayList<>();
                    for (Node c : n.args) cs.add(type(c, true, whole));
                    return CqlType.tuple(cs);
                }
                case "VectorType": {
                    if (n.args == null || n.args.size() != 2 || n.args.get(1).args != null) {
                        throw refused(whole, "VectorType takes a type and a dimension");
                    }
                    int dimension;
                    try {
                        dimension = Integer.parseInt(n.args.get(1).name);
                    } catch (NumberFormatException e) {
                        throw refused(whole, "vector dimension '" + n.args.get(1).name + "' is not a number");
                    }
                    return CqlType.vector(type(n.args.get(0), frozen, whole), dimension);
                }
                case "UserType":
                    return userType(n, frozen, whole);
                case "ReversedType":
                case "CompositeType":
                    throw refused(whole, name + " inside another type");
                default:
                    throw refused(whole, "type " + n.name + " is not one CQL tables use (or not one Flushline reads)");
            }
        } catch (IllegalArgumentException e) {
            if (e instanceof Refused) throw e;
            throw refused(whole, e.getMessage());
        }
    }

    private static CqlType userType(Node n, boolean frozen, String whole) {
        if (n.args == null || n.args.size() < 3) throw refused(whole, "a UserType needs a keyspace, a name and fields");
        Node ks = n.args.get(0), typeName = n.args.get(1);
        if (ks.args != null || ks.fieldHex != null || typeName.args != null || typeName.fieldHex != null) {
            throw refused(whole, "a UserType starts with its keyspace and hex name");
        }
        List<String> names = new ArrayList<>();
        List<CqlType> types = new ArrayList<>();
        for (int i = 2; i < n.args.size(); i++) {
            Node f = n.args.get(i);
            if (f.fieldHex == null) throw refused(whole, "UserType field " + (i - 1) + " has no hex name");
            names.add(unhex(f.fieldHex, whole));
            String hex = f.fieldHex;
            f.fieldHex = null;
            try {
                types.add(type(f, frozen, whole));
            } finally {
                f.fieldHex = hex;
            }
        }
        return CqlType.udt(ks.name, unhex(typeName.name, whole), names, types, frozen);
    }

    private static String unhex(String hex, String whole) {
        if (hex.length() % 2 != 0) throw refused(whole, "'" + hex + "' is not a hex name");
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16), lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) throw refused(whole, "'" + hex + "' is not a hex name");
            b[i] = (byte) (hi << 4 | lo);
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A marshal name this class does not read: the message names it. */
    public static final class Refused extends IllegalArgumentException {
        Refused(String message) {
            super(message);
        }
    }

    private static Refused refused(String whole, String why) {
        String shown = whole.length() > 300 ? whole.substring(0, 300) + "..." : whole;
        return new Refused("type " + shown + ": " + why);
    }
}
