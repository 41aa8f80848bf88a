package dev.flushline.schema;

import dev.flushline.data.Hex;
import dev.flushline.testing.NativeTexts;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ValueChars} takes a text only as {@link ValueCodec} takes it: for random texts of every
 * native type (most of them valid, with their edges, some near misses), whatever ValueChars writes is
 * the bytes ValueCodec encodes from the same String, and ValueChars declines every text ValueCodec
 * refuses. It must also take most of the valid texts, or the fast paths built on it would seldom be fast.
 */
class ValueCharsTest {
    static final TableSchema TABLE;
    static {
        StringBuilder cql = new StringBuilder("CREATE TABLE ks.v (k int PRIMARY KEY");
        for (String t : NativeTexts.TYPES) cql.append(", c_").append(t).append(' ').append(t);
        TABLE = CqlParser.parse(cql.append(')').toString());
    }

    /** What ValueChars writes for {@code text} as a value of {@code type}, or null if it declines. */
    static byte[] fast(String type, String text) {
        char[] c = text.toCharArray();
        int n = c.length;
        byte[] out = new byte[Math.max(3 * n, ValueChars.MAX_FIXED_BYTES)];
        int w;
        switch (type) {
            case "tinyint": w = ValueChars.integer(c, 0, n, Byte.MIN_VALUE, Byte.MAX_VALUE, 1, out, 0); break;
            case "smallint": w = ValueChars.integer(c, 0, n, Short.MIN_VALUE, Short.MAX_VALUE, 2, out, 0); break;
            case "int": w = ValueChars.integer(c, 0, n, Integer.MIN_VALUE, Integer.MAX_VALUE, 4, out, 0); break;
            case "bigint": w = ValueChars.integer(c, 0, n, Long.MIN_VALUE, Long.MAX_VALUE, 8, out, 0); break;
            case "varint": w = ValueChars.varint(c, 0, n, out, 0); break;
            case "decimal": w = ValueChars.decimal(c, 0, n, out, 0); break;
            case "float": {
                float f = ValueChars.exactFloat(c, 0, n);
                w = Float.isNaN(f) ? ValueChars.DECLINED : ValueChars.bigEndian(Float.floatToRawIntBits(f), 4, out, 0);
                break;
            }
            case "double": {
                double d = ValueChars.exactDouble(c, 0, n);
                w = Double.isNaN(d) ? ValueChars.DECLINED : ValueChars.bigEndian(Double.doubleToRawLongBits(d), 8, out, 0);
                break;
            }
            case "blob": w = ValueChars.blob(c, 0, n, out, 0); break;
            case "uuid": w = ValueChars.uuid(c, 0, n, out, 0); break;
            case "timeuuid": {
                w = ValueChars.uuid(c, 0, n, out, 0);
                if (w > 0 && ValueChars.uuidVersion(out, 0) != 1) w = ValueChars.DECLINED;
                break;
            }
            case "inet": w = ValueChars.inet(c, 0, n, out, 0); break;
            case "date": w = ValueChars.date(c, 0, n, out, 0); break;
            case "time": w = ValueChars.time(c, 0, n, out, 0); break;
            case "timestamp": w = ValueChars.timestamp(c, 0, n, out, 0); break;
            case "ascii": w = ValueChars.utf8(c, 0, n, true, out, 0); break;
            case "text":
            case "varchar": w = ValueChars.utf8(c, 0, n, false, out, 0); break;
            default: return null; // boolean: the CSV decoder's own two words
        }
        return w < 0 ? null : Arrays.copyOf(out, w);
    }

    /** ValueCodec's bytes for the String, or null if it refuses it. */
    static byte[] model(String type, String text) {
        try {
            return ValueCodec.encode(TABLE.column("c_" + type).type(), text);
        } catch (ValueException e) {
            return null;
        }
    }

    @Test
    void takesOnlyWhatTheValueModelTakesAndAsItTakesIt() {
        Random r = new Random(20261204L);
        for (String type : NativeTexts.TYPES) {
            if (type.equals("boolean")) continue;
            int taken = 0, valid = 0;
            for (int i = 0; i < 20_000; i++) {
                String text = NativeTexts.text(r, type);
                byte[] f = fast(type, text);
                if (type.equals("timestamp") && text.equalsIgnoreCase("now")) {
                    assertEquals(null, f, "now is the clock's, not the text's");
                    continue;
                }
                byte[] m = model(type, text);
                if (m != null) valid++;
                if (f == null) continue;
                taken++;
                if (m == null) fail(type + " " + display(text) + ": taken as 0x" + Hex.of(f) + ", which the value model refuses");
                assertEquals(Hex.of(m), Hex.of(f), type + " " + display(text));
            }
            System.out.println(type + ": " + taken + " of " + valid + " valid texts taken");
            assertTrue(taken > valid * 6 / 10, type + ": only " + taken + " of " + valid + " valid texts taken");
        }
    }

    @Test
    void edges() {
        String[][] cases = {
                {"bigint", "9223372036854775807", "7fffffffffffffff"}, {"bigint", "-9223372036854775808", null},
                {"int", "+0042", "0000002a"}, {"tinyint", "-128", "80"}, {"tinyint", "128", null},
                {"varint", "0", "00"}, {"varint", "-1", "ff"}, {"varint", "128", "0080"}, {"varint", "-129", "ff7f"},
                {"decimal", "1.50", "000000020096"}, {"decimal", "-0.00", "0000000200"}, {"decimal", "1e3", "fffffffd01"},
                {"decimal", ".5", "0000000105"}, {"decimal", "5.", "0000000005"},
                {"double", "-0", "8000000000000000"}, {"double", "0.1", "3fb999999999999a"}, {"double", "1e23", null},
                {"float", "0.1", "3dcccccd"}, {"float", "16777216", "4b800000"}, {"float", "16777217", null},
                {"blob", "0x", ""}, {"blob", "0xCAfe", "cafe"}, {"blob", "0X00", null}, {"blob", "0xabc", null},
                {"uuid", "00000000-0000-1000-8000-00000000000A", "0000000000001000800000000000000a"},
                {"inet", "127.1", "7f000001"}, {"inet", "::ffff:10.0.0.1", "0a000001"}, {"inet", "[::1]", "00000000000000000000000000000001"},
                {"date", "1970-01-01", "80000000"}, {"date", "2024-02-29", "80004d46"}, {"date", "2023-02-29", null}, {"date", "-0", "00000000"},
                {"time", "23:59:59.999999999", "00004e94914effff"}, {"time", "1:2:3", "00000362d417ae00"},
                {"timestamp", "1970-01-01 00:00:00.000+0000", "0000000000000000"}, {"timestamp", "1970-01-01T01:00+01:00", "0000000000000000"},
                {"timestamp", "1969-12-31 23:59:59.9999Z", "ffffffffffffffff"}, {"timestamp", "2024-01-31 10:00:00", null},
                {"timestamp", "0000-01-01 00:00:00+0000", null}, {"timestamp", "-5", "fffffffffffffffb"},
                {"text", "\ud800", null}, {"ascii", "é", null}, {"text", "é😀", "c3a9f09f9880"},
        };
        for (String[] c : cases) {
            byte[] f = fast(c[0], c[1]);
            assertEquals(c[2], f == null ? null : Hex.of(f), c[0] + " " + display(c[1]));
            if (f != null) assertEquals(Hex.of(model(c[0], c[1])), Hex.of(f), c[0] + " " + display(c[1]) + " against the value model");
        }
    }

    /**
     * Floats are rounded once from the decimal, as Float.parseFloat does, even where the nearest double
     * is a float midpoint: decimals of 15 digits around the midpoints of random floats.
     */
    @Test
    void floatsNearTheirMidpointsRoundOnce() {
        Random r = new Random(3);
        int taken = 0;
        for (int i = 0; i < 200_000; i++) {
            float f = Float.intBitsToFloat(r.nextInt() & 0x7F7F_FFFF);
            double mid = ((double) f + (double) Math.nextUp(f)) * 0.5;
            java.math.BigDecimal m = new java.math.BigDecimal(mid).round(new java.math.MathContext(1 + r.nextInt(15)));
            String text = r.nextBoolean() ? m.toString() : m.toPlainString();
            char[] c = text.toCharArray();
            float got = ValueChars.exactFloat(c, 0, c.length);
            if (Float.isNaN(got)) continue;
            taken++;
            assertEquals(Float.floatToRawIntBits(Float.parseFloat(text)), Float.floatToRawIntBits(got), text);
        }
        assertTrue(taken > 20_000, "only " + taken + " taken");
    }

    private static String display(String s) {
        return ValueText.display(s);
    }
}
