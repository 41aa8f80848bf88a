package dev.flushline.schema;

/**
 * Per-type facts and value orders for {@link CqlType}: fixed lengths, marshal names and
 * comparators of serialized values, all in one place.
 */
final class CqlTypes {
    private CqlTypes() {}

    static int fixedLength(CqlType t) {
        throw new UnsupportedOperationException("TODO(schema helper)");
    }

    static String marshalName(CqlType t) {
        throw new UnsupportedOperationException("TODO(schema helper)");
    }

    static int compare(CqlType t, byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        throw new UnsupportedOperationException("TODO(schema helper)");
    }
}
