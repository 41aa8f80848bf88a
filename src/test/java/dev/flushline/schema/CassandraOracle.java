package dev.flushline.schema;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.ReversedType;
import org.apache.cassandra.schema.CQLTypeParser;
import org.apache.cassandra.schema.Types;

import java.util.ArrayList;
import java.util.List;

/** Test helper: cassandra-all 5.0.9 in client mode, as the reference for our types. */
final class CassandraOracle {
    private CassandraOracle() {}

    static {
        DatabaseDescriptor.clientInitialization();
    }

    static void init() {
        // the static initializer does the work; calling this forces it.
    }

    /** Cassandra's type for our type, built from the CQL spelling as a CREATE TABLE would. */
    static AbstractType<?> typeOf(CqlType t) {
        return CQLTypeParser.parse("ks", t.toString(), Types.none());
    }

    static AbstractType<?> reversed(AbstractType<?> t) {
        return ReversedType.getInstance(t);
    }

    static final CqlType.Kind[] NATIVE_KINDS;

    static {
        List<CqlType.Kind> ks = new ArrayList<>();
        for (CqlType.Kind k : CqlType.Kind.values()) {
            if (!k.isCollection()) ks.add(k);
        }
        NATIVE_KINDS = ks.toArray(new CqlType.Kind[0]);
    }

    /** Every supported type: natives, and list/set/map of natives (frozen or not). */
    static List<CqlType> allTypes() {
        List<CqlType> out = new ArrayList<>();
        for (CqlType.Kind k : NATIVE_KINDS) out.add(CqlType.of(k));
        for (boolean frozen : new boolean[] {false, true}) {
            for (CqlType.Kind k : NATIVE_KINDS) {
                out.add(CqlType.list(CqlType.of(k), frozen));
                out.add(CqlType.set(CqlType.of(k), frozen));
                out.add(CqlType.map(CqlType.of(k), CqlType.of(NATIVE_KINDS[(k.ordinal() + 3) % NATIVE_KINDS.length]), frozen));
                out.add(CqlType.map(CqlType.of(CqlType.Kind.TEXT), CqlType.of(k), frozen));
            }
        }
        return out;
    }
}
