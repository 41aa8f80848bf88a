package dev.flushline.spark;

import dev.flushline.io.VInt;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.ValueBuffer;
import dev.flushline.schema.ValueCodec;
import dev.flushline.schema.ValueException;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;

/**
 * The converters of the CQL types whose Spark form is a struct or whose value is several parts:
 * user-defined types and tuples from a Spark {@code struct}, vectors from an {@code array},
 * durations from a {@code string} or {@code bigint}; and the check, on the driver before any task
 * runs, that a DataFrame column's Spark type fits such a column's CQL type all the way down.
 *
 * <p>The mapping is the Spark Cassandra Connector's (its {@code DataTypeConverter} on reads, its
 * type converters on writes):
 * <ul>
 *   <li>A UDT, frozen or not, is a struct with the UDT's field names (as stored: a quoted field
 *       keeps its case). Every field of the UDT must be in the struct, matched by exact name; a
 *       struct field the UDT lacks is refused too (the connector ignores it; a misspelt field
 *       would otherwise vanish without a word). A null struct field is a null field.
 *   <li>A tuple is a struct of exactly its component count, taken by position whatever the
 *       field names: the connector writes any struct so, and names the fields {@code 0, 1, ...}
 *       when it reads; a Scala tuple in a Dataset is a struct of {@code _1, _2, ...}.
 *   <li>A vector is an array of its element type, with exactly the vector's dimension and no
 *       null element (checked per row: a Spark array has no fixed length).
 *   <li>A duration is a string holding any CQL duration literal ({@code 1h30m}, {@code P1DT2H},
 *       {@code P0001-02-03T04:05:06}, {@code -3d}), as the connector reads it out and parses it
 *       back, or a bigint of nanoseconds (the connector's {@code CqlDuration(0, 0, n)}).
 * </ul>
 * Element, field and component types map as the columns do ({@link ColumnConverter}), nesting as
 * CQL allows.
 *
 * <p>Each converter here writes its value's serialized bytes itself ({@link ColumnConverter#serialize}),
 * which is what the sorted writer takes; the memtable path gets the same bytes as a
 * {@link ValueCodec.Serialized}, which the Flushline writer checks against the type and, for a
 * non-frozen UDT, splits into a cell per field.
 *
 * <p>Thread safety: stateless once built; each task builds its own.
 */
final class CompositeConverters {
    private CompositeConverters() {}

    /** The converter for a tuple, UDT, vector or duration, or null when the Spark type does not fit. */
    static ColumnConverter select(String column, CqlType t, DataType s) {
        if (mismatch(t, s) != null) return null;
        switch (t.kind()) {
            case UDT: {
                StructType st = (StructType) s;
                int[] ordinals = new int[t.size()];
                ColumnConverter[] fields = new ColumnConverter[t.size()];
                for (int k = 0; k < ordinals.length; k++) {
                    String name = t.fieldName(k);
                    ordinals[k] = st.fieldIndex(name);
                    fields[k] = ColumnConverter.of(column + "." + name, t.component(k), st.fields()[ordinals[k]].dataType());
                }
                return new Struct(column, t, s, ordinals, fields);
            }
            case TUPLE: {
                StructType st = (StructType) s;
                int[] ordinals = new int[t.size()];
                ColumnConverter[] components = new ColumnConverter[t.size()];
                for (int k = 0; k < ordinals.length; k++) {
                    ordinals[k] = k;
                    components[k] = ColumnConverter.of(column + " component " + k, t.component(k), st.fields()[k].dataType());
                }
                return new Struct(column, t, s, ordinals, components);
            }
            case VECTOR:
                return new Vector(column, t, s, ColumnConverter.of(column + " element", t.elementType(), ((ArrayType) s).elementType()));
            case DURATION:
                return s instanceof StringType ? new DurationLiteral(column, t, s) : new DurationNanos(column, t, s);
            default:
                return null;
        }
    }

    /**
     * Refuses, before any row is read, a column whose CQL type is or holds a tuple, UDT, vector or
     * duration and whose Spark type does not fit it, naming the column, the place inside it and
     * both types there. Other columns are refused by their first value, naming it (as before these
     * types were taken).
     */
    static void refuseMismatch(String column, CqlType t, DataType s) {
        if (!holdsComposite(t)) return;
        String why = mismatch(t, s);
        if (why != null) {
            throw new IllegalArgumentException("flushline: column '" + column + "' (CQL " + t + ", Spark " + s.simpleString() + "): " + why);
        }
    }

    /** Whether the type is or holds (in elements, keys, values, fields or components) a tuple, UDT, vector or duration. */
    static boolean holdsComposite(CqlType t) {
        switch (t.kind()) {
            case TUPLE: case UDT: case VECTOR: case DURATION:
                return true;
            case LIST: case SET:
                return holdsComposite(t.elementType());
            case MAP:
                return holdsComposite(t.elementType()) || holdsComposite(t.valueType());
            default:
                return false;
        }
    }

    /**
     * Null when a Spark {@code s} fills a CQL {@code t} (every place inside it too), else why not:
     * the path to the place that does not fit (field, component, element, key, value) and what
     * the CQL type there takes.
     */
    static String mismatch(CqlType t, DataType s) {
        switch (t.kind()) {
            case UDT: {
                if (!(s instanceof StructType)) {
                    return "a CQL " + t + " takes a Spark struct of its fields (" + fieldList(t) + "), not " + s.simpleString();
                }
                StructType st = (StructType) s;
                for (int k = 0; k < t.size(); k++) {
                    if (indexOf(st, t.fieldName(k)) < 0) {
                        return "the Spark struct has no field '" + t.fieldName(k) + "', a field of " + t
                                + " (struct fields are matched to UDT fields by exact name)";
                    }
                }
                for (StructField f : st.fields()) {
                    if (t.fieldIndex(f.name()) < 0) {
                        return "the Spark struct's field '" + f.name() + "' is not a field of " + t + " (its fields: " + fieldList(t) + ")";
                    }
                }
                for (int k = 0; k < t.size(); k++) {
                    String inner = mismatch(t.component(k), st.fields()[indexOf(st, t.fieldName(k))].dataType());
                    if (inner != null) return "field '" + t.fieldName(k) + "': " + inner;
                }
                return null;
            }
            case TUPLE: {
                if (!(s instanceof StructType)) {
                    return "a CQL " + t + " takes a Spark struct of its " + t.size() + " components, taken by position, not " + s.simpleString();
                }
                StructField[] fs = ((StructType) s).fields();
                if (fs.length != t.size()) {
                    return "a CQL " + t + " has " + t.size() + " components; the Spark struct has " + fs.length + " fields";
                }
                for (int k = 0; k < fs.length; k++) {
                    String inner = mismatch(t.component(k), fs[k].dataType());
                    if (inner != null) return "component " + k + " (struct field '" + fs[k].name() + "'): " + inner;
                }
                return null;
            }
            case VECTOR:
            case LIST:
            case SET: {
                if (!(s instanceof ArrayType)) return "a CQL " + t + " takes a Spark array of its element type, not " + s.simpleString();
                String inner = mismatch(t.elementType(), ((ArrayType) s).elementType());
                return inner == null ? null : "element: " + inner;
            }
            case MAP: {
                if (!(s instanceof MapType)) return "a CQL " + t + " takes a Spark map of its key and value types, not " + s.simpleString();
                String key = mismatch(t.elementType(), ((MapType) s).keyType());
                if (key != null) return "key: " + key;
                String value = mismatch(t.valueType(), ((MapType) s).valueType());
                return value == null ? null : "value: " + value;
            }
            case DURATION:
                return s instanceof StringType || s instanceof LongType ? null
                        : "a CQL duration takes a Spark string (a duration literal such as 1h30m or P1DT2H) or bigint (nanoseconds), not " + s.simpleString();
            default:
                return ColumnConverter.accepts(t, s) ? null
                        : "a CQL " + t + " is not written from a Spark " + s.simpleString() + "; " + ColumnConverter.expected(t);
        }
    }

    private static int indexOf(StructType st, String name) {
        StructField[] fs = st.fields();
        for (int i = 0; i < fs.length; i++) if (fs[i].name().equals(name)) return i;
        return -1;
    }

    private static String fieldList(CqlType udt) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < udt.size(); k++) sb.append(k == 0 ? "" : ", ").append(udt.fieldName(k));
        return sb.toString();
    }

    /** Writes {@code v} big-endian at {@code at}, which the buffer has already passed (a length written after its value). */
    static void putIntAt(ValueBuffer out, int at, int v) {
        byte[] a = out.array();
        a[at] = (byte) (v >>> 24);
        a[at + 1] = (byte) (v >>> 16);
        a[at + 2] = (byte) (v >>> 8);
        a[at + 3] = (byte) v;
    }

    /** A converter that writes the bytes itself; the memtable path takes them as a serialized value. */
    abstract static class Serializing extends ColumnConverter {
        private static final long serialVersionUID = 1L;

        Serializing(String column, CqlType cqlType, DataType sparkType) {
            super(column, cqlType, sparkType);
        }

        @Override
        abstract void serialize(SpecializedGetters row, int ordinal, ValueBuffer out);

        @Override
        final Object convert(SpecializedGetters row, int ordinal) {
            ValueBuffer b = new ValueBuffer(64);
            serialize(row, ordinal, b);
            return new ValueCodec.Serialized(Arrays.copyOf(b.array(), b.position()));
        }
    }

    /**
     * A UDT or tuple from a struct. Layout (as in {@link CqlType}): per component in declaration
     * order, int32 length (-1 for null) then its bytes; every component is written, trailing nulls
     * included, as Cassandra writes them.
     */
    static final class Struct extends Serializing {
        private static final long serialVersionUID = 1L;
        /** The Spark struct's field count, which its getter needs. */
        private final int structFields;
        /** Per CQL component: the struct field holding it. */
        private final int[] ordinals;
        private final ColumnConverter[] components;

        Struct(String column, CqlType cqlType, DataType sparkType, int[] ordinals, ColumnConverter[] components) {
            super(column, cqlType, sparkType);
            this.structFields = ((StructType) sparkType).size();
            this.ordinals = ordinals;
            this.components = components;
        }

        @Override
        void serialize(SpecializedGetters row, int ordinal, ValueBuffer out) {
            InternalRow s = row.getStruct(ordinal, structFields);
            int[] os = ordinals;
            ColumnConverter[] cs = components;
            for (int k = 0; k < os.length; k++) {
                int o = os[k];
                if (s.isNullAt(o)) {
                    out.putInt(-1);
                    continue;
                }
                int lengthAt = out.position();
                out.putInt(0);
                cs[k].serialize(s, o, out);
                putIntAt(out, lengthAt, out.position() - lengthAt - 4);
            }
        }
    }

    /**
     * A vector from an array of exactly its dimension, no element null. Fixed-length elements
     * back to back; variable-length ones each behind an unsigned vint length (and not empty, but
     * for text, ascii and blob, as Cassandra's vector type refuses an empty element otherwise).
     */
    static final class Vector extends Serializing {
        private static final long serialVersionUID = 1L;
        private final ColumnConverter element;
        private final int dimension;
        private final int fixedLength;
        private final boolean emptyAllowed;

        Vector(String column, CqlType cqlType, DataType sparkType, ColumnConverter element) {
            super(column, cqlType, sparkType);
            this.element = element;
            this.dimension = cqlType.dimension();
            this.fixedLength = cqlType.elementType().fixedLength();
            CqlType.Kind e = cqlType.elementType().kind();
            this.emptyAllowed = e == CqlType.Kind.TEXT || e == CqlType.Kind.ASCII || e == CqlType.Kind.BLOB;
        }

        @Override
        void serialize(SpecializedGetters row, int ordinal, ValueBuffer out) {
            ArrayData a = row.getArray(ordinal);
            int n = a.numElements();
            if (n != dimension) {
                throw bad(ColumnConverter.describe(a, element.sparkType), "has " + n + " elements; a CQL " + cqlType + " has exactly " + dimension);
            }
            ColumnConverter e = element;
            for (int j = 0; j < n; j++) {
                if (a.isNullAt(j)) throw bad(ColumnConverter.describe(a, e.sparkType), "holds a null, which a CQL " + cqlType + " cannot");
                int at = out.position();
                e.serialize(a, j, out);
                int length = out.position() - at;
                if (fixedLength > 0) {
                    if (length != fixedLength) {
                        throw new IllegalStateException("column '" + column + "': element " + j + " serialized to " + length + " bytes, not " + fixedLength);
                    }
                    continue;
                }
                if (length == 0 && !emptyAllowed) {
                    throw bad(ColumnConverter.describe(a, e.sparkType), "holds an empty element (" + j + "), which a CQL " + cqlType + " cannot");
                }
                // The length goes before the element: move the element up by the vint's size.
                int size = VInt.sizeOfUnsigned(length);
                out.ensure(size);
                byte[] b = out.array();
                System.arraycopy(b, at, b, at + size, length);
                VInt.putUnsigned(b, at, length, size);
                out.advance(size);
            }
        }
    }

    /** A duration from a string holding a CQL duration literal. */
    static final class DurationLiteral extends Serializing {
        private static final long serialVersionUID = 1L;

        DurationLiteral(String column, CqlType cqlType, DataType sparkType) {
            super(column, cqlType, sparkType);
        }

        @Override
        void serialize(SpecializedGetters row, int ordinal, ValueBuffer out) {
            String v = row.getUTF8String(ordinal).toString();
            byte[] b;
            try {
                b = ValueCodec.encode(cqlType, v);
            } catch (ValueException e) {
                throw bad("'" + v + "'", "is not a CQL duration literal (" + e.getMessage() + ")");
            }
            out.putBytes(b, 0, b.length);
        }
    }

    /** A duration from a bigint of nanoseconds: zero months, zero days, the nanoseconds (signed vints). */
    static final class DurationNanos extends Serializing {
        private static final long serialVersionUID = 1L;

        DurationNanos(String column, CqlType cqlType, DataType sparkType) {
            super(column, cqlType, sparkType);
        }

        @Override
        void serialize(SpecializedGetters row, int ordinal, ValueBuffer out) {
            long nanos = VInt.zigZag(row.getLong(ordinal));
            int size = VInt.sizeOfUnsigned(nanos);
            out.ensure(2 + size);
            byte[] b = out.array();
            int p = out.position();
            b[p] = 0; // months
            b[p + 1] = 0; // days
            VInt.putUnsigned(b, p + 2, nanos, size);
            out.advance(2 + size);
        }
    }
}
