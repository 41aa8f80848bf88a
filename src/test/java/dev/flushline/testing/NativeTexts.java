package dev.flushline.testing;

import java.util.Random;
import java.util.UUID;

/**
 * Random text forms of native CQL values, for tests that hold two readers of the same text to the
 * same result: mostly the forms a value is written in (cqlsh's COPY TO, ISO 8601, the CQL literal),
 * with their edges (range limits, leading zeros, signs, case, every IPv6 shape), and now and then a
 * near miss (out of range, a stray char, another script's digits, a zone by name, "now"). The same
 * Random gives the same texts.
 */
public final class NativeTexts {
    private NativeTexts() {}

    /** The native types {@link #text} knows, by their CQL names. */
    public static final String[] TYPES = {"ascii", "bigint", "blob", "boolean", "date", "decimal", "double", "float", "inet", "int",
            "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint", "varchar"};

    private static final String[] NEAR_MISSES = {"", " ", "abc", "1 2", "+", "-", "1x", "x1", "0x", "٣", "1٣", "１", "NaN", "null",
            "\u00a0" + "1", "1\u2003", "\t7", "8\n", "true", "0X1f", "1e", "e5", ".", "--1", "+-1", "1_000", "1,5", "0b101"};

    /** A text for a value of {@code type} (one of {@link #TYPES}): about one in eight is a near miss or another type's. */
    public static String text(Random r, String type) {
        if (r.nextInt(8) == 0) {
            return r.nextBoolean() ? NEAR_MISSES[r.nextInt(NEAR_MISSES.length)] : text(r, TYPES[r.nextInt(TYPES.length)]);
        }
        switch (type) {
            case "tinyint": return integer(r, 8);
            case "smallint": return integer(r, 16);
            case "int": return integer(r, 32);
            case "bigint": return integer(r, 64);
            case "varint": return r.nextInt(6) == 0 ? sign(r) + digits(r, 1 + r.nextInt(40)) : integer(r, 64);
            case "float":
            case "double":
            case "decimal": return decimal(r);
            case "boolean": {
                String[] b = {"true", "false", "True", "FALSE", "tRuE", "yes", "1", "0", "falſe", "t"};
                return b[r.nextInt(b.length)];
            }
            case "blob": return blob(r);
            case "uuid": return uuid(r, false);
            case "timeuuid": return uuid(r, true);
            case "inet": return inet(r);
            case "date": return date(r);
            case "time": return time(r);
            case "timestamp": return timestamp(r);
            default: return string(r);
        }
    }

    /** A valid text for a value of {@code type}, in the form cqlsh's COPY TO writes it (one of {@link #TYPES}). */
    public static String valid(Random r, String type) {
        switch (type) {
            case "tinyint": return Integer.toString(r.nextInt(256) - 128);
            case "smallint": return Integer.toString(r.nextInt(65536) - 32768);
            case "int": return Integer.toString(r.nextInt());
            case "bigint":
            case "varint": return Long.toString(r.nextLong() >> r.nextInt(64));
            case "float": return Float.toString((r.nextInt(2_000_000) - 1_000_000) / 128f);
            case "double": return Double.toString(r.nextGaussian() * 1000);
            case "decimal": return (r.nextInt(2_000_000) - 1_000_000) + "." + two(r.nextInt(100));
            case "boolean": return r.nextBoolean() ? "True" : "False";
            case "blob": {
                StringBuilder sb = new StringBuilder("0x");
                for (int i = r.nextInt(16); i > 0; i--) sb.append(two(r.nextInt(100)));
                return sb.toString();
            }
            case "uuid": return new UUID(r.nextLong(), r.nextLong()).toString();
            case "timeuuid": return new UUID((r.nextLong() & ~0xF000L) | 0x1000L, r.nextLong()).toString();
            case "inet": return r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256);
            case "date": return (1900 + r.nextInt(200)) + "-" + two(1 + r.nextInt(12)) + "-" + two(1 + r.nextInt(28));
            case "time": return two(r.nextInt(24)) + ":" + two(r.nextInt(60)) + ":" + two(r.nextInt(60)) + "." + digits(r, 9);
            case "timestamp":
                return (1900 + r.nextInt(200)) + "-" + two(1 + r.nextInt(12)) + "-" + two(1 + r.nextInt(28)) + " " + two(r.nextInt(24)) + ":"
                        + two(r.nextInt(60)) + ":" + two(r.nextInt(60)) + "." + digits(r, 3) + "+0000";
            default: return string(r);
        }
    }

    private static String sign(Random r) {
        int x = r.nextInt(6);
        return x == 0 ? "-" : x == 1 ? "+" : "";
    }

    private static String digits(Random r, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.append((char) ('0' + r.nextInt(10)));
        return sb.toString();
    }

    /** An integer of about {@code bits} bits: within range mostly, its limits and one past them now and then, leading zeros and signs. */
    private static String integer(Random r, int bits) {
        long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        long min = bits == 64 ? Long.MIN_VALUE : -(1L << (bits - 1));
        switch (r.nextInt(10)) {
            case 0: return Long.toString(max);
            case 1: return Long.toString(min);
            case 2: return bits == 64 ? "9223372036854775808" : Long.toString(max + 1);
            case 3: return bits == 64 ? "-9223372036854775809" : Long.toString(min - 1);
            case 4: return sign(r) + "0" + digits(r, 1 + r.nextInt(3));
            case 5: return sign(r) + digits(r, 1 + r.nextInt(25));
            default: {
                long x = r.nextLong() >> (64 - bits + r.nextInt(bits));
                return (x >= 0 && r.nextInt(8) == 0 ? "+" : "") + x;
            }
        }
    }

    /** A decimal number in the forms Java's parsers and BigDecimal take, and a few they do not. */
    private static String decimal(Random r) {
        switch (r.nextInt(12)) {
            case 0: return Double.toString(r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20));
            case 1: return Float.toString((float) (r.nextGaussian() * Math.pow(10, r.nextInt(20) - 10)));
            case 2: return sign(r) + digits(r, 1 + r.nextInt(20));
            case 3: return sign(r) + digits(r, r.nextInt(8)) + "." + digits(r, r.nextInt(8));
            case 4: return sign(r) + digits(r, 1 + r.nextInt(6)) + (r.nextBoolean() ? "e" : "E") + sign(r) + r.nextInt(r.nextBoolean() ? 30 : 400);
            case 5: {
                String[] s = {"-0", "-0.0", "0.0", "+0", ".5", "5.", "-.5", "1e22", "1e23", "1e-22", "1e-23", "16777217", "16777216",
                        "9007199254740993", "3.4028235e38", "3.5e38", "1.4e-45", "1e-46", "1e10", "1e11", "1e-10", "1e-11", "NaN",
                        "Infinity", "-Infinity", "0x1p3", "1f", "2d", "1e999999999", "0e500", "1E+2", "100e-2", "0.1", "0.30000000000000004",
                        "123456789012345678", "1234567890123456789", "0000000000000000000000001.5", "1e2147483648", "1e-2147483648",
                        "-9223372036854775808", "999999999999999999", "1e-2147483647", "12.5e-2147483647"};
                return s[r.nextInt(s.length)];
            }
            default: return sign(r) + digits(r, 1 + r.nextInt(7)) + "." + digits(r, 1 + r.nextInt(6));
        }
    }

    private static String blob(Random r) {
        StringBuilder sb = new StringBuilder(r.nextInt(8) == 0 ? "0X" : "0x");
        int n = r.nextInt(20);
        String hex = r.nextBoolean() ? "0123456789abcdef" : "0123456789ABCDEFabcdef";
        for (int i = 0; i < 2 * n; i++) sb.append(hex.charAt(r.nextInt(hex.length())));
        if (r.nextInt(10) == 0) sb.append('a'); // an odd count
        if (r.nextInt(10) == 0 && sb.length() > 2) sb.setCharAt(2 + r.nextInt(sb.length() - 2), 'g');
        return sb.toString();
    }

    private static String uuid(Random r, boolean time) {
        UUID u;
        if (time || r.nextInt(4) == 0) {
            long msb = r.nextLong();
            msb = (msb & ~0xF000L) | 0x1000L; // version 1
            u = new UUID(msb, (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L);
        } else {
            u = new UUID(r.nextLong(), r.nextLong());
        }
        String s = u.toString();
        switch (r.nextInt(12)) {
            case 0: return s.toUpperCase();
            case 1: return s.replace("-", "");
            case 2: return s.substring(1);
            case 3: return s.substring(0, 8) + "+" + s.substring(9);
            case 4: return UUID.randomUUID().toString(); // version 4, for a timeuuid column a refusal
            default: return s;
        }
    }

    private static String inet(Random r) {
        switch (r.nextInt(14)) {
            case 0: return r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(65536);
            case 1: return r.nextInt(256) + "." + r.nextInt(1 << 24);
            case 2: return Long.toString(r.nextLong() & 0xFFFF_FFFFL);
            case 3: return "::ffff:" + r.nextInt(256) + ".1.2." + r.nextInt(256);
            case 4: return "::1";
            case 5: return "[::1]";
            case 6: return "fe80::" + Integer.toHexString(r.nextInt(65536)) + ":" + Integer.toHexString(r.nextInt(65536));
            case 7: {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 8; i++) sb.append(i == 0 ? "" : ":").append(Integer.toHexString(r.nextInt(65536)));
                return r.nextBoolean() ? sb.toString() : sb.toString().toUpperCase();
            }
            case 8: return "2001:db8::" + r.nextInt(10) + ":" + r.nextInt(256) + "." + r.nextInt(256) + ".0.1";
            case 9: {
                String[] s = {"256.1.1.1", "1.2.3.4.5", "1..2.3", "localhost", "::", ":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "0", "01.02.03.004",
                        "[1.2.3.4]", "::ffff:1.2.3", "1.2.3.", "fe80::1%eth0", "4294967296", "12345678:1::"};
                return s[r.nextInt(s.length)];
            }
            default: return r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256);
        }
    }

    private static String two(int x) {
        return x < 10 ? "0" + x : Integer.toString(x);
    }

    private static String date(Random r) {
        int y = r.nextInt(20) == 0 ? r.nextInt(10_000) : 1900 + r.nextInt(200);
        int m = 1 + r.nextInt(r.nextInt(20) == 0 ? 13 : 12), d = 1 + r.nextInt(r.nextInt(10) == 0 ? 31 : 28);
        String ymd = String.format("%04d-%s-%s", y, two(m), two(d));
        switch (r.nextInt(14)) {
            case 0: return Long.toString(r.nextLong() & 0xFFFF_FFFFL);
            case 1: return "-" + r.nextInt(5);
            case 2: return "4294967296";
            case 3: return y + "-" + m + "-" + d;
            case 4: return "+" + ymd;
            case 5: return "2024-02-29";
            case 6: return "2023-02-29";
            case 7: return "0000-01-01";
            default: return ymd;
        }
    }

    private static String time(Random r) {
        String hms = two(r.nextInt(r.nextInt(20) == 0 ? 25 : 24)) + ":" + two(r.nextInt(r.nextInt(20) == 0 ? 61 : 60)) + ":"
                + two(r.nextInt(r.nextInt(20) == 0 ? 61 : 60));
        switch (r.nextInt(12)) {
            case 0: return Long.toString((r.nextLong() & Long.MAX_VALUE) % 86_400_000_000_000L);
            case 1: return "86400000000000";
            case 2: return hms + "." + digits(r, 1 + r.nextInt(11));
            case 3: return r.nextInt(24) + ":" + r.nextInt(60) + ":" + r.nextInt(60);
            case 4: return hms + ".";
            case 5: return "+1:02:03";
            case 6: return two(r.nextInt(24)) + ":" + two(r.nextInt(60));
            default: return hms + (r.nextBoolean() ? "" : "." + digits(r, 1 + r.nextInt(9)));
        }
    }

    private static String timestamp(Random r) {
        String date = date(r);
        String time = two(r.nextInt(r.nextInt(30) == 0 ? 25 : 24)) + ":" + two(r.nextInt(60))
                + (r.nextInt(5) == 0 ? "" : ":" + two(r.nextInt(r.nextInt(30) == 0 ? 61 : 60))
                        + (r.nextInt(3) == 0 ? "" : "." + digits(r, 1 + r.nextInt(r.nextInt(10) == 0 ? 11 : 9))));
        String[] zones = {"+0000", "Z", "-0800", "+05:30", "+01", "-00", "+1800", "+1801", "+0160", " +0100", " Z", "", "UTC", " UTC",
                "+1", "z", "+01:3", " Europe/Paris", "-11:45"};
        switch (r.nextInt(12)) {
            case 0: return Long.toString(r.nextLong() >> r.nextInt(40));
            case 1: return r.nextBoolean() ? "now" : "NOW";
            case 2: return date + zones[r.nextInt(zones.length)];
            default: return date + (r.nextInt(4) == 0 ? "T" : " ") + time + zones[r.nextInt(zones.length)];
        }
    }

    private static final String[] PIECES = {"a", "b", "Z", " ", ",", ";", "\"", "'", "\\", "|", "\t", "é", "中", "😀", "x y", "0", "\\n",
            "--", "null", "NULL", "\u00a0", "\u2003"};

    private static String string(Random r) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(10) == 0 ? r.nextInt(300) : r.nextInt(8);
        for (int i = 0; i < n; i++) sb.append(PIECES[r.nextInt(PIECES.length)]);
        return sb.toString();
    }
}
