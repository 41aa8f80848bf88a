package dev.flushline.schema;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.ReversedType;
import org.apache.cassandra.schema.CQLTypeParser;
import org.apache.cassandra.schema.Types;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Test helper: cassandra-all 5.0.9 in client mode, as the reference for our types. */
final class CassandraOracle {
    private CassandraOracle() {}

    static {
        DatabaseDescriptor.clientInitialization();
    }

    static void init() {
        // the static initializer does the work; calling this forces it.
    }

    /** Cassandra's type for our type, built from the CQL spelling as a CREATE TABLE would, with its UDTs defined in "ks". */
    static AbstractType<?> typeOf(CqlType t) {
        return CQLTypeParser.parse("ks", t.toString(), typesFor(t));
    }

    /** Cassandra's Types holding every UDT that {@code ts} use, as CREATE TYPE statements would define them. */
    static Types typesFor(CqlType... ts) {
        Map<String, CqlType> udts = new LinkedHashMap<>();
        for (CqlType t : ts) collectUdts(t, udts);
        if (udts.isEmpty()) return Types.none();
        Types.RawBuilder b = Types.rawBuilder("ks");
        for (CqlType u : udts.values()) {
            List<String> names = new ArrayList<>(), types = new ArrayList<>();
            for (int i = 0; i < u.size(); i++) {
                names.add(u.fieldName(i));
                types.add(u.component(i).toString());
            }
            b.add(u.typeName(), names, types);
        }
        return b.build();
    }

    static void collectUdts(CqlType t, Map<String, CqlType> out) {
        if (t.kind() == CqlType.Kind.UDT) {
            CqlType defined = t.isFrozen() ? unfrozen(t) : t;
            out.putIfAbsent(t.typeName(), defined);
        }
        if (t.elementType() != null) collectUdts(t.elementType(), out);
        if (t.valueType() != null) collectUdts(t.valueType(), out);
        for (int i = 0; i < t.size(); i++) collectUdts(t.component(i), out);
    }

    private static CqlType unfrozen(CqlType u) {
        List<String> names = new ArrayList<>();
        List<CqlType> types = new ArrayList<>();
        for (int i = 0; i < u.size(); i++) {
            names.add(u.fieldName(i));
            types.add(u.component(i));
        }
        return CqlType.udt(u.keyspace(), u.typeName(), names, types, false);
    }

    static AbstractType<?> reversed(AbstractType<?> t) {
        return ReversedType.getInstance(t);
    }

    /** The native types whose values are written (counter excluded: a counter is incremented, never written). */
    static final CqlType.Kind[] NATIVE_KINDS;

    static {
        List<CqlType.Kind> ks = new ArrayList<>();
        for (CqlType.Kind k : CqlType.Kind.values()) {
            if (k.isNative() && k != CqlType.Kind.COUNTER) ks.add(k);
        }
        NATIVE_KINDS = ks.toArray(new CqlType.Kind[0]);
    }

    static CqlType n(CqlType.Kind k) {
        return CqlType.of(k);
    }

    static CqlType udt(String name, boolean frozen, Object... namesAndTypes) {
        List<String> names = new ArrayList<>();
        List<CqlType> types = new ArrayList<>();
        for (int i = 0; i < namesAndTypes.length; i += 2) {
            names.add((String) namesAndTypes[i]);
            types.add((CqlType) namesAndTypes[i + 1]);
        }
        return CqlType.udt("ks", name, names, types, frozen);
    }

    static final CqlType INT = n(CqlType.Kind.INT), TEXT = n(CqlType.Kind.TEXT), FLOAT = n(CqlType.Kind.FLOAT);

    /** UDTs used by the fixed type list; a point, an address with a non-frozen collection field, a nested one, a mixed-case one. */
    static final CqlType POINT = udt("point", false, "x", n(CqlType.Kind.DOUBLE), "y", n(CqlType.Kind.DOUBLE));
    static final CqlType ADDRESS = udt("address", false, "street", TEXT, "zip", INT, "tags", CqlType.list(TEXT, false));
    static final CqlType SHAPE = udt("shape", false, "name", TEXT, "centre", POINT.freeze(),
            "corners", CqlType.list(POINT.freeze(), true), "span", CqlType.of(CqlType.Kind.DURATION));
    static final CqlType MIXED = udt("Mixed Case", false, "Zip", INT, "zip", TEXT, "a\"b", n(CqlType.Kind.BIGINT));

    /**
     * Every supported type of interest: natives, list/set/map of natives (frozen or not), and a
     * fixed list of tuples, UDTs, vectors, durations and nested types.
     */
    static List<CqlType> allTypes() {
        List<CqlType> out = new ArrayList<>();
        for (CqlType.Kind k : NATIVE_KINDS) out.add(CqlType.of(k));
        for (boolean frozen : new boolean[] {false, true}) {
            for (CqlType.Kind k : NATIVE_KINDS) {
                out.add(CqlType.list(CqlType.of(k), frozen));
                if (k != CqlType.Kind.DURATION) {
                    out.add(CqlType.set(CqlType.of(k), frozen));
                    out.add(CqlType.map(CqlType.of(k), CqlType.of(NATIVE_KINDS[(k.ordinal() + 3) % NATIVE_KINDS.length]), frozen));
                }
                out.add(CqlType.map(CqlType.of(CqlType.Kind.TEXT), CqlType.of(k), frozen));
            }
        }
        out.addAll(compositeTypes());
        Random r = new Random(11);
        for (int i = 0; i < 150; i++) out.add(TypeGen.any(r, 3, true));
        return out;
    }

    static List<CqlType> compositeTypes() {
        List<CqlType> out = new ArrayList<>();
        CqlType duration = CqlType.of(CqlType.Kind.DURATION);
        out.add(CqlType.of(CqlType.Kind.COUNTER));
        out.add(CqlType.tuple(List.of(INT, TEXT)));
        out.add(CqlType.tuple(List.of(INT, CqlType.list(INT, false), TEXT)));
        out.add(CqlType.tuple(List.of(duration)));
        out.add(CqlType.tuple(List.of(CqlType.tuple(List.of(INT, INT)), FLOAT, POINT)));
        for (CqlType u : new CqlType[] {POINT, ADDRESS, SHAPE, MIXED}) {
            out.add(u);
            out.add(u.freeze());
        }
        out.add(CqlType.vector(FLOAT, 3));
        out.add(CqlType.vector(FLOAT, 4096));
        out.add(CqlType.vector(TEXT, 2));
        out.add(CqlType.vector(CqlType.list(INT, true), 2));
        out.add(CqlType.vector(CqlType.list(INT, false), 2));
        out.add(CqlType.vector(CqlType.vector(INT, 2), 2));
        out.add(CqlType.vector(POINT.freeze(), 2));
        out.add(CqlType.vector(POINT, 2));
        out.add(CqlType.vector(n(CqlType.Kind.BIGINT), 1));
        out.add(CqlType.vector(n(CqlType.Kind.UUID), 2));
        out.add(CqlType.vector(n(CqlType.Kind.TIMEUUID), 2));
        out.add(CqlType.vector(n(CqlType.Kind.BOOLEAN), 3));
        out.add(CqlType.vector(n(CqlType.Kind.VARINT), 2));
        out.add(CqlType.vector(n(CqlType.Kind.SMALLINT), 2));
        out.add(CqlType.vector(n(CqlType.Kind.DOUBLE), 2));
        out.add(CqlType.vector(duration, 2));
        out.add(CqlType.list(CqlType.list(INT, true), false));
        out.add(CqlType.set(CqlType.tuple(List.of(INT, TEXT)), false));
        out.add(CqlType.set(CqlType.tuple(List.of(INT, duration)), true));
        out.add(CqlType.map(POINT.freeze(), CqlType.set(INT, true), false));
        out.add(CqlType.map(CqlType.list(INT, true), CqlType.tuple(List.of(INT, INT)), true));
        out.add(CqlType.list(POINT.freeze(), false));
        out.add(CqlType.list(POINT.freeze(), true));
        out.add(CqlType.map(TEXT, duration, false));
        out.add(CqlType.list(duration, true));
        out.add(CqlType.set(CqlType.vector(FLOAT, 2), false));
        out.add(CqlType.map(CqlType.vector(INT, 2), CqlType.vector(TEXT, 2), true));
        return out;
    }
}
