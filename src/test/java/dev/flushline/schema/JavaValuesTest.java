package dev.flushline.schema;

import dev.flushline.oracle.CassandraOracle;
import org.apache.cassandra.cql3.CQL3Type;
import org.apache.cassandra.cql3.CQLFragmentParser;
import org.apache.cassandra.cql3.CqlParser;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.schema.Types;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Java values through JavaValues and ValueCodec give the bytes cassandra-all's own types give
 * ({@code AbstractType.decompose}), for every native type and for collections of them.
 */
class JavaValuesTest {
    static AbstractType<?> cassandraType(String cql) {
        CassandraOracle.init();
        CQL3Type.Raw raw = CQLFragmentParser.parseAny(CqlParser::comparatorType, cql, "type");
        return raw.prepare("ks", Types.none()).getType();
    }

    static CqlType ourType(String cql) {
        return dev.flushline.schema.CqlParser.parse("CREATE TABLE ks.x (k int PRIMARY KEY, v " + cql + ")").column("v").type();
    }

    /** Our Java value as cassandra-all's compose class for the type. */
    static Object forCassandra(Object v) {
        if (v instanceof LocalDate) return (int) (((LocalDate) v).toEpochDay() - Integer.MIN_VALUE);
        if (v instanceof LocalTime) return ((LocalTime) v).toNanoOfDay();
        if (v instanceof Instant) return Date.from((Instant) v);
        if (v instanceof ByteBuffer) return ((ByteBuffer) v).duplicate();
        if (v instanceof List) { List<Object> out = new ArrayList<>(); for (Object e : (List<?>) v) out.add(forCassandra(e)); return out; }
        if (v instanceof Set) { Set<Object> out = new LinkedHashSet<>(); for (Object e : (Set<?>) v) out.add(forCassandra(e)); return out; }
        if (v instanceof Map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) out.put(forCassandra(e.getKey()), forCassandra(e.getValue()));
            return out;
        }
        return v;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static void check(String cql, Object v) {
        byte[] ours = ValueCodec.encode(ourType(cql), JavaValues.toCodecInput(ourType(cql), v));
        Object c = cql.equals("timeuuid") ? org.apache.cassandra.utils.TimeUUID.fromUuid((UUID) v) : forCassandra(v);
        ByteBuffer theirs = ((AbstractType) cassandraType(cql)).decompose(c);
        byte[] t = new byte[theirs.remaining()];
        theirs.duplicate().get(t);
        assertArrayEquals(t, ours, cql + " " + v + " (" + v.getClass().getName() + ")");
        // the direct route into an arena: same bytes, wherever in the arena they land
        ValueBuffer arena = new ValueBuffer(16);
        arena.putBytes(new byte[13], 0, 13);
        int start = arena.position();
        JavaValues.write(ourType(cql), v, arena);
        assertArrayEquals(t, java.util.Arrays.copyOfRange(arena.array(), start, arena.position()), "write: " + cql + " " + v);
    }

    @Test
    void everyNativeTypeAndCollectionsEncodeAsCassandra() throws Exception {
        Random r = new Random(9);
        for (int n = 0; n < 300; n++) {
            check("int", r.nextInt());
            check("bigint", r.nextLong());
            check("smallint", (short) r.nextInt());
            check("tinyint", (byte) r.nextInt());
            check("float", n == 0 ? Float.NaN : n == 1 ? -0.0f : n == 2 ? Float.NEGATIVE_INFINITY : Float.intBitsToFloat(r.nextInt()));
            check("double", n == 0 ? Double.NaN : n == 1 ? -0.0 : Double.longBitsToDouble(r.nextLong()));
            check("boolean", r.nextBoolean());
            check("text", "t\u00e9" + r.nextInt());
            check("text", "\u2603\ud83d\ude00" + r.nextInt() + "\ud800"); // a pair and a stray surrogate: the codec route
            check("ascii", "a" + r.nextInt());
            check("varchar", "");
            check("uuid", new UUID(r.nextLong(), r.nextLong()));
            check("timeuuid", new UUID((r.nextLong() & ~0xF000L) | 0x1000L, r.nextLong() | Long.MIN_VALUE));
            byte[] addr = new byte[r.nextBoolean() ? 4 : 16];
            r.nextBytes(addr);
            check("inet", InetAddress.getByAddress(addr));
            check("decimal", new BigDecimal(new BigInteger(130, r).subtract(BigInteger.ONE.shiftLeft(129)), r.nextInt(60) - 30));
            check("varint", new BigInteger(200, r).subtract(BigInteger.ONE.shiftLeft(199)));
            byte[] blob = new byte[r.nextInt(20)];
            r.nextBytes(blob);
            check("blob", ByteBuffer.wrap(blob));
            check("date", LocalDate.ofEpochDay(r.nextInt(2_000_000) - 1_000_000));
            check("time", LocalTime.ofNanoOfDay(Math.floorMod(r.nextLong(), 86_400_000_000_000L)));
            check("timestamp", Instant.ofEpochMilli(r.nextLong() >> 10));
            check("list<int>", List.of(r.nextInt(), r.nextInt()));
            check("set<text>", Set.of("b" + n, "a" + n));
            check("map<date, blob>", Map.of(LocalDate.ofEpochDay(n), ByteBuffer.wrap(blob)));
            check("frozen<map<timestamp, time>>", Map.of(Instant.ofEpochMilli(n), LocalTime.ofSecondOfDay(n)));
        }
        // CQLSSTableWriter's classes for time and timestamp are accepted too
        CqlType ts = ourType("timestamp");
        assertArrayEquals(ValueCodec.encode(ts, JavaValues.toCodecInput(ts, Instant.ofEpochMilli(1234))),
                ValueCodec.encode(ts, JavaValues.toCodecInput(ts, new Date(1234))));
        CqlType time = ourType("time");
        assertArrayEquals(ValueCodec.encode(time, JavaValues.toCodecInput(time, LocalTime.ofNanoOfDay(99))),
                ValueCodec.encode(time, JavaValues.toCodecInput(time, 99L)));
        // a blob's position is not moved
        ByteBuffer b = ByteBuffer.wrap(new byte[] {1, 2, 3});
        b.position(1);
        assertEquals("0x0203", JavaValues.toCodecInput(ourType("blob"), b));
        assertEquals(1, b.position());
    }

    @Test
    void wrongClassesAreNamed() {
        String[][] cases = {
                {"int", "1", "\"1\" (java.lang.String) is not a int value: expected java.lang.Integer"},
                {"bigint", "int", "5 (java.lang.Integer) is not a bigint value: expected java.lang.Long"},
                {"date", "instant", "is not a date value: expected java.time.LocalDate"},
                {"list<int>", "int", "5 (java.lang.Integer) is not a list<int> value: expected a java.util.List or Set"},
                {"map<text, int>", "list", "is not a map<text, int> value: expected a java.util.Map"},
        };
        for (String[] c : cases) {
            Object v = c[1].equals("int") ? (Object) 5 : c[1].equals("instant") ? Instant.EPOCH : c[1].equals("list") ? List.of() : c[1];
            ValueException e = assertThrows(ValueException.class, () -> JavaValues.toCodecInput(ourType(c[0]), v));
            assertEquals(true, e.getMessage().contains(c[2]), c[0] + ": " + e.getMessage());
            ValueException w = assertThrows(ValueException.class, () -> JavaValues.write(ourType(c[0]), v, new ValueBuffer(16)));
            assertEquals(e.getMessage(), w.getMessage(), "write refuses as toCodecInput");
        }
        ValueException ascii = assertThrows(ValueException.class, () -> JavaValues.write(ourType("ascii"), "ab\u00e9", new ValueBuffer(16)));
        assertEquals(true, ascii.getMessage().contains("index 2"), ascii.getMessage());
        ValueException version = assertThrows(ValueException.class,
                () -> JavaValues.write(ourType("timeuuid"), new UUID(0x4000L, 1L << 63), new ValueBuffer(16)));
        assertEquals(true, version.getMessage().contains("version 4"), version.getMessage());
        List<Object> withNull = new ArrayList<>();
        withNull.add(null);
        ValueException e = assertThrows(ValueException.class, () -> JavaValues.toCodecInput(ourType("list<int>"), withNull));
        assertEquals(true, e.getMessage().startsWith("null is not allowed inside a list<int>"), e.getMessage());
    }
}
