package dev.flushline.schema;

/**
 * The text forms of native CQL values, read from a range of chars straight into a byte array: the
 * rules that the value model ({@link ValueCodec}, from Strings) and the load's fast paths (from the
 * chars of a JSON token or a CSV field, into a reused buffer, with no object per value) apply, each
 * written once here.
 *
 * <p>A method reads {@code c[from, to)}, writes the serialized value at {@code out[at]} and returns
 * how many bytes it wrote, or {@link #DECLINED} when the text is not a form it takes. What it takes
 * it turns into exactly the bytes {@link ValueCodec#encode} makes of the same String; what it
 * declines is left to ValueCodec, which takes the longer forms (digits beyond a long, zones by
 * name, local times in the JVM's zone, ...) or words the error. So a caller that falls back to
 * ValueCodec on a decline accepts, refuses and says exactly what ValueCodec alone would. The forms
 * are ASCII: any other char declines (Java's number parsers would take other scripts' digits).
 *
 * <p>Room: the caller makes sure {@code out} has room for the value from {@code at}: at most
 * {@link #MAX_FIXED_BYTES} for every method but {@link #utf8} (3 per char) and {@link #hex} (one
 * per two chars).
 *
 * <p>Thread safety: stateless.
 */
public final class ValueChars {
    private ValueChars() {}

    /** Returned where the text is not a form taken here. */
    public static final int DECLINED = -1;
    /** The most bytes any method but utf8 and hex writes: a decimal's int32 scale and 8-byte unscaled value, or an IPv6 address. */
    public static final int MAX_FIXED_BYTES = 16;

    /** Returned by {@link #unscaled} for text that is not a decimal number it takes. */
    private static final long NOT_A_NUMBER = Long.MIN_VALUE;
    /** More significant digits than this may not fit a long; such numbers are declined. */
    private static final int MAX_UNSCALED_DIGITS = 18;
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    // ---------------------------------------------------------------------------------------
    // bytes

    /** The low {@code bytes} bytes of {@code x}, big-endian, at {@code out[at]}; returns {@code bytes}. */
    public static int bigEndian(long x, int bytes, byte[] out, int at) {
        for (int i = bytes - 1; i >= 0; i--) {
            out[at + i] = (byte) x;
            x >>= 8;
        }
        return bytes;
    }

    /**
     * The chars as UTF-8 (text, varchar), or as ASCII when {@code asciiOnly}, declining a char past
     * 0x7F then; declines a surrogate that is not half of a pair. Writes at most 3 bytes per char.
     */
    public static int utf8(char[] c, int from, int to, boolean asciiOnly, byte[] out, int at) {
        int o = at;
        for (int i = from; i < to; i++) {
            char x = c[i];
            if (x < 0x80) {
                out[o++] = (byte) x;
            } else if (asciiOnly) {
                return DECLINED;
            } else if (x < 0x800) {
                out[o++] = (byte) (0xC0 | (x >> 6));
                out[o++] = (byte) (0x80 | (x & 0x3F));
            } else if (Character.isSurrogate(x)) {
                if (!Character.isHighSurrogate(x) || i + 1 == to || !Character.isLowSurrogate(c[i + 1])) return DECLINED;
                int cp = Character.toCodePoint(x, c[++i]);
                out[o++] = (byte) (0xF0 | (cp >> 18));
                out[o++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[o++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[o++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                out[o++] = (byte) (0xE0 | (x >> 12));
                out[o++] = (byte) (0x80 | ((x >> 6) & 0x3F));
                out[o++] = (byte) (0x80 | (x & 0x3F));
            }
        }
        return o - at;
    }

    // ---------------------------------------------------------------------------------------
    // integers

    /**
     * The value of the ASCII digits {@code c[from, to)}: at least one, and at most what a long holds
     * (Long.MIN_VALUE's magnitude does not, and is declined); -1 for anything else.
     */
    private static long magnitude(char[] c, int from, int to) {
        if (from >= to) return -1;
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = c[i] - '0';
            if (d < 0 || d > 9) return -1;
            if (v > (Long.MAX_VALUE - d) / 10) return -1;
            v = v * 10 + d;
        }
        return v;
    }

    /**
     * An integer in Java's {@code Long.parseLong} syntax ({@code [+-]?[0-9]+}, as tinyint, smallint,
     * int and bigint read their text), within [min, max], as its low {@code bytes} bytes.
     */
    public static int integer(char[] c, int from, int to, long min, long max, int bytes, byte[] out, int at) {
        boolean negative = from < to && c[from] == '-';
        int digits = from < to && (negative || c[from] == '+') ? from + 1 : from;
        long m = magnitude(c, digits, to);
        if (m < 0) return DECLINED;
        long x = negative ? -m : m;
        if (x < min || x > max) return DECLINED;
        return bigEndian(x, bytes, out, at);
    }

    /**
     * An integer written as Cassandra's raw-number patterns take it ({@code -?[0-9]+}: a timestamp's
     * milliseconds, a date's day number, a time's nanoseconds), within [min, max].
     */
    private static int rawNumber(char[] c, int from, int to, long min, long max, int bytes, byte[] out, int at) {
        if (from < to && c[from] == '+') return DECLINED;
        return integer(c, from, to, min, max, bytes, out, at);
    }

    /** Whether {@code c[from, to)} is {@code -?[0-9]+}: the raw-number form, whatever its range. */
    private static boolean isRawNumber(char[] c, int from, int to) {
        int i = from < to && c[from] == '-' ? from + 1 : from;
        if (i == to) return false;
        for (; i < to; i++) {
            if (c[i] < '0' || c[i] > '9') return false;
        }
        return true;
    }

    /**
     * A varint from {@code new BigInteger(text)}'s syntax, {@code [+-]?[0-9]+}, when it fits a long (and
     * the text is within {@link ValueCodec#MAX_NUMBER_CHARS}): its two's complement in the fewest bytes.
     */
    public static int varint(char[] c, int from, int to, byte[] out, int at) {
        if (to - from > ValueCodec.MAX_NUMBER_CHARS) return DECLINED;
        boolean negative = from < to && c[from] == '-';
        int digits = from < to && (negative || c[from] == '+') ? from + 1 : from;
        long m = magnitude(c, digits, to);
        if (m < 0) return DECLINED;
        return twosComplement(negative ? -m : m, out, at);
    }

    /** {@code x} in the fewest bytes that keep its sign, as BigInteger.toByteArray writes it (zero is one byte). */
    private static int twosComplement(long x, byte[] out, int at) {
        int bytes = 8;
        // drop a leading byte while the next one's top bit still carries the sign
        while (bytes > 1 && (x >> (8 * bytes - 9)) == (x >> 63)) bytes--;
        return bigEndian(x, bytes, out, at);
    }

    // ---------------------------------------------------------------------------------------
    // decimal numbers

    /**
     * The digits of a decimal number, {@code [+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?} (the
     * grammar BigDecimal and Double.parseDouble share, JSON's numbers among it), without its point:
     * the unscaled value, signed, when its significant digits fit {@link #MAX_UNSCALED_DIGITS} and its
     * exponent an int; else {@link #NOT_A_NUMBER}. {@link #scale} gives the rest.
     */
    private static long unscaled(char[] c, int from, int to) {
        int i = from;
        boolean negative = false;
        if (i < to && (c[i] == '-' || c[i] == '+')) negative = c[i++] == '-';
        long v = 0;
        int significant = 0, digits = 0;
        boolean point = false;
        for (; i < to; i++) {
            char x = c[i];
            if (x == '.' && !point) {
                point = true;
                continue;
            }
            if (x < '0' || x > '9') break;
            digits++;
            if (v != 0 || x != '0') {
                if (++significant > MAX_UNSCALED_DIGITS) return NOT_A_NUMBER;
                v = v * 10 + (x - '0');
            }
        }
        if (digits == 0) return NOT_A_NUMBER;
        if (i < to) {
            if (c[i] != 'e' && c[i] != 'E') return NOT_A_NUMBER;
            i++;
            if (i < to && (c[i] == '-' || c[i] == '+')) i++;
            if (i == to) return NOT_A_NUMBER;
            long exponent = 0;
            for (; i < to; i++) {
                if (c[i] < '0' || c[i] > '9') return NOT_A_NUMBER;
                exponent = exponent * 10 + (c[i] - '0');
                if (exponent > Integer.MAX_VALUE) return NOT_A_NUMBER; // BigDecimal takes an int exponent only
            }
        }
        return negative ? -v : v;
    }

    /** The scale of a number {@link #unscaled} took: digits after the point, less the exponent. */
    private static long scale(char[] c, int from, int to) {
        int i = from;
        long fraction = 0;
        boolean point = false;
        for (; i < to; i++) {
            char x = c[i];
            if (x == 'e' || x == 'E') break;
            if (x == '.') point = true;
            else if (point) fraction++;
        }
        long exponent = 0;
        if (i < to) {
            i++;
            boolean negative = c[i] == '-';
            if (c[i] == '-' || c[i] == '+') i++;
            for (; i < to; i++) exponent = exponent * 10 + (c[i] - '0');
            if (negative) exponent = -exponent;
        }
        return fraction - exponent;
    }

    private static final double[] POWERS_OF_TEN = {
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
            1e19, 1e20, 1e21, 1e22};

    /**
     * The nearest double to the decimal number {@code c[from, to)} (see {@link #unscaled} for its
     * grammar), or NaN when it cannot be had exactly without big arithmetic. Exact when the
     * significant digits fit in 15 decimal digits (so the integer is exact in a double) and the power
     * of ten is at most 22 either way (so it is exact too): one multiplication or division of two
     * exact doubles is then correctly rounded, the same double as BigDecimal.doubleValue and
     * Double.parseDouble give. A zero keeps its sign.
     */
    public static double exactDouble(char[] c, int from, int to) {
        long u = unscaled(c, from, to);
        if (u == NOT_A_NUMBER || Math.abs(u) >= 1_000_000_000_000_000L) return Double.NaN;
        long power = -scale(c, from, to);
        double d = (double) Math.abs(u);
        if (u != 0) {
            if (power > 22 || power < -22) return Double.NaN;
            d = power >= 0 ? d * POWERS_OF_TEN[(int) power] : d / POWERS_OF_TEN[(int) -power];
        }
        return c[from] == '-' ? -d : d;
    }

    /**
     * The nearest float to the decimal number {@code c[from, to)}, as Float.parseFloat rounds it (once,
     * from the decimal), or NaN when that needs big arithmetic. From {@link #exactDouble}: rounding that
     * double to float gives the float nearest the decimal unless the double lies exactly halfway between
     * two floats (the decimal, a little off that midpoint, may round the other way), or overflows; those
     * are declined. (A float midpoint is a double, so were one strictly between the decimal and its
     * nearest double, it would be nearer.)
     */
    public static float exactFloat(char[] c, int from, int to) {
        double d = exactDouble(c, from, to);
        if (Double.isNaN(d)) return Float.NaN;
        float f = (float) d;
        if (Float.isInfinite(f)) return Float.NaN;
        if ((double) f != d) {
            float other = d > f ? Math.nextUp(f) : Math.nextDown(f);
            if (((double) f + (double) other) * 0.5 == d) return Float.NaN;
        }
        return f;
    }

    /**
     * A decimal from {@code new BigDecimal(text)} (the text within {@link ValueCodec#MAX_NUMBER_CHARS}):
     * int32 scale, then the unscaled value's two's complement in the fewest bytes.
     */
    public static int decimal(char[] c, int from, int to, byte[] out, int at) {
        if (to - from > ValueCodec.MAX_NUMBER_CHARS) return DECLINED;
        long u = unscaled(c, from, to);
        if (u == NOT_A_NUMBER) return DECLINED;
        long scale = scale(c, from, to);
        if (scale < Integer.MIN_VALUE || scale > Integer.MAX_VALUE) return DECLINED; // BigDecimal refuses it
        bigEndian(scale, 4, out, at);
        return 4 + twosComplement(u, out, at + 4);
    }

    // ---------------------------------------------------------------------------------------
    // blob, uuid, inet

    /** The value of a hex digit, or -1. */
    public static int hexDigit(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    /**
     * The bytes of the hex digits {@code c[from, to)}, two a byte; REQUIRES an even count. Returns
     * the bytes written, or {@code ~i} (negative) where {@code c[i]} is the first char that is not a
     * hex digit.
     */
    public static int hex(char[] c, int from, int to, byte[] out, int at) {
        int o = at;
        for (int i = from; i < to; i += 2) {
            int hi = hexDigit(c[i]), lo = hexDigit(c[i + 1]);
            if (hi < 0) return ~i;
            if (lo < 0) return ~(i + 1);
            out[o++] = (byte) ((hi << 4) | lo);
        }
        return o - at;
    }

    /** A blob as {@code 0x} and an even number of hex digits. */
    public static int blob(char[] c, int from, int to, byte[] out, int at) {
        if (to - from < 2 || c[from] != '0' || c[from + 1] != 'x' || ((to - from) & 1) != 0) return DECLINED;
        int n = hex(c, from + 2, to, out, at);
        return n < 0 ? DECLINED : n;
    }

    /** A uuid in the canonical 8-4-4-4-12 hex form (either case), as its 16 bytes. */
    public static int uuid(char[] c, int from, int to, byte[] out, int at) {
        if (to - from != 36) return DECLINED;
        int o = at;
        for (int i = from; i < to; ) {
            int k = i - from;
            if (k == 8 || k == 13 || k == 18 || k == 23) {
                if (c[i] != '-') return DECLINED;
                i++;
                continue;
            }
            int hi = hexDigit(c[i]), lo = hexDigit(c[i + 1]);
            if (hi < 0 || lo < 0) return DECLINED;
            out[o++] = (byte) ((hi << 4) | lo);
            i += 2;
        }
        return 16;
    }

    /** The version of the uuid whose 16 bytes start at {@code b[at]} (a timeuuid is version 1). */
    public static int uuidVersion(byte[] b, int at) {
        return (b[at + 6] >> 4) & 0xF;
    }

    /**
     * An inet: an IPv4 literal as java.net.InetAddress takes it (see {@link #javaIpv4}), else an IPv6
     * literal (RFC 4291 text forms, optionally in brackets) as 16 bytes, or as 4 when it is an
     * IPv4-mapped address ({@code ::ffff:a.b.c.d}), as InetAddress gives it. Never a host name.
     */
    public static int inet(char[] c, int from, int to, byte[] out, int at) {
        if (javaIpv4(c, from, to, out, at)) return 4;
        int f = from, t = to;
        if (t - f > 2 && c[f] == '[' && c[t - 1] == ']') {
            f++;
            t--;
        }
        if (!ipv6(c, f, t, out, at)) return DECLINED;
        boolean mapped = out[at + 10] == (byte) 0xFF && out[at + 11] == (byte) 0xFF;
        for (int i = 0; i < 10 && mapped; i++) mapped = out[at + i] == 0;
        if (!mapped) return 16;
        System.arraycopy(out, at + 12, out, at, 4);
        return 4;
    }

    /**
     * The IPv4 literal forms java.net.InetAddress accepts (so Cassandra does): a.b.c.d, and the
     * legacy a.b.c, a.b and a where the last part fills the remaining bytes, all decimal.
     */
    private static boolean javaIpv4(char[] c, int from, int to, byte[] out, int at) {
        int n = to - from;
        if (n == 0 || n > 15) return false;
        int part = 0;
        long val = 0;
        boolean digits = false;
        for (int i = from; i < to; i++) {
            char x = c[i];
            if (x == '.') {
                if (!digits || val > 0xFF || part == 3) return false;
                out[at + part++] = (byte) val;
                val = 0;
                digits = false;
            } else if (x >= '0' && x <= '9') {
                val = val * 10 + (x - '0');
                if (val > 0xFFFF_FFFFL) return false;
                digits = true;
            } else {
                return false;
            }
        }
        if (!digits) return false;
        // the last part fills bytes part..3
        long limit = (1L << (8 * (4 - part))) - 1;
        if (val > limit) return false;
        for (int i = 3; i >= part; i--) {
            out[at + i] = (byte) val;
            val >>= 8;
        }
        return true;
    }

    /** Strict dotted quad, each part 0..255 in decimal, into out[at, at + 4). */
    private static boolean dottedQuad(char[] c, int from, int to, byte[] out, int at) {
        int part = 0, p = from;
        while (part < 4) {
            int start = p, val = 0;
            while (p < to && c[p] >= '0' && c[p] <= '9' && p - start < 3) {
                val = val * 10 + (c[p] - '0');
                p++;
            }
            if (p == start || val > 255) return false;
            out[at + part++] = (byte) val;
            if (part < 4) {
                if (p >= to || c[p] != '.') return false;
                p++;
            }
        }
        return p == to;
    }

    /** RFC 4291 text forms: 8 groups, one "::", optional trailing dotted quad; into out[at, at + 16). */
    private static boolean ipv6(char[] c, int from, int to, byte[] out, int at) {
        int n = to - from;
        if (n < 2) return false;
        java.util.Arrays.fill(out, at, at + 16, (byte) 0);
        int pos = 0, gap = -1, i = from;
        if (c[from] == ':' && c[from + 1] == ':') {
            gap = 0;
            i = from + 2;
            if (i == to) return true;
        } else if (c[from] == ':') {
            return false;
        }
        while (i < to) {
            if (pos >= 16) return false;
            int start = i, val = 0;
            while (i < to && hexDigit(c[i]) >= 0 && i - start < 4) {
                val = (val << 4) | hexDigit(c[i]);
                i++;
            }
            if (i < to && c[i] == '.') {
                // trailing IPv4 part
                if (pos > 12 || !dottedQuad(c, start, to, out, at + pos)) return false;
                pos += 4;
                break;
            }
            if (i == start) return false;
            out[at + pos++] = (byte) (val >> 8);
            out[at + pos++] = (byte) val;
            if (i == to) break;
            if (c[i] != ':') return false;
            i++;
            if (i < to && c[i] == ':') {
                if (gap >= 0) return false;
                gap = pos;
                i++;
                if (i == to) break;
            } else if (i == to) {
                return false; // trailing single colon
            }
        }
        if (gap >= 0) {
            if (pos == 16) return false;
            int tail = pos - gap;
            System.arraycopy(out, at + gap, out, at + 16 - tail, tail);
            java.util.Arrays.fill(out, at + gap, at + 16 - tail, (byte) 0);
        } else if (pos != 16) {
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------
    // date, time, timestamp

    /** Two ASCII digits at c[i], or -1. */
    private static int twoDigits(char[] c, int i) {
        int hi = c[i] - '0', lo = c[i + 1] - '0';
        if (hi < 0 || hi > 9 || lo < 0 || lo > 9) return -1;
        return hi * 10 + lo;
    }

    private static boolean isLeapYear(int year) {
        return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
    }

    private static int daysInMonth(int year, int month) {
        if (month == 2) return isLeapYear(year) ? 29 : 28;
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    }

    /**
     * Days since 1970-01-01 of {@code yyyy-mm-dd} at c[from] (ten chars: a four-digit year, a valid
     * month and day of it), or Long.MIN_VALUE. Counted in the proleptic Gregorian calendar, as
     * LocalDate.toEpochDay does: whole 400-year eras of 146,097 days, then the year of the era,
     * with March as the first month so that the leap day falls last.
     */
    private static long epochDay(char[] c, int from) {
        int yHi = twoDigits(c, from), yLo = twoDigits(c, from + 2);
        int month = twoDigits(c, from + 5), day = twoDigits(c, from + 8);
        if (yHi < 0 || yLo < 0 || c[from + 4] != '-' || c[from + 7] != '-' || month < 1 || month > 12 || day < 1) {
            return Long.MIN_VALUE;
        }
        int year = yHi * 100 + yLo;
        if (day > daysInMonth(year, month)) return Long.MIN_VALUE;
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097 + dayOfEra - 719_468;
    }

    /**
     * A date: a raw day number ({@code -?[0-9]+}, 0..2^32-1, already shifted by 2^31), or
     * {@code yyyy-mm-dd} with a four-digit year and a valid day: four bytes, days since the epoch
     * plus 2^31.
     */
    public static int date(char[] c, int from, int to, byte[] out, int at) {
        if (isRawNumber(c, from, to)) return rawNumber(c, from, to, 0, 0xFFFF_FFFFL, 4, out, at);
        if (to - from != 10) return DECLINED;
        long days = epochDay(c, from);
        if (days == Long.MIN_VALUE) return DECLINED;
        return bigEndian(days - Integer.MIN_VALUE, 4, out, at);
    }

    /**
     * The digits of a time of day at c[from, to): {@code h[h]:m[m]:s[s][.f{1,9}]}; nanoseconds since
     * midnight, or -1. Hours below 24, minutes and seconds below 60.
     */
    private static long timeOfDay(char[] c, int from, int to) {
        int i = from;
        long nanos = 0;
        for (int field = 0; field < 3; field++) {
            int start = i, v = 0;
            while (i < to && i - start < 2 && c[i] >= '0' && c[i] <= '9') v = v * 10 + (c[i++] - '0');
            if (i == start || v >= (field == 0 ? 24 : 60)) return -1;
            nanos = nanos * 60 + v;
            if (field < 2) {
                if (i == to || c[i] != ':') return -1;
                i++;
            }
        }
        nanos *= 1_000_000_000L;
        if (i < to) {
            if (c[i] != '.') return -1;
            int start = ++i;
            long scale = 100_000_000L;
            for (; i < to && i - start < 9; i++) {
                if (c[i] < '0' || c[i] > '9') return -1;
                nanos += (c[i] - '0') * scale;
                scale /= 10;
            }
            if (i == start || i != to) return -1;
        }
        return nanos;
    }

    /**
     * A time: raw nanoseconds ({@code -?[0-9]+}, below a day), or {@code h[h]:m[m]:s[s][.f{1,9}]}:
     * eight bytes of nanoseconds since midnight.
     */
    public static int time(char[] c, int from, int to, byte[] out, int at) {
        if (isRawNumber(c, from, to)) return rawNumber(c, from, to, 0, NANOS_PER_DAY - 1, 8, out, at);
        long nanos = timeOfDay(c, from, to);
        if (nanos < 0) return DECLINED;
        return bigEndian(nanos, 8, out, at);
    }

    /**
     * A timestamp: raw milliseconds ({@code -?[0-9]+}), or the date-time form cqlsh's COPY writes and
     * ISO 8601 with an offset: {@code yyyy-mm-dd}, {@code T} or a space, {@code hh:mm[:ss[.f{1,9}]]},
     * then an offset, after at most one space: {@code Z}, {@code +hh}, {@code +hhmm} or {@code +hh:mm}
     * (or {@code -}), at most 18 hours. Year 0001..9999, a valid day, hours below 24, minutes and
     * seconds below 60; the fraction is cut to milliseconds. Eight bytes of milliseconds since the
     * epoch. Declined: {@code now}, a date alone, no offset (the JVM's zone), a zone by name.
     */
    public static int timestamp(char[] c, int from, int to, byte[] out, int at) {
        if (isRawNumber(c, from, to)) return rawNumber(c, from, to, Long.MIN_VALUE, Long.MAX_VALUE, 8, out, at);
        // date, separator, hh:mm; then optional :ss and fraction, the offset last
        if (to - from < 17 || c[from] == '0' && c[from + 1] == '0' && c[from + 2] == '0' && c[from + 3] == '0') return DECLINED;
        long days = epochDay(c, from);
        char sep = c[from + 10];
        if (days == Long.MIN_VALUE || (sep != 'T' && sep != ' ')) return DECLINED;
        int i = from + 11;
        int hour = twoDigits(c, i), minute = twoDigits(c, i + 3);
        if (hour < 0 || hour > 23 || c[i + 2] != ':' || minute < 0 || minute > 59) return DECLINED;
        i += 5;
        int second = 0;
        long millis = 0;
        if (i < to && c[i] == ':') {
            if (to - i < 3) return DECLINED;
            second = twoDigits(c, i + 1);
            if (second < 0 || second > 59) return DECLINED;
            i += 3;
            if (i < to && c[i] == '.') {
                int start = ++i;
                long scale = 100;
                for (; i < to && c[i] >= '0' && c[i] <= '9'; i++) {
                    if (i - start == 9) return DECLINED;
                    millis += (c[i] - '0') * scale;
                    scale /= 10;
                }
                if (i == start) return DECLINED;
            }
        }
        if (i < to && c[i] == ' ') i++;
        long offsetSeconds = offset(c, i, to);
        if (offsetSeconds == Long.MIN_VALUE) return DECLINED;
        long epochSeconds = days * 86_400 + hour * 3_600L + minute * 60L + second - offsetSeconds;
        return bigEndian(epochSeconds * 1_000 + millis, 8, out, at);
    }

    /** The offset c[from, to): Z, [+-]hh, [+-]hhmm or [+-]hh:mm, at most 18 hours; seconds east, or Long.MIN_VALUE. */
    private static long offset(char[] c, int from, int to) {
        int n = to - from;
        if (n == 1) return c[from] == 'Z' ? 0 : Long.MIN_VALUE;
        if (n != 3 && n != 5 && n != 6 || (c[from] != '+' && c[from] != '-')) return Long.MIN_VALUE;
        int hours = twoDigits(c, from + 1), minutes = 0;
        if (n == 5) minutes = twoDigits(c, from + 3);
        if (n == 6) minutes = c[from + 3] == ':' ? twoDigits(c, from + 4) : -1;
        if (hours < 0 || minutes < 0 || minutes > 59) return Long.MIN_VALUE;
        long seconds = hours * 3_600L + minutes * 60L;
        if (seconds > 18 * 3_600) return Long.MIN_VALUE;
        return c[from] == '-' ? -seconds : seconds;
    }
}
