package dev.flushline.schema;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Values of the Apache Cassandra (DataStax) Java driver 4.x for tuples, UDTs, durations and
 * vectors ({@code TupleValue}, {@code UdtValue}, {@code CqlDuration}, {@code CqlVector}), turned
 * into {@link ValueCodec}'s input model.
 *
 * <p>Flushline does not depend on the driver: this class reaches its values by reflection, by the
 * names of the driver's public types, so nothing of the driver is loaded unless such a value is
 * passed, and nothing is needed on the class path otherwise. A UDT's or tuple's components come
 * as the driver serialized them ({@code getBytesUnsafe}), which for every type is the stored form;
 * ValueCodec checks them against the column's type ({@link ValueCodec.Serialized}). A UDT value is
 * matched to the column's type by field name (its type may list other fields: an unknown one is
 * refused, a missing one is null).
 *
 * <p>Thread safety: stateless.
 */
final class DriverValues {
    private DriverValues() {}

    static final String UDT_VALUE = "com.datastax.oss.driver.api.core.data.UdtValue";
    static final String TUPLE_VALUE = "com.datastax.oss.driver.api.core.data.TupleValue";
    static final String DURATION = "com.datastax.oss.driver.api.core.data.CqlDuration";
    static final String VECTOR = "com.datastax.oss.driver.api.core.data.CqlVector";

    /** The driver type {@code v} is (one of the four names above), or null. */
    static String driverType(Object v) {
        for (Class<?> c = v.getClass(); c != null; c = c.getSuperclass()) {
            String n = c.getName();
            if (n.equals(DURATION) || n.equals(VECTOR)) return n;
            String i = interfaceNamed(c);
            if (i != null) return i;
        }
        return null;
    }

    private static String interfaceNamed(Class<?> c) {
        for (Class<?> i : c.getInterfaces()) {
            if (i.getName().equals(UDT_VALUE) || i.getName().equals(TUPLE_VALUE)) return i.getName();
            String deeper = interfaceNamed(i);
            if (deeper != null) return deeper;
        }
        return null;
    }

    /** The public type named {@code name} among {@code v}'s classes and interfaces. */
    private static Class<?> publicType(Object v, String name) {
        for (Class<?> c = v.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) return c;
            Class<?> i = findInterface(c, name);
            if (i != null) return i;
        }
        throw new IllegalStateException(v.getClass() + " is not a " + name);
    }

    private static Class<?> findInterface(Class<?> c, String name) {
        for (Class<?> i : c.getInterfaces()) {
            if (i.getName().equals(name)) return i;
            Class<?> deeper = findInterface(i, name);
            if (deeper != null) return deeper;
        }
        return null;
    }

    private static Object call(Class<?> type, Object target, String method, Object... args) {
        try {
            Class<?>[] params = new Class<?>[args.length];
            for (int i = 0; i < args.length; i++) params[i] = args[i] instanceof Integer ? int.class : args[i].getClass();
            Method m = type.getMethod(method, params);
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw new ValueException(JavaValues.describe(target) + ": " + type.getSimpleName() + "." + method + " failed: " + cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the Java driver's " + type.getName() + " has no " + method + ": " + e, e);
        }
    }

    private static ValueCodec.Serialized serialized(Object byteBuffer) {
        if (byteBuffer == null) return null;
        ByteBuffer b = ((ByteBuffer) byteBuffer).duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return new ValueCodec.Serialized(out);
    }

    /**
     * ValueCodec's input for a driver value of a tuple, UDT, duration or vector column, or null
     * if {@code v} is not the driver class that type takes.
     */
    static Object toCodecInput(CqlType t, Object v) {
        String driver = driverType(v);
        if (driver == null) return null;
        switch (t.kind()) {
            case UDT: {
                if (!driver.equals(UDT_VALUE)) return null;
                Class<?> udtValue = publicType(v, UDT_VALUE);
                Object type = call(udtValue, v, "getType");
                Class<?> udtType = publicType(type, "com.datastax.oss.driver.api.core.type.UserDefinedType");
                List<?> names = (List<?>) call(udtType, type, "getFieldNames");
                Map<String, Object> out = new LinkedHashMap<>();
                for (int i = 0; i < names.size(); i++) {
                    Object id = names.get(i);
                    String name = (String) call(publicType(id, "com.datastax.oss.driver.api.core.CqlIdentifier"), id, "asInternal");
                    // quoted: the name as stored, whatever its case (ValueCodec lowercases bare JSON names)
                    out.put('"' + name + '"', serialized(call(udtValue, v, "getBytesUnsafe", i)));
                }
                return out;
            }
            case TUPLE: {
                if (!driver.equals(TUPLE_VALUE)) return null;
                Class<?> tupleValue = publicType(v, TUPLE_VALUE);
                int n = (Integer) call(tupleValue, v, "size");
                if (n != t.size()) {
                    throw new ValueException(JavaValues.describe(v) + " has " + n + " components, a " + t + " has " + t.size());
                }
                List<Object> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) out.add(serialized(call(tupleValue, v, "getBytesUnsafe", i)));
                return out;
            }
            case DURATION: {
                if (!driver.equals(DURATION)) return null;
                Class<?> d = publicType(v, DURATION);
                int months = (Integer) call(d, v, "getMonths");
                int days = (Integer) call(d, v, "getDays");
                long nanos = (Long) call(d, v, "getNanoseconds");
                boolean positive = months >= 0 && days >= 0 && nanos >= 0, negative = months <= 0 && days <= 0 && nanos <= 0;
                if (!positive && !negative) {
                    throw new ValueException(JavaValues.describe(v) + " mixes signs, which a duration may not");
                }
                return new ValueCodec.Serialized(Durations.serialize(new Durations.Value(months, days, nanos)));
            }
            case VECTOR: {
                if (!driver.equals(VECTOR)) return null;
                List<Object> out = new ArrayList<>();
                for (Object e : (Iterable<?>) v) {
                    if (e == null) throw new ValueException("null is not allowed inside a " + t + " (in " + JavaValues.describe(v) + ")");
                    out.add(JavaValues.elementValue(t.elementType(), e));
                }
                return out;
            }
            default:
                return null;
        }
    }
}
