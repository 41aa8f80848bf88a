package dev.flushline.schema;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One CQL type: a native type of {@link Kind} (duration and counter included), a list, set or map,
 * a tuple, a user-defined type, or a vector, nested as CQL allows.
 *
 * <p>Instances are immutable and shared; native types are singletons ({@link #of(Kind)}).
 * Everything the sstable format needs to know about a type lives here, so that no other class
 * switches on type names: the marshal class name written in Statistics.db, the fixed value
 * length (values of fixed-length types are written without a length prefix), the sort order
 * of serialized values (clustering columns, set elements, map keys), that order as byte strings
 * (the byte-comparable forms of {@link ComparableBytes}, beside it), and, for a multi-cell type,
 * what orders its cell paths ({@link #cellPathType()}) and what type a cell's value has
 * ({@link #cellValueType}).
 *
 * <p>Frozen-ness is kept as declared, as Cassandra keeps it: it decides whether a column is
 * multi-cell (a non-frozen collection or user-defined type at the top of a column) and how the
 * marshal name is spelled (Cassandra prints {@code FrozenType(...)} only where freezing is not
 * implied by an enclosing frozen type). Below the top of a column every value is serialized
 * whole, whatever its declared frozen-ness. Tuples and vectors are always frozen.
 *
 * <p>Serialized layouts, for reference (all integers big-endian):
 * <pre>
 *   list, set     int32 count, then per element: int32 length, bytes
 *   map           int32 count, then per entry: int32 length, key bytes, int32 length, value bytes
 *   tuple, UDT    per component in declaration order: int32 length (-1 = null), bytes
 *                 (a UDT written by Cassandra carries every field, trailing nulls included)
 *   vector        fixed-length elements: the elements back to back, no lengths;
 *                 variable-length ones: per element an unsigned vint length, bytes
 *   duration      signed (zigzag) vints: months, days, nanoseconds
 *   counter       a counter context (see the sstable reader); never written by Flushline
 * </pre>
 * A non-frozen UDT stores one cell per non-null field; the cell path is the field's index as
 * a 2-byte big-endian short (so that fields may be renamed), ordered as signed shorts.
 *
 * <p>Thread safety: immutable.
 */
public final class CqlType {

    /** The native CQL types, then the composite kinds. */
    public enum Kind {
        ASCII, BIGINT, BLOB, BOOLEAN, DATE, DECIMAL, DOUBLE, FLOAT, INET, INT, SMALLINT, TEXT,
        TIME, TIMESTAMP, TIMEUUID, TINYINT, UUID, VARINT, DURATION, COUNTER,
        LIST, SET, MAP, TUPLE, UDT, VECTOR;

        public boolean isCollection() {
            return this == LIST || this == SET || this == MAP;
        }

        /** A type without parameters: one of the natives, duration and counter included. */
        public boolean isNative() {
            return ordinal() < LIST.ordinal();
        }
    }

    private final Kind kind;
    /** list/set element type, map key type, vector element type; null otherwise. */
    private final CqlType elementType;
    /** map value type; null otherwise. */
    private final CqlType valueType;
    /** As declared for collections and UDTs; true for tuples and vectors; false for natives. */
    private final boolean frozen;
    /** Tuple components or UDT field types, in declaration order; empty otherwise. */
    private final CqlType[] components;
    /** UDT field names (as stored: case kept), in declaration order; empty otherwise. */
    private final String[] fieldNames;
    /** UDT keyspace and name; null otherwise. */
    private final String keyspace;
    private final String typeName;
    /** Vector dimension; 0 otherwise. */
    private final int dimension;
    /** Computed once: both are read per header write / per value write. */
    private final String marshalName;
    private final int fixedLength;

    private static final CqlType[] NO_TYPES = new CqlType[0];
    private static final String[] NO_NAMES = new String[0];

    private CqlType(Kind kind, CqlType elementType, CqlType valueType, boolean frozen, CqlType[] components,
                    String[] fieldNames, String keyspace, String typeName, int dimension) {
        this.kind = kind;
        this.elementType = elementType;
        this.valueType = valueType;
        this.frozen = frozen;
        this.components = components;
        this.fieldNames = fieldNames;
        this.keyspace = keyspace;
        this.typeName = typeName;
        this.dimension = dimension;
        this.marshalName = CqlTypes.marshalName(this, false);
        this.fixedLength = CqlTypes.fixedLength(this);
    }

    private static final CqlType[] NATIVE = new CqlType[Kind.values().length];

    static {
        for (Kind k : Kind.values()) {
            if (k.isNative()) {
                NATIVE[k.ordinal()] = new CqlType(k, null, null, false, NO_TYPES, NO_NAMES, null, null, 0);
            }
        }
    }

    /** REQUIRES: {@code kind} is native. */
    public static CqlType of(Kind kind) {
        if (!kind.isNative()) {
            throw new IllegalArgumentException(kind + " needs parameters");
        }
        return NATIVE[kind.ordinal()];
    }

    /**
     * A list. REQUIRES: the element is not a counter; a non-frozen list's element is not a
     * non-frozen collection or UDT (the parser refuses those with Cassandra's message).
     */
    public static CqlType list(CqlType element, boolean frozen) {
        return new CqlType(Kind.LIST, checkInner(element, frozen), null, frozen, NO_TYPES, NO_NAMES, null, null, 0);
    }

    public static CqlType set(CqlType element, boolean frozen) {
        return new CqlType(Kind.SET, checkInner(element, frozen), null, frozen, NO_TYPES, NO_NAMES, null, null, 0);
    }

    public static CqlType map(CqlType key, CqlType value, boolean frozen) {
        return new CqlType(Kind.MAP, checkInner(key, frozen), checkInner(value, frozen), frozen, NO_TYPES, NO_NAMES, null, null, 0);
    }

    /** A tuple; its components are frozen, as Cassandra freezes them. REQUIRES: at least one component, no counter. */
    public static CqlType tuple(List<CqlType> componentTypes) {
        if (componentTypes.isEmpty()) throw new IllegalArgumentException("a tuple needs at least one component");
        CqlType[] c = new CqlType[componentTypes.size()];
        for (int i = 0; i < c.length; i++) c[i] = notCounter(componentTypes.get(i)).freeze();
        return new CqlType(Kind.TUPLE, null, null, true, c, NO_NAMES, null, null, 0);
    }

    /**
     * A user-defined type of {@code keyspace}. Field types are kept as declared (a field may be
     * declared a non-frozen collection; its values are still serialized whole).
     * REQUIRES: at least one field, distinct names, no counter.
     */
    public static CqlType udt(String keyspace, String name, List<String> fieldNames, List<CqlType> fieldTypes, boolean frozen) {
        if (fieldNames.isEmpty() || fieldNames.size() != fieldTypes.size()) {
            throw new IllegalArgumentException("a user-defined type needs one type per field, and at least one field");
        }
        if (fieldNames.size() > Short.MAX_VALUE) {
            throw new IllegalArgumentException("a user-defined type has at most " + Short.MAX_VALUE + " fields");
        }
        String[] names = fieldNames.toArray(new String[0]);
        CqlType[] types = new CqlType[names.length];
        for (int i = 0; i < types.length; i++) types[i] = notCounter(fieldTypes.get(i));
        for (int i = 0; i < names.length; i++) {
            for (int j = 0; j < i; j++) {
                if (names[i].equals(names[j])) throw new IllegalArgumentException("duplicate field name " + names[i]);
            }
        }
        return new CqlType(Kind.UDT, null, null, frozen, types, names, Objects.requireNonNull(keyspace),
                Objects.requireNonNull(name), 0);
    }

    /** The longest vector whose values still fit a cell: Cassandra sizes values with a Java int. */
    public static final int MAX_VECTOR_BYTES = Integer.MAX_VALUE - 64;

    /**
     * A vector of {@code dimension} elements. REQUIRES: dimension >= 1; a fixed-length element
     * type times the dimension fits {@link #MAX_VECTOR_BYTES}; no counter.
     */
    public static CqlType vector(CqlType element, int dimension) {
        if (dimension < 1) throw new IllegalArgumentException("a vector needs a positive dimension, not " + dimension);
        notCounter(element);
        if (element.fixedLength() > 0 && (long) element.fixedLength() * dimension > MAX_VECTOR_BYTES) {
            throw new IllegalArgumentException("vector<" + element + ", " + dimension + "> values would be beyond "
                    + MAX_VECTOR_BYTES + " bytes");
        }
        return new CqlType(Kind.VECTOR, element, null, true, NO_TYPES, NO_NAMES, null, null, dimension);
    }

    private static CqlType notCounter(CqlType t) {
        if (t.kind == Kind.COUNTER) throw new IllegalArgumentException("counters are not allowed inside other types");
        return t;
    }

    private static CqlType checkInner(CqlType t, boolean outerFrozen) {
        notCounter(t);
        if (!outerFrozen && t.isMultiCell()) {
            throw new IllegalArgumentException("non-frozen " + t + " inside a non-frozen collection");
        }
        return t;
    }

    /**
     * This type as {@code frozen<...>} freezes it, with Cassandra's rules: a collection is frozen
     * and so, recursively, are its element, key and value types; a UDT is frozen (its fields are
     * left as declared); natives, tuples and vectors are returned unchanged.
     */
    public CqlType freeze() {
        switch (kind) {
            case LIST: return frozen && elementType == elementType.freeze() ? this : list(elementType.freeze(), true);
            case SET: return frozen && elementType == elementType.freeze() ? this : set(elementType.freeze(), true);
            case MAP: {
                CqlType k = elementType.freeze(), v = valueType.freeze();
                return frozen && k == elementType && v == valueType ? this : map(k, v, true);
            }
            case UDT: return frozen ? this : new CqlType(Kind.UDT, null, null, true, components, fieldNames, keyspace, typeName, 0);
            default: return this;
        }
    }

    public Kind kind() {
        return kind;
    }

    public boolean isCollection() {
        return kind.isCollection();
    }

    public boolean isNative() {
        return kind.isNative();
    }

    /**
     * A non-frozen collection or user-defined type: stored as one cell per element or field
     * (a "complex" column), when it is a column's type.
     */
    public boolean isMultiCell() {
        return (kind.isCollection() || kind == Kind.UDT) && !frozen;
    }

    public boolean isFrozen() {
        return frozen;
    }

    public boolean isCounter() {
        return kind == Kind.COUNTER;
    }

    /** Whether this type is or holds a duration anywhere (Cassandra's referencesDuration). */
    public boolean referencesDuration() {
        if (kind == Kind.DURATION) return true;
        if (elementType != null && elementType.referencesDuration()) return true;
        if (valueType != null && valueType.referencesDuration()) return true;
        for (CqlType c : components) if (c.referencesDuration()) return true;
        return false;
    }

    /** list/set element type, map key type or vector element type. REQUIRES: one of those. */
    public CqlType elementType() {
        return elementType;
    }

    /** map value type. REQUIRES: a map. */
    public CqlType valueType() {
        return valueType;
    }

    /** Number of tuple components or UDT fields; 0 otherwise. */
    public int size() {
        return components.length;
    }

    /** Tuple component or UDT field type {@code i}. */
    public CqlType component(int i) {
        return components[i];
    }

    /** UDT field name {@code i}, as stored (case kept). */
    public String fieldName(int i) {
        return fieldNames[i];
    }

    /** Index of the UDT field with this exact name, or -1. */
    public int fieldIndex(String name) {
        for (int i = 0; i < fieldNames.length; i++) if (fieldNames[i].equals(name)) return i;
        return -1;
    }

    /** UDT keyspace. */
    public String keyspace() {
        return keyspace;
    }

    /** UDT name, as stored (case kept). */
    public String typeName() {
        return typeName;
    }

    /** Vector dimension. */
    public int dimension() {
        return dimension;
    }

    private static final CqlType TIMEUUID_PATHS = of(Kind.TIMEUUID);
    private static final CqlType SHORT_PATHS = of(Kind.SMALLINT);

    /**
     * The type that orders the cell paths of a multi-cell column: time-UUIDs for a list, the
     * element type for a set, the key type for a map, a short (the field index) for a UDT.
     * REQUIRES: {@link #isMultiCell()}.
     */
    public CqlType cellPathType() {
        switch (kind) {
            case LIST: return TIMEUUID_PATHS;
            case SET:
            case MAP: return elementType;
            case UDT: return SHORT_PATHS;
            default: throw new IllegalStateException(this + " has no cell paths");
        }
    }

    /**
     * The type of the value of the cell at {@code path} in a multi-cell column: the element type
     * for a list, the value type for a map, the field's type for a UDT, null for a set (its cells
     * are empty). Null as well for a UDT path that is not 2 bytes or names no field.
     * REQUIRES: {@link #isMultiCell()}.
     */
    public CqlType cellValueType(byte[] path, int pathOffset, int pathLength) {
        switch (kind) {
            case LIST: return elementType;
            case SET: return null;
            case MAP: return valueType;
            case UDT: {
                int i = fieldIndexOfPath(path, pathOffset, pathLength);
                return i < 0 ? null : components[i];
            }
            default: throw new IllegalStateException(this + " has no cell paths");
        }
    }

    /** The field index a UDT cell path holds, or -1 if it is not 2 bytes or out of range. */
    public int fieldIndexOfPath(byte[] path, int pathOffset, int pathLength) {
        if (pathLength != 2) return -1;
        int i = (short) (((path[pathOffset] & 0xFF) << 8) | (path[pathOffset + 1] & 0xFF));
        return i >= 0 && i < components.length ? i : -1;
    }

    /** The cell path of UDT field {@code i}: the index as a 2-byte big-endian short. */
    public static byte[] fieldPath(int i) {
        return new byte[] {(byte) (i >> 8), (byte) i};
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
     * Frozen collections and UDTs carry Cassandra's {@code FrozenType(...)} wrapper.
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

    /**
     * The width at which this type's values order, in {@link #compare}, as signed big-endian numbers:
     * 4 for int, 8 for bigint and timestamp; 0 for every other type. Values of other widths (empty,
     * say) do not order that way.
     */
    public int signedOrderWidth() {
        return CqlTypes.signedOrderWidth(this);
    }

    /**
     * A value of {@code width} bytes at {@code offset}, as the number {@link #compare} orders it by;
     * {@code width} is a type's {@link #signedOrderWidth()} (not 0), taken once by the caller so
     * that each value costs no type switch.
     */
    public static long signedOrderValue(int width, byte[] a, int offset) {
        return CqlTypes.signedOrderValue(width, a, offset);
    }

    /** The CQL spelling, e.g. {@code frozen<map<text, int>>}, {@code frozen<address>}, {@code vector<float, 3>}. */
    @Override
    public String toString() {
        String base;
        switch (kind) {
            case LIST: base = "list<" + elementType + ">"; break;
            case SET: base = "set<" + elementType + ">"; break;
            case MAP: base = "map<" + elementType + ", " + valueType + ">"; break;
            case UDT: base = cqlName(typeName); break;
            case TUPLE: {
                StringBuilder sb = new StringBuilder("tuple<");
                for (int i = 0; i < components.length; i++) sb.append(i == 0 ? "" : ", ").append(components[i]);
                return sb.append('>').toString();
            }
            case VECTOR: return "vector<" + elementType + ", " + dimension + ">";
            default: return kind.name().toLowerCase(Locale.ROOT);
        }
        return frozen ? "frozen<" + base + ">" : base;
    }

    /** An identifier as CQL prints it: bare when lowercase letters, digits and '_' (starting with a letter), else quoted. */
    public static String cqlName(String name) {
        boolean bare = !name.isEmpty() && name.charAt(0) >= 'a' && name.charAt(0) <= 'z';
        for (int i = 0; bare && i < name.length(); i++) {
            char c = name.charAt(i);
            bare = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        }
        return bare ? name : '"' + name.replace("\"", "\"\"") + '"';
    }

    /** UTF-8 bytes of a name, as Cassandra hex-encodes UDT and field names in marshal names. */
    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof CqlType)) return false;
        CqlType t = (CqlType) o;
        return kind == t.kind && frozen == t.frozen && dimension == t.dimension
                && Objects.equals(elementType, t.elementType)
                && Objects.equals(valueType, t.valueType)
                && Arrays.equals(components, t.components)
                && Arrays.equals(fieldNames, t.fieldNames)
                && Objects.equals(keyspace, t.keyspace)
                && Objects.equals(typeName, t.typeName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, elementType, valueType, frozen, Arrays.hashCode(components), Arrays.hashCode(fieldNames),
                keyspace, typeName, dimension);
    }
}
