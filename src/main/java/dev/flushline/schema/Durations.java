package dev.flushline.schema;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CQL duration literals and values, as cassandra-all 5.0.9's {@code Duration} reads and prints
 * them, and the serialized form of {@code DurationType}.
 *
 * <p>A duration is three numbers of one sign: months (int), days (int) and nanoseconds (long).
 * Literals accepted ({@link #parse}), each optionally preceded by '-':
 * <ul>
 *   <li>units: one or more {@code <digits><unit>}, units in this order, each at most once:
 *       {@code y}, {@code mo}, {@code w}, {@code d}, {@code h}, {@code m}, {@code s}, {@code ms},
 *       {@code us} (or {@code µs}), {@code ns}; ASCII letters in any case ({@code 1H30M});
 *   <li>ISO 8601 with designators: {@code P[nY][nM][nD][T[nH][nM][nS]]} (upper case only);
 *   <li>ISO 8601 weeks: {@code PnW};
 *   <li>ISO 8601 alternative: {@code Pyyyy-mm-ddThh:mm:ss} (exactly those digit counts).
 * </ul>
 * Totals must fit: months and days at most {@code Integer.MAX_VALUE}, nanoseconds at most
 * {@code Long.MAX_VALUE}.
 *
 * <pre>
 *   serialized value: vint months | vint days | vint nanoseconds   (signed, zigzag vints)
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
public final class Durations {
    private Durations() {}

    static final long NANOS_PER_MICRO = 1_000L;
    static final long NANOS_PER_MILLI = 1_000_000L;
    static final long NANOS_PER_SECOND = 1_000_000_000L;
    static final long NANOS_PER_MINUTE = 60 * NANOS_PER_SECOND;
    static final long NANOS_PER_HOUR = 60 * NANOS_PER_MINUTE;

    /** One number and its unit, each match starting where the previous ended ({@code \G}). */
    private static final Pattern UNIT = Pattern.compile("\\G([0-9]+)(mo|ms|us|µs|ns|y|w|d|h|m|s)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern ISO = Pattern.compile("P(?:([0-9]+)Y)?(?:([0-9]+)M)?(?:([0-9]+)D)?"
            + "(T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)S)?)?");
    private static final Pattern ISO_WEEKS = Pattern.compile("P([0-9]+)W");
    private static final Pattern ISO_ALTERNATIVE = Pattern.compile("P([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})");

    /** Units in the order a literal must give them; the index is the unit's rank. */
    private static final String[] UNIT_NAMES = {"", "years", "months", "weeks", "days", "hours", "minutes", "seconds",
            "milliseconds", "microseconds", "nanoseconds"};

    /** Months, days, nanoseconds. */
    static final class Value {
        final int months;
        final int days;
        final long nanos;

        Value(int months, int days, long nanos) {
            this.months = months;
            this.days = days;
            this.nanos = nanos;
        }
    }

    /** Adds units in order, checking each total, as Cassandra's builder does. */
    private static final class Builder {
        private final String literal;
        private long months, days, nanos;
        private int lastRank;

        Builder(String literal) {
            this.literal = literal;
        }

        Builder add(int rank, String digits) {
            if (rank == lastRank) throw bad(literal, "the " + UNIT_NAMES[rank] + " are given twice");
            if (rank < lastRank) throw bad(literal, "the " + UNIT_NAMES[rank] + " must come before the " + UNIT_NAMES[lastRank]);
            lastRank = rank;
            long n;
            try {
                n = Long.parseLong(digits);
            } catch (NumberFormatException e) {
                throw bad(literal, "the number of " + UNIT_NAMES[rank] + " is out of range");
            }
            switch (rank) {
                case 1: months = addChecked(months, n, 12, Integer.MAX_VALUE, "months"); break;
                case 2: months = addChecked(months, n, 1, Integer.MAX_VALUE, "months"); break;
                case 3: days = addChecked(days, n, 7, Integer.MAX_VALUE, "days"); break;
                case 4: days = addChecked(days, n, 1, Integer.MAX_VALUE, "days"); break;
                case 5: nanos = addChecked(nanos, n, NANOS_PER_HOUR, Long.MAX_VALUE, "nanoseconds"); break;
                case 6: nanos = addChecked(nanos, n, NANOS_PER_MINUTE, Long.MAX_VALUE, "nanoseconds"); break;
                case 7: nanos = addChecked(nanos, n, NANOS_PER_SECOND, Long.MAX_VALUE, "nanoseconds"); break;
                case 8: nanos = addChecked(nanos, n, NANOS_PER_MILLI, Long.MAX_VALUE, "nanoseconds"); break;
                case 9: nanos = addChecked(nanos, n, NANOS_PER_MICRO, Long.MAX_VALUE, "nanoseconds"); break;
                case 10: nanos = addChecked(nanos, n, 1, Long.MAX_VALUE, "nanoseconds"); break;
                default: throw new AssertionError(rank);
            }
            return this;
        }

        private long addChecked(long total, long units, long perUnit, long max, String what) {
            if (units > (max - total) / perUnit) {
                throw bad(literal, "the total number of " + what + " must be at most " + max);
            }
            return total + units * perUnit;
        }

        Value build(boolean negative) {
            return negative ? new Value((int) -months, (int) -days, -nanos) : new Value((int) months, (int) days, nanos);
        }
    }

    private static ValueException bad(String literal, String why) {
        return new ValueException(ValueText.display(literal) + " is not a duration (" + why + ")");
    }

    /** A duration literal (see the class comment). REQUIRES: not empty. @throws ValueException if it is not one. */
    static Value parse(String input) {
        boolean negative = input.startsWith("-");
        String s = negative ? input.substring(1) : input;
        Builder b = new Builder(input);
        if (s.startsWith("P")) {
            Matcher m;
            if (s.endsWith("W")) {
                m = ISO_WEEKS.matcher(s);
                if (!m.matches()) throw bad(input, "expected PnW");
                return b.add(3, m.group(1)).build(negative);
            }
            if (s.contains("-")) {
                m = ISO_ALTERNATIVE.matcher(s);
                if (!m.matches()) throw bad(input, "expected Pyyyy-mm-ddThh:mm:ss");
                return b.add(1, m.group(1)).add(2, m.group(2)).add(4, m.group(3)).add(5, m.group(4))
                        .add(6, m.group(5)).add(7, m.group(6)).build(negative);
            }
            m = ISO.matcher(s);
            if (!m.matches()) throw bad(input, "expected P[nY][nM][nD][T[nH][nM][nS]]");
            if (m.group(1) != null) b.add(1, m.group(1));
            if (m.group(2) != null) b.add(2, m.group(2));
            if (m.group(3) != null) b.add(4, m.group(3));
            if (m.group(4) != null) {
                if (m.group(5) != null) b.add(5, m.group(5));
                if (m.group(6) != null) b.add(6, m.group(6));
                if (m.group(7) != null) b.add(7, m.group(7));
            }
            return b.build(negative);
        }
        Matcher m = UNIT.matcher(s);
        int end = -1;
        while (m.find()) {
            b.add(rank(m.group(2)), m.group(1));
            end = m.end();
        }
        if (end != s.length()) throw bad(input, "expected numbers with units, as 1h30m, or an ISO 8601 duration");
        return b.build(negative);
    }

    private static int rank(String unit) {
        switch (unit.toLowerCase(java.util.Locale.ROOT)) {
            case "y": return 1;
            case "mo": return 2;
            case "w": return 3;
            case "d": return 4;
            case "h": return 5;
            case "m": return 6;
            case "s": return 7;
            case "ms": return 8;
            case "us":
            case "µs": return 9;
            case "ns": return 10;
            default: throw new AssertionError(unit);
        }
    }

    /** The serialized value: three signed vints. */
    static byte[] serialize(Value v) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(12);
        CqlTypes.writeUnsignedVInt(out, CqlTypes.zigzagEncode(v.months));
        CqlTypes.writeUnsignedVInt(out, CqlTypes.zigzagEncode(v.days));
        CqlTypes.writeUnsignedVInt(out, CqlTypes.zigzagEncode(v.nanos));
        return out.toByteArray();
    }

    /**
     * The three numbers of a serialized duration. REQUIRES: a valid value (see
     * {@link ValueValidator}); @throws IllegalArgumentException if it is truncated.
     */
    static long[] read(byte[] b, int off, int len) {
        long[] v = new long[3];
        int p = off, end = off + len;
        for (int i = 0; i < 3; i++) {
            if (p >= end || CqlTypes.sizeOfUnsignedVIntAt(b, p) > end - p) throw new IllegalArgumentException("truncated duration");
            v[i] = CqlTypes.zigzagDecode(CqlTypes.readUnsignedVInt(b, p));
            p += CqlTypes.sizeOfUnsignedVIntAt(b, p);
        }
        return v;
    }

    /**
     * Cassandra's {@code Duration.toString()} of a serialized value: '-' if negative, then
     * years, months ("mo"), days, hours, minutes, seconds, ms, us, ns, each only if non-zero;
     * the zero duration is the empty string.
     */
    public static String toString(byte[] b, int off, int len) {
        long[] v = read(b, off, len);
        int months = (int) v[0], days = (int) v[1];
        long nanos = v[2];
        StringBuilder sb = new StringBuilder();
        if (nanos < 0 || days < 0 || months < 0) sb.append('-');
        long rest = append(sb, Math.abs((long) months), 12, "y");
        append(sb, rest, 1, "mo");
        append(sb, Math.abs((long) days), 1, "d");
        if (nanos != 0) {
            rest = append(sb, Math.abs(nanos), NANOS_PER_HOUR, "h");
            rest = append(sb, rest, NANOS_PER_MINUTE, "m");
            rest = append(sb, rest, NANOS_PER_SECOND, "s");
            rest = append(sb, rest, NANOS_PER_MILLI, "ms");
            rest = append(sb, rest, NANOS_PER_MICRO, "us");
            append(sb, rest, 1, "ns");
        }
        return sb.toString();
    }

    private static long append(StringBuilder sb, long dividend, long divisor, String unit) {
        if (dividend == 0 || dividend < divisor) return dividend;
        sb.append(dividend / divisor).append(unit);
        return dividend % divisor;
    }
}
