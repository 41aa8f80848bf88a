package dev.flushline.spark;

import dev.flushline.schema.CqlType;
import dev.flushline.schema.JavaValues;
import dev.flushline.schema.ValueBuffer;
import dev.flushline.writer.SortedSSTableWriter;

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Reads one column of Spark's {@code InternalRow} (or one element of an array or map) as the Java
 * object the Flushline writer takes for the column's CQL type. One converter is chosen per column
 * when a task starts, from the CQL type and the Spark type, so a row costs one virtual call per
 * column and no type dispatch.
 *
 * <p>The pairs accepted are the Spark Cassandra Connector's type mapping: text/ascii/varchar,
 * uuid, timeuuid and inet from {@code string}; int, bigint, smallint, tinyint, float, double and
 * boolean from the Spark type of the same width; decimal from any {@code decimal(p, s)}; varint
 * from a {@code decimal} of scale 0 (the connector maps it to {@code decimal(38, 0)}); blob from
 * {@code binary}; timestamp from {@code timestamp}; date from {@code date}; time from
 * {@code bigint} (nanoseconds since midnight); list and set from {@code array}, map from
 * {@code map}, element types mapped the same way; a user-defined type from a {@code struct} of
 * its fields, a tuple from a {@code struct} of its components by position, a vector from an
 * {@code array}, a duration from a {@code string} literal or {@code bigint} nanoseconds (see
 * {@link CompositeConverters}, which also refuses a misfit of those at plan time). Any other
 * pair converts nothing: it fails on the first non-null value, naming the column, both types
 * and that value.
 *
 * <p>REQUIRES: the value at the ordinal is not null (the caller checks {@code isNullAt}).
 * Thread safety: stateless once built; each task builds its own anyway.
 */
abstract class ColumnConverter implements Serializable {
    private static final long serialVersionUID = 1L;
    /** IPv4 dotted quads and anything with a colon (IPv6): literals that never cause a name lookup. */
    private static final Pattern INET_LITERAL = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9a-fA-F:.%]*:[0-9a-fA-F:.%]*");

    /** The column (for messages). */
    final String column;
    final CqlType cqlType;
    final DataType sparkType;

    ColumnConverter(String column, CqlType cqlType, DataType sparkType) {
        this.column = column;
        this.cqlType = cqlType;
        this.sparkType = sparkType;
    }

    abstract Object convert(SpecializedGetters row, int ordinal);

    /**
     * Appends the value's CQL serialized bytes to {@code out}; its length is what
     * {@code out.position()} moved by. The common types write their bytes straight from the row;
     * the rest go through {@link #convert} and {@link JavaValues#write}, which boxes: they are the
     * types whose Spark form needs parsing (uuid, inet) or a Java object anyway (decimal, varint).
     */
    void serialize(SpecializedGetters row, int ordinal, ValueBuffer out) {
        JavaValues.write(cqlType, convert(row, ordinal), out);
    }

    /** Sets the cell of {@code column} (the sorted writer's index) from the row; {@code arena} holds its bytes until endRow. */
    void set(SortedSSTableWriter w, int column, SpecializedGetters row, int ordinal, ValueBuffer arena) {
        int offset = arena.position();
        serialize(row, ordinal, arena);
        w.set(column, arena.array(), offset, arena.position() - offset);
    }

    /** Sets clustering value {@code i} from the row; {@code arena} holds its bytes until endRow. */
    void clustering(SortedSSTableWriter w, int i, SpecializedGetters row, int ordinal, ValueBuffer arena) {
        int offset = arena.position();
        serialize(row, ordinal, arena);
        w.clustering(i, arena.array(), offset, arena.position() - offset);
    }

    final IllegalArgumentException bad(Object value, String why) {
        return new IllegalArgumentException("column '" + column + "' (CQL " + cqlType + ", Spark " + sparkType.simpleString()
                + "): value " + value + " " + why);
    }

    /** The converter for a column of {@code cqlType} filled from Spark's {@code sparkType}. */
    static ColumnConverter of(String column, CqlType cqlType, DataType sparkType) {
        ColumnConverter c = select(column, cqlType, sparkType);
        return c != null ? c : new Mismatch(column, cqlType, sparkType);
    }

    /** Whether the pair is one {@link #of} converts (else it fails on the first value). */
    static boolean accepts(CqlType cqlType, DataType sparkType) {
        return select("", cqlType, sparkType) != null;
    }

    private static ColumnConverter select(String column, CqlType t, DataType s) {
        switch (t.kind()) {
            case ASCII:
                if (s instanceof StringType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getUTF8String(i).toString(); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) {
                            UTF8String u = r.getUTF8String(i);
                            int n = u.numBytes();
                            out.ensure(n);
                            byte[] a = out.array();
                            int p = out.position();
                            u.writeToMemory(a, Platform.BYTE_ARRAY_OFFSET + p);
                            // UTF-8 of anything beyond ASCII has its top bits set: refused as the Java writer refuses it
                            for (int k = p; k < p + n; k++) if (a[k] < 0) throw bad("'" + u + "'", "is not ASCII (byte " + (k - p) + ")");
                            out.advance(n);
                        }
                    };
                }
                return null;
            case TEXT:
                if (s instanceof StringType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getUTF8String(i).toString(); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) {
                            UTF8String u = r.getUTF8String(i);
                            int n = u.numBytes();
                            out.ensure(n);
                            u.writeToMemory(out.array(), Platform.BYTE_ARRAY_OFFSET + out.position());
                            out.advance(n);
                        }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer arena) {
                            UTF8String u = r.getUTF8String(i);
                            Object base = u.getBaseObject();
                            // On heap (an UnsafeRow's array): the row's own bytes, unchanged until the next row.
                            if (base instanceof byte[]) w.set(c, (byte[]) base, (int) (u.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), u.numBytes());
                            else super.set(w, c, r, i, arena);
                        }
                    };
                }
                return null;
            case UUID:
            case TIMEUUID:
                if (s instanceof StringType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) {
                            String v = r.getUTF8String(i).toString();
                            try {
                                return UUID.fromString(v);
                            } catch (IllegalArgumentException e) {
                                throw bad("'" + v + "'", "is not a UUID");
                            }
                        }
                    };
                }
                return null;
            case INET:
                if (s instanceof StringType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) {
                            String v = r.getUTF8String(i).toString();
                            if (!INET_LITERAL.matcher(v).matches()) throw bad("'" + v + "'", "is not an IPv4 or IPv6 address literal");
                            try {
                                return InetAddress.getByName(v);
                            } catch (UnknownHostException e) {
                                throw bad("'" + v + "'", "is not an IPv4 or IPv6 address literal");
                            }
                        }
                    };
                }
                return null;
            case INT:
                if (s instanceof IntegerType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getInt(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putInt(r.getInt(i)); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setInt(c, r.getInt(i)); }
                        @Override void clustering(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.clusteringInt(c, r.getInt(i)); }
                    };
                }
                return null;
            case BIGINT:
                if (s instanceof LongType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getLong(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putLong(r.getLong(i)); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setLong(c, r.getLong(i)); }
                        @Override void clustering(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.clusteringLong(c, r.getLong(i)); }
                    };
                }
                return null;
            case SMALLINT:
                if (s instanceof ShortType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getShort(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putShort(r.getShort(i)); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setShort(c, r.getShort(i)); }
                    };
                }
                return null;
            case TINYINT:
                if (s instanceof ByteType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getByte(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putByte(r.getByte(i)); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setByte(c, r.getByte(i)); }
                    };
                }
                return null;
            case FLOAT:
                if (s instanceof FloatType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getFloat(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putInt(Float.floatToRawIntBits(r.getFloat(i))); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setFloat(c, r.getFloat(i)); }
                    };
                }
                return null;
            case DOUBLE:
                if (s instanceof DoubleType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getDouble(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putLong(Double.doubleToRawLongBits(r.getDouble(i))); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setDouble(c, r.getDouble(i)); }
                    };
                }
                return null;
            case BOOLEAN:
                if (s instanceof BooleanType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getBoolean(i); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putByte(r.getBoolean(i) ? 1 : 0); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setBoolean(c, r.getBoolean(i)); }
                    };
                }
                return null;
            case DECIMAL:
                if (s instanceof DecimalType) {
                    final int p = ((DecimalType) s).precision();
                    final int sc = ((DecimalType) s).scale();
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getDecimal(i, p, sc).toJavaBigDecimal(); }
                    };
                }
                return null;
            case VARINT:
                if (s instanceof DecimalType && ((DecimalType) s).scale() == 0) {
                    final int p = ((DecimalType) s).precision();
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getDecimal(i, p, 0).toJavaBigDecimal().toBigIntegerExact(); }
                    };
                }
                return null;
            case BLOB:
                if (s instanceof BinaryType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return ByteBuffer.wrap(r.getBinary(i)); }
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) {
                            byte[] b = r.getBinary(i); // Spark's copy: its getters hand out no view of a binary
                            out.putBytes(b, 0, b.length);
                        }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) {
                            byte[] b = r.getBinary(i); // a fresh array, referenced until endRow
                            w.set(c, b, 0, b.length);
                        }
                    };
                }
                return null;
            case TIMESTAMP:
                if (s instanceof TimestampType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) {
                            long micros = r.getLong(i); // Spark: microseconds since the epoch, UTC
                            return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
                        }
                        // A CQL timestamp is milliseconds; the floor, as Instant.toEpochMilli of the value above.
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putLong(Math.floorDiv(r.getLong(i), 1000L)); }
                        @Override void set(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.setLong(c, Math.floorDiv(r.getLong(i), 1000L)); }
                        @Override void clustering(SortedSSTableWriter w, int c, SpecializedGetters r, int i, ValueBuffer a) { w.clusteringLong(c, Math.floorDiv(r.getLong(i), 1000L)); }
                    };
                }
                return null;
            case DATE:
                if (s instanceof DateType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return LocalDate.ofEpochDay(r.getInt(i)); }
                        // CQL date: the day number shifted by 2^31, as an unsigned int (int arithmetic wraps to exactly that)
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { out.putInt(r.getInt(i) - Integer.MIN_VALUE); }
                    };
                }
                return null;
            case TIME:
                if (s instanceof LongType) {
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) { return r.getLong(i); } // nanoseconds since midnight
                        @Override void serialize(SpecializedGetters r, int i, ValueBuffer out) { JavaValues.write(cqlType, convert(r, i), out); } // range-checked there
                    };
                }
                return null;
            case LIST:
            case SET:
                if (s instanceof ArrayType) {
                    final ColumnConverter element = select(column + " element", t.elementType(), ((ArrayType) s).elementType());
                    if (element == null) return null;
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) {
                            ArrayData a = r.getArray(i);
                            int n = a.numElements();
                            List<Object> out = new ArrayList<>(n);
                            for (int j = 0; j < n; j++) {
                                if (a.isNullAt(j)) throw bad(describe(a, element.sparkType), "holds a null, which a CQL " + cqlType + " cannot");
                                out.add(element.convert(a, j));
                            }
                            return out;
                        }
                    };
                }
                return null;
            case MAP:
                if (s instanceof MapType) {
                    final ColumnConverter key = select(column + " key", t.elementType(), ((MapType) s).keyType());
                    final ColumnConverter value = select(column + " value", t.valueType(), ((MapType) s).valueType());
                    if (key == null || value == null) return null;
                    return new ColumnConverter(column, t, s) {
                        @Override Object convert(SpecializedGetters r, int i) {
                            MapData m = r.getMap(i);
                            ArrayData keys = m.keyArray();
                            ArrayData values = m.valueArray();
                            int n = m.numElements();
                            Map<Object, Object> out = new LinkedHashMap<>(2 * n);
                            for (int j = 0; j < n; j++) {
                                if (values.isNullAt(j)) throw bad("with key " + key.convert(keys, j), "maps a key to null, which a CQL " + cqlType + " cannot");
                                out.put(key.convert(keys, j), value.convert(values, j));
                            }
                            return out;
                        }
                    };
                }
                return null;
            case TUPLE:
            case UDT:
            case VECTOR:
            case DURATION:
                return CompositeConverters.select(column, t, s);
            default:
                return null;
        }
    }

    /** An array value for a message: its first ten elements. */
    static String describe(ArrayData a, DataType elementType) {
        StringBuilder sb = new StringBuilder("[");
        for (int j = 0; j < a.numElements() && j < 10; j++) sb.append(j == 0 ? "" : ", ").append(a.isNullAt(j) ? "null" : a.get(j, elementType));
        return sb.append(a.numElements() > 10 ? ", ...]" : "]").toString();
    }

    /** A pair outside the mapping: refuses the first value, naming it. */
    private static final class Mismatch extends ColumnConverter {
        private static final long serialVersionUID = 1L;

        Mismatch(String column, CqlType cqlType, DataType sparkType) {
            super(column, cqlType, sparkType);
        }

        @Override
        Object convert(SpecializedGetters r, int i) {
            Object v = r.get(i, sparkType);
            String shown = v instanceof byte[] ? "0x" + dev.flushline.data.Hex.of((byte[]) v) : String.valueOf(v);
            throw new IllegalArgumentException("column '" + column + "' is CQL " + cqlType + ", which a Spark " + sparkType.simpleString()
                    + " column cannot fill (first value: " + shown + "); " + expected(cqlType));
        }
    }

    /** What a column of this CQL type is written from, for messages. */
    static String expected(CqlType t) {
        switch (t.kind()) {
            case ASCII: case TEXT: case UUID: case TIMEUUID: case INET: return "it takes a Spark string";
            case INT: return "it takes a Spark int";
            case BIGINT: return "it takes a Spark bigint";
            case SMALLINT: return "it takes a Spark smallint";
            case TINYINT: return "it takes a Spark tinyint";
            case FLOAT: return "it takes a Spark float";
            case DOUBLE: return "it takes a Spark double";
            case BOOLEAN: return "it takes a Spark boolean";
            case DECIMAL: return "it takes a Spark decimal";
            case VARINT: return "it takes a Spark decimal of scale 0";
            case BLOB: return "it takes a Spark binary";
            case TIMESTAMP: return "it takes a Spark timestamp";
            case DATE: return "it takes a Spark date";
            case TIME: return "it takes a Spark bigint (nanoseconds since midnight)";
            case LIST: case SET: return "it takes a Spark array of its element type";
            case MAP: return "it takes a Spark map of its key and value types";
            case UDT: return "it takes a Spark struct of its fields, by name";
            case TUPLE: return "it takes a Spark struct of its components, by position";
            case VECTOR: return "it takes a Spark array of its element type";
            case DURATION: return "it takes a Spark string (a duration literal) or bigint (nanoseconds)";
            default: return "it is not supported";
        }
    }
}
