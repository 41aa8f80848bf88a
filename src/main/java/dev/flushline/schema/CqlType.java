package dev.flushline.schema;

/**
 * One CQL type from the closed set Flushline supports: the native types of {@link Kind} and
 * list, set and map of native types, frozen or not.
 *
 * <p>Instances are immutable and shared; native types are singletons ({@link #of(Kind)}).
 * Everything the sstable format needs to know about a type lives here, so that no other class
 * switches on type names: the marshal class name written in Statistics.db, the fixed value
 * length (values of fixed-length types are written without a length prefix), and the sort order
 * of serialized values (clustering columns, set elements, map keys).
 *
 * <p>Thread safety: immutable.
 */
public final class CqlType {

    /** The native CQL types, and the three collection kinds. */
    public enum Kind {
        ASCII, BIGINT, BLOB, BOOLEAN, DATE, DECIMAL, DOUBLE, FLOAT, INET, INT, SMALLINT, TEXT,
        TIME, TIMESTAMP, TIMEUUID, TINYINT, UUID, VARINT,
        LIST, SET, MAP;

        public boolean isCollection() {
            return this == LIST || this == SET || this == MAP;
        }
    }

    private final Kind kind;
    /** list/set element type, or map key type; null for native types. */
    private final CqlType elementType;
    /** map value type; null otherwise. */
    private final CqlType valueType;
    private final boolean frozen;
    /** Computed once: both are read per header write / per value write. */
    private final String marshalName;
    private final int fixedLength;

    private CqlType(Kind kind, CqlType elementType, CqlType valueType, boolean frozen) {
        this.kind = kind;
        this.elementType = elementType;
        this.valueType = valueType;
        this.frozen = frozen;
        this.marshalName = CqlTypes.marshalName(this);
        this.fixedLength = CqlTypes.fixedLength(this);
    }

    private static final CqlType[] NATIVE = new CqlType[Kind.values().length];

    static {
        for (Kind k : Kind.values()) {
            if (!k.isCollection()) {
                NATIVE[k.ordinal()] = new CqlType(k, null, null, false);
            }
        }
    }

    /** REQUIRES: {@code kind} is not a collection kind. */
    public static CqlType of(Kind kind) {
        if (kind.isCollection()) {
            throw new IllegalArgumentException(kind + " needs element types");
        }
        return NATIVE[kind.ordinal()];
    }

    /** REQUIRES: element types are native (collections of collections are refused by the parser). */
    public static CqlType list(CqlType element, boolean frozen) {
        return new CqlType(Kind.LIST, requireNative(element), null, frozen);
    }

    public static CqlType set(CqlType element, boolean frozen) {
        return new CqlType(Kind.SET, requireNative(element), null, frozen);
    }

    public static CqlType map(CqlType key, CqlType value, boolean frozen) {
        return new CqlType(Kind.MAP, requireNative(key), requireNative(value), frozen);
    }

    private static CqlType requireNative(CqlType t) {
        if (t.kind.isCollection()) {
            throw new IllegalArgumentException("nested collection " + t + " is not supported");
        }
        return t;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isCollection() {
        return kind.isCollection();
    }

    /** A non-frozen collection: stored as one cell per element (a "complex" column). */
    public boolean isMultiCell() {
        return kind.isCollection() && !frozen;
    }

    public boolean isFrozen() {
        return frozen;
    }

    /** list/set element type or map key type. REQUIRES: a collection. */
    public CqlType elementType() {
        return elementType;
    }

    /** map value type. REQUIRES: a map. */
    public CqlType valueType() {
        return valueType;
    }

    /**
     * Length in bytes of every non-empty value of this type when written without a length
     * prefix, or -1 for variable-length types. Matches cassandra-all 5.0.9's
     * {@code AbstractType.valueLengthIfFixed()}.
     */
    public int fixedLength() {
        return fixedLength;
    }

    /**
     * Cassandra's marshal type name, as written in the Statistics.db serialization header, e.g.
     * {@code org.apache.cassandra.db.marshal.Int32Type} or
     * {@code org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.UTF8Type)}.
     * Frozen collections carry Cassandra's {@code FrozenType(...)} wrapper.
     */
    public String marshalName() {
        return marshalName;
    }

    /**
     * Compares two serialized values of this type in Cassandra's order for the type (ascending;
     * DESC clustering is applied by the caller). An empty value sorts before every non-empty one.
     */
    public int compare(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        return CqlTypes.compare(this, a, aOffset, aLength, b, bOffset, bLength);
    }

    public int compare(byte[] a, byte[] b) {
        return compare(a, 0, a.length, b, 0, b.length);
    }

    /** The CQL spelling, e.g. {@code frozen<map<text, int>>}. */
    @Override
    public String toString() {
        String base;
        switch (kind) {
            case LIST: base = "list<" + elementType + ">"; break;
            case SET: base = "set<" + elementType + ">"; break;
            case MAP: base = "map<" + elementType + ", " + valueType + ">"; break;
            default: return kind.name().toLowerCase(java.util.Locale.ROOT);
        }
        return frozen ? "frozen<" + base + ">" : base;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof CqlType)) return false;
        CqlType t = (CqlType) o;
        return kind == t.kind && frozen == t.frozen
                && java.util.Objects.equals(elementType, t.elementType)
                && java.util.Objects.equals(valueType, t.valueType);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(kind, elementType, valueType, frozen);
    }
}
