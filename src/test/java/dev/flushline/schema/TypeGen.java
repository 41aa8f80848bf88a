package dev.flushline.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Test helper: random CQL types that Cassandra 5.0 accepts as column types, nested up to a
 * depth: natives (no counter), collections with Cassandra's rules (frozen inside non-frozen,
 * no duration as set element or map key), tuples, vectors and UDTs ("u0", "u1", ... in keyspace
 * ks, with random fields). The same seed gives the same types.
 */
final class TypeGen {
    private TypeGen() {}

    static CqlType nativeType(Random r) {
        CqlType.Kind[] ks = CassandraOracle.NATIVE_KINDS;
        return CqlType.of(ks[r.nextInt(ks.length)]);
    }

    /** A native type that may be a set element or map key (no duration). */
    static CqlType keyNative(Random r) {
        while (true) {
            CqlType t = nativeType(r);
            if (t.kind() != CqlType.Kind.DURATION) return t;
        }
    }

    private static int udtCounter;

    /**
     * A random type; {@code topLevel} types may be non-frozen collections or UDTs (whose fields
     * are then not multi-cell); below that, everything is frozen.
     */
    static CqlType any(Random r, int depth, boolean topLevel) {
        if (depth <= 0 || r.nextInt(3) == 0) return nativeType(r);
        switch (r.nextInt(7)) {
            case 0: return CqlType.list(inner(r, depth), frozenOr(r, topLevel));
            case 1: return CqlType.set(key(r, depth), frozenOr(r, topLevel));
            case 2: return CqlType.map(key(r, depth), inner(r, depth), frozenOr(r, topLevel));
            case 3: {
                List<CqlType> cs = new ArrayList<>();
                int n = 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) cs.add(any(r, depth - 1, false));
                return CqlType.tuple(cs);
            }
            case 4: return CqlType.vector(r.nextBoolean() ? nativeType(r) : any(r, depth - 1, false).freeze(), 1 + r.nextInt(4));
            default: {
                List<String> names = new ArrayList<>();
                List<CqlType> types = new ArrayList<>();
                int n = 1 + r.nextInt(4);
                boolean frozen = frozenOr(r, topLevel);
                for (int i = 0; i < n; i++) {
                    names.add(r.nextInt(5) == 0 ? "F" + i : "f" + i);
                    CqlType f = any(r, depth - 1, false);
                    types.add(frozen ? f : f.freeze());
                }
                return CqlType.udt("ks", "u" + (udtCounter++), names, types, frozen);
            }
        }
    }

    private static boolean frozenOr(Random r, boolean topLevel) {
        return !topLevel || r.nextBoolean();
    }

    private static CqlType inner(Random r, int depth) {
        return any(r, depth - 1, false).freeze();
    }

    private static CqlType key(Random r, int depth) {
        while (true) {
            CqlType t = inner(r, depth);
            if (t.kind() != CqlType.Kind.DURATION) return t;
        }
    }
}
