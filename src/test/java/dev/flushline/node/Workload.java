package dev.flushline.node;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.type.codec.TypeCodec;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Random CQL operations on one table, each produced twice: as the JSON Lines operations that
 * {@code flushline load} reads (README, "Command line"), and as the CQL statements (with bound values)
 * that do the same thing on a live node. The test loads the first into sstables and imports them
 * into one table, executes the second against a twin table, and compares the two: the node's own
 * write path is the expectation, independent of Flushline's decoder, memtable and flush code.
 *
 * <p>Each value is generated once as the Java object the driver binds; its bytes come from the
 * driver's codecs (not Flushline's ValueCodec) and its JSON text from {@link #json} renderings in
 * Cassandra's JSON conventions. So Flushline's reading of the JSON is checked against the node.
 *
 * <p>Operations, one CQL statement per JSON line: INSERT (row liveness, optional TTL, nulls as
 * cell tombstones, collections assigned), UPDATE (no liveness; {@code set} of values, nulls and
 * whole collections, {@code add} to collections), static-column writes, deletion of cells and
 * whole collections, rows, clustering ranges (bounded, half-open, prefix) and partitions.
 *
 * <p>Every operation gets its own timestamp, three apart and sometimes swapped with a neighbour
 * (out-of-order writes): two writes never tie on a timestamp, so no result depends on
 * tie-breaking by local deletion time, which differs between the two paths (Flushline's --now
 * vs. the node's clock) by the seconds between them. TTLs are at least an hour, so nothing
 * expires while the test runs.
 */
final class Workload {
    /** One CQL statement for the twin table: {@code %s} stands for the qualified table name. */
    record Statement(String cql, List<ByteBuffer> values) {}

    /** One operation in both forms: JSON Lines for {@code flushline load}, CQL for the node, one line per statement. */
    record Op(List<String> json, List<Statement> statements) {}

    /**
     * One value: the driver's Java object, its bytes as the driver serializes it, its JSON text,
     * and its text as a JSON object key (a map key: the string itself, or the number's digits).
     */
    record Value(Object java, byte[] bytes, String json, String keyText) {
        ByteBuffer buffer() { return bytes == null ? null : ByteBuffer.wrap(bytes); }
    }

    private static final Value NULL = new Value(null, null, "null", null);

    private final TableSchema schema;
    private final Random random;
    private final List<Value[]> keyPool = new ArrayList<>();
    private final List<Value[]> clusteringPool = new ArrayList<>();

    Workload(TableSchema schema, long seed, int keys, int clusterings) {
        this.schema = schema;
        this.random = new Random(seed);
        for (int i = 0; i < keys * 4 && keyPool.size() < keys; i++) {
            Value[] k = randomValues(schema.partitionKeyColumns());
            // Cassandra refuses an empty partition key (component); duplicates would only shrink the pool.
            if (Arrays.stream(k).anyMatch(v -> v.bytes.length == 0) || contains(keyPool, k)) continue;
            keyPool.add(k);
        }
        for (int i = 0; i < clusterings * 4 && clusteringPool.size() < clusterings; i++) {
            Value[] c = randomValues(schema.clusteringColumns());
            if (!contains(clusteringPool, c)) clusteringPool.add(c);
        }
    }

    private static boolean contains(List<Value[]> pool, Value[] v) {
        for (Value[] p : pool) {
            boolean same = true;
            for (int i = 0; i < v.length; i++) same &= Arrays.equals(p[i].bytes, v[i].bytes);
            if (same) return true;
        }
        return false;
    }

    private Value[] randomValues(ColumnMetadata[] cols) {
        Value[] v = new Value[cols.length];
        for (int i = 0; i < cols.length; i++) v[i] = value(cols[i].type());
        return v;
    }

    /** {@code count} operations with distinct timestamps from {@code firstTimestamp} on. */
    List<Op> ops(int count, long firstTimestamp) {
        long[] ts = new long[count];
        for (int i = 0; i < count; i++) ts[i] = firstTimestamp + 3L * i;
        for (int i = 1; i < count; i++) {
            if (random.nextInt(10) == 0) { long t = ts[i]; ts[i] = ts[i - 1]; ts[i - 1] = t; }
        }
        List<Op> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) out.add(op(ts[i]));
        return out;
    }

    private Op op(long ts) {
        Value[] key = keyPool.get(random.nextInt(keyPool.size()));
        boolean hasClustering = schema.clusteringColumns().length > 0;
        Value[] clustering = hasClustering ? clusteringPool.get(random.nextInt(clusteringPool.size())) : new Value[0];
        int r = random.nextInt(100);
        List<Statement> st = new ArrayList<>();
        List<String> json = new ArrayList<>();
        if (r < 3) {
            st.add(new Statement("DELETE FROM %s USING TIMESTAMP " + ts + " WHERE " + keyWhere(), buffers(key)));
            json.add(obj(fields("op", str("delete"), "timestamp", Long.toString(ts), "key", obj(keyJson(key, clustering, 0)))));
            return new Op(json, st);
        }
        if (hasClustering && r < 8) {
            return rangeDelete(key, ts);
        }
        if (hasClustering && r < 13) {
            List<ByteBuffer> v = buffers(key);
            v.addAll(buffers(clustering));
            st.add(new Statement("DELETE FROM %s USING TIMESTAMP " + ts + " WHERE " + keyWhere() + " AND " + clusteringWhere(clustering.length), v));
            json.add(obj(fields("op", str("delete"), "timestamp", Long.toString(ts),
                    "key", obj(keyJson(key, clustering, clustering.length)))));
            return new Op(json, st);
        }
        boolean cellDelete = r < 20;
        boolean insert = !cellDelete && r < 70;
        int ttl = !cellDelete && random.nextInt(100) < 20 ? 3600 + random.nextInt(100_000) : 0;
        boolean wrote = false;
        if (schema.staticColumns().length > 0 && random.nextInt(100) < 30) {
            wrote = writeColumns(true, key, clustering, ts, ttl, false, cellDelete, st, json);
        }
        if (insert || schema.regularColumns().length > 0) {
            wrote |= writeColumns(false, key, clustering, ts, ttl, insert, cellDelete, st, json);
        }
        if (!wrote) return op(ts); // nothing written: draw again with the same timestamp
        return new Op(json, st);
    }

    /**
     * DELETE with equality on a clustering prefix, then either equality on the next column (a
     * prefix, or a row when that was the last column) or a slice of it: JSON {@code "range"}
     * with the same value operators as the CQL WHERE clause.
     */
    private Op rangeDelete(Value[] key, long ts) {
        ColumnMetadata[] cc = schema.clusteringColumns();
        int n = cc.length;
        Value[] a = clusteringPool.get(random.nextInt(clusteringPool.size()));
        Value[] b = clusteringPool.get(random.nextInt(clusteringPool.size()));
        int p = random.nextInt(n); // equality on the first p columns, then a slice on column p
        List<ByteBuffer> v = buffers(key);
        v.addAll(buffers(Arrays.copyOf(a, p)));
        StringBuilder where = new StringBuilder(keyWhere());
        if (p > 0) where.append(" AND ").append(clusteringWhere(p));
        Map<String, String> keyJson = keyJson(key, a, p);
        Map<String, String> op = fields("op", str("delete"), "timestamp", Long.toString(ts));
        ColumnMetadata c = cc[p];
        Value lo = a[p], hi = b[p];
        if (c.compareClustering(lo.bytes, hi.bytes) > 0) { Value t = lo; lo = hi; hi = t; } // lo first in clustering order
        int shape = random.nextInt(5);
        if (shape == 0 || c.compareClustering(lo.bytes, hi.bytes) == 0) {
            // DELETE ... WHERE c_p = x: a prefix (or the row, if c_p is the last clustering column)
            where.append(" AND ").append(q(c)).append(" = ?");
            v.add(lo.buffer());
            keyJson.put(c.name(), lo.json);
            op.put("key", obj(keyJson));
        } else {
            boolean hasStart = shape != 1, hasEnd = shape != 2;
            boolean startIncl = random.nextBoolean(), endIncl = random.nextBoolean();
            // Clustering order is value order, reversed for a DESC column: the slice that starts at
            // lo (in clustering order) is "c >= lo" for ASC and "c <= lo" for DESC.
            String after = c.isReversed() ? "<" : ">", before = c.isReversed() ? ">" : "<";
            Map<String, String> bounds = new LinkedHashMap<>();
            if (hasStart) {
                String operator = after + (startIncl ? "=" : "");
                where.append(" AND ").append(q(c)).append(' ').append(operator).append(" ?");
                v.add(lo.buffer());
                bounds.put(operator, lo.json);
            }
            if (hasEnd) {
                String operator = before + (endIncl ? "=" : "");
                where.append(" AND ").append(q(c)).append(' ').append(operator).append(" ?");
                v.add(hi.buffer());
                bounds.put(operator, hi.json);
            }
            op.put("key", obj(keyJson));
            op.put("range", obj(fields(c.name(), obj(bounds))));
        }
        Statement s = new Statement("DELETE FROM %s USING TIMESTAMP " + ts + " WHERE " + where, v);
        return new Op(List.of(obj(op)), List.of(s));
    }

    /**
     * A write to the static row or one regular row: some simple columns (values or nulls), some
     * collections (assigned, possibly null or empty, or appended to), or, for a cell deletion,
     * DELETE of some columns. Adds its statements and JSON lines; returns false when it chose no
     * column and wrote nothing.
     */
    private boolean writeColumns(boolean isStatic, Value[] key, Value[] clustering, long ts, int ttl, boolean insert,
                                 boolean cellDelete, List<Statement> st, List<String> json) {
        ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
        String using = " USING TIMESTAMP " + ts + (ttl == 0 ? "" : " AND TTL " + ttl);
        List<ByteBuffer> where = buffers(key);
        String whereText = keyWhere();
        if (!isStatic && clustering.length > 0) {
            where.addAll(buffers(clustering));
            whereText += " AND " + clusteringWhere(clustering.length);
        }
        Map<String, String> keyJson = keyJson(key, clustering, isStatic ? 0 : clustering.length);
        List<String> insertCols = new ArrayList<>();
        List<ByteBuffer> insertValues = new ArrayList<>();
        Map<String, String> insertJson = new LinkedHashMap<>(keyJson);
        List<String> sets = new ArrayList<>();
        List<ByteBuffer> setValues = new ArrayList<>();
        Map<String, String> setJson = new LinkedHashMap<>(), addJson = new LinkedHashMap<>();
        List<String> deletes = new ArrayList<>();
        for (ColumnMetadata c : cols) {
            if (random.nextInt(3) == 0) continue; // column not touched by this write
            if (cellDelete) {
                // DELETE c: a cell tombstone, or for a non-frozen collection a complex deletion.
                deletes.add(q(c));
                continue;
            }
            boolean append = false;
            Value v;
            if (!c.isComplex()) {
                v = random.nextInt(10) == 0 ? NULL : value(c.type());
            } else if (random.nextBoolean()) {
                // c = ?: a complex deletion at ts - 1, then the elements (none for null or empty).
                v = random.nextInt(8) == 0 ? NULL : value(c.type());
            } else {
                // c = c + ?: only the elements; an empty append writes nothing, in CQL as in JSON.
                v = value(c.type());
                if (((java.util.Collection<?>) (v.java instanceof Map ? ((Map<?, ?>) v.java).keySet() : v.java)).isEmpty()) continue;
                append = true;
            }
            if (append) {
                sets.add(q(c) + " = " + q(c) + " + ?");
                setValues.add(v.buffer());
                addJson.put(c.name(), v.json);
            } else if (insert) {
                insertCols.add(q(c));
                insertValues.add(v.buffer());
                insertJson.put(c.name(), v.json);
            } else {
                sets.add(q(c) + " = ?");
                setValues.add(v.buffer());
                setJson.put(c.name(), v.json);
            }
        }
        boolean liveness = insert && !isStatic;
        if (!liveness && deletes.isEmpty() && insertCols.isEmpty() && sets.isEmpty()) return false;
        Map<String, String> head = fields("op", str(cellDelete ? "delete" : "insert"), "timestamp", Long.toString(ts));
        if (ttl != 0) head.put("ttl", Integer.toString(ttl));
        else if (!cellDelete && random.nextInt(4) == 0) head.put("ttl", "0"); // explicit "no TTL", as USING TTL 0
        if (cellDelete) {
            st.add(new Statement("DELETE " + String.join(", ", deletes) + " FROM %s USING TIMESTAMP " + ts + " WHERE " + whereText, where));
            List<String> names = new ArrayList<>();
            for (ColumnMetadata c : cols) if (deletes.contains(q(c))) names.add(str(c.name()));
            head.put("key", obj(keyJson));
            head.put("columns", "[" + String.join(",", names) + "]");
            json.add(obj(head));
            return true;
        }
        if (liveness) {
            List<String> names = new ArrayList<>(keyNames());
            for (ColumnMetadata c : schema.clusteringColumns()) names.add(q(c));
            names.addAll(insertCols);
            List<ByteBuffer> vals = new ArrayList<>(where);
            vals.addAll(insertValues);
            st.add(new Statement("INSERT INTO %s (" + String.join(", ", names) + ") VALUES ("
                    + String.join(", ", Collections.nCopies(names.size(), "?")) + ")" + using, vals));
            Map<String, String> ins = new LinkedHashMap<>(head);
            ins.put("values", obj(insertJson));
            json.add(obj(ins));
        }
        if (!sets.isEmpty()) {
            List<ByteBuffer> vals = new ArrayList<>(setValues);
            vals.addAll(where);
            st.add(new Statement("UPDATE %s" + using + " SET " + String.join(", ", sets) + " WHERE " + whereText, vals));
            Map<String, String> upd = new LinkedHashMap<>(head);
            upd.put("op", str("update"));
            upd.put("key", obj(keyJson));
            if (!setJson.isEmpty()) upd.put("set", obj(setJson));
            if (!addJson.isEmpty()) upd.put("add", obj(addJson));
            json.add(obj(upd));
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------
    // values

    /** A random valid value of a native type or a (frozen or not) collection. */
    Value value(CqlType t) {
        switch (t.kind()) {
            case ASCII: return string(t, randomString(true));
            case TEXT: return string(t, randomString(false));
            case BIGINT: return number(t, random.nextLong() >> random.nextInt(64));
            case INT: return number(t, random.nextInt() >> random.nextInt(32));
            case SMALLINT: return number(t, (short) random.nextInt());
            case TINYINT: return number(t, (byte) random.nextInt());
            case VARINT: {
                BigInteger x = new BigInteger(1 + random.nextInt(100), random);
                if (random.nextBoolean()) x = x.negate();
                // As a string (any size, exact) or a plain JSON integer (also exact).
                return new Value(x, encode(t, x), random.nextBoolean() ? str(x.toString()) : x.toString(), x.toString());
            }
            case DECIMAL: {
                BigInteger u = new BigInteger(1 + random.nextInt(80), random);
                if (random.nextBoolean()) u = u.negate();
                BigDecimal d = new BigDecimal(u, random.nextInt(20) - 5);
                // A string keeps every digit and the scale (a JSON number would go through a double).
                return new Value(d, encode(t, d), str(d.toString()), d.toString());
            }
            case DOUBLE: {
                double x;
                do {
                    x = random.nextBoolean() ? random.nextInt(1_000_000) / 64.0 - 5000 : Double.longBitsToDouble(random.nextLong());
                } while (!Double.isFinite(x) || isNegativeZero(x));
                return new Value(x, encode(t, x), Double.toString(x), Double.toString(x));
            }
            case FLOAT: {
                float x;
                do {
                    x = random.nextBoolean() ? random.nextInt(10_000) / 4.0f - 1000 : Float.intBitsToFloat(random.nextInt());
                } while (!Float.isFinite(x) || isNegativeZero(x));
                // The float's exact value as a double: a JSON number that no reader rounds to another float.
                return new Value(x, encode(t, x), Double.toString(x), Double.toString(x));
            }
            case BOOLEAN: {
                boolean x = random.nextBoolean();
                return new Value(x, encode(t, x), Boolean.toString(x), Boolean.toString(x));
            }
            case BLOB: {
                byte[] b = new byte[random.nextInt(10)];
                random.nextBytes(b);
                StringBuilder hex = new StringBuilder("0x");
                for (byte x : b) hex.append(String.format("%02x", x & 0xFF));
                return string(t, ByteBuffer.wrap(b), hex.toString());
            }
            case DATE: {
                LocalDate d = LocalDate.ofEpochDay(LocalDate.of(1600, 1, 1).toEpochDay() + random.nextInt(800 * 365));
                return string(t, d, d.toString());
            }
            case TIME: {
                LocalTime x = LocalTime.ofNanoOfDay(Math.floorMod(random.nextLong(), 86_400_000_000_000L));
                return string(t, x, String.format("%02d:%02d:%02d.%09d", x.getHour(), x.getMinute(), x.getSecond(), x.getNano()));
            }
            case TIMESTAMP: {
                long millis = random.nextLong() >> 20;
                Instant x = Instant.ofEpochMilli(millis);
                if (random.nextInt(4) == 0) {
                    // The other accepted form: an ISO-8601 string with a zone (inside years 1900..2100).
                    x = Instant.ofEpochMilli(-2_208_988_800_000L + Math.floorMod(millis, 6_311_433_600_000L));
                    return string(t, x, DateTimeFormatter.ISO_INSTANT.format(x));
                }
                return new Value(x, encode(t, x), Long.toString(millis), Long.toString(millis));
            }
            case UUID: {
                UUID x = new UUID(random.nextLong(), random.nextLong());
                return string(t, x, x.toString());
            }
            case TIMEUUID: {
                long time = random.nextLong() >>> 4; // 60 bits of UUID time
                long msb = ((time & 0xFFFFFFFFL) << 32) | (((time >>> 32) & 0xFFFFL) << 16) | 0x1000L | ((time >>> 48) & 0x0FFFL);
                long lsb = 0x8000000000000000L | (random.nextLong() & 0x3FFFFFFFFFFFFFFFL);
                UUID x = new UUID(msb, lsb);
                return string(t, x, x.toString());
            }
            case INET: {
                byte[] b = new byte[random.nextInt(3) == 0 ? 16 : 4];
                random.nextBytes(b);
                if (b.length == 16) b[0] = 0x20; // global unicast: never an IPv4-mapped address
                try {
                    InetAddress x = InetAddress.getByAddress(b);
                    return string(t, x, x.getHostAddress());
                } catch (UnknownHostException e) {
                    throw new AssertionError(e);
                }
            }
            case LIST:
            case SET:
            case MAP:
                return collection(t);
            default:
                throw new AssertionError(t);
        }
    }

    private static boolean isNegativeZero(double x) {
        // JSON -0.0 is read as a BigDecimal by Flushline, which has no negative zero (see the report).
        return x == 0 && Double.doubleToRawLongBits(x) != 0;
    }

    /**
     * Up to three elements; a set or map never repeats an element or key (the node would
     * collapse them). Sets and maps are given in the type's order, the order the node keeps.
     */
    private Value collection(CqlType t) {
        int n = random.nextInt(4);
        List<Value> keys = new ArrayList<>(), vals = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Value e = value(t.elementType());
            if (t.kind() != CqlType.Kind.LIST) {
                boolean dup = false;
                for (Value p : keys) dup |= t.elementType().compare(p.bytes, e.bytes) == 0;
                if (dup) continue;
            }
            keys.add(e);
            if (t.kind() == CqlType.Kind.MAP) vals.add(value(t.valueType()));
        }
        if (t.kind() != CqlType.Kind.LIST) {
            Integer[] order = new Integer[keys.size()];
            for (int k = 0; k < order.length; k++) order[k] = k;
            Arrays.sort(order, (x, y) -> t.elementType().compare(keys.get(x).bytes, keys.get(y).bytes));
            List<Value> sk = new ArrayList<>(), sv = new ArrayList<>();
            for (int k : order) {
                sk.add(keys.get(k));
                if (t.kind() == CqlType.Kind.MAP) sv.add(vals.get(k));
            }
            keys.clear();
            keys.addAll(sk);
            vals.clear();
            vals.addAll(sv);
        }
        List<String> parts = new ArrayList<>();
        Object java;
        if (t.kind() == CqlType.Kind.MAP) {
            Map<Object, Object> m = new LinkedHashMap<>();
            for (int k = 0; k < keys.size(); k++) {
                m.put(keys.get(k).java, vals.get(k).java);
                parts.add(str(keys.get(k).keyText) + ":" + vals.get(k).json);
            }
            java = m;
        } else {
            java = t.kind() == CqlType.Kind.LIST ? new ArrayList<>() : new LinkedHashSet<>();
            for (Value e : keys) {
                @SuppressWarnings("unchecked") java.util.Collection<Object> col = (java.util.Collection<Object>) java;
                col.add(e.java);
                parts.add(e.json);
            }
        }
        String json = t.kind() == CqlType.Kind.MAP ? "{" + String.join(",", parts) + "}" : "[" + String.join(",", parts) + "]";
        return new Value(java, encode(t, java), json, null);
    }

    private Value string(CqlType t, String s) {
        // Non-ASCII text written raw (UTF-8) or as \\u escapes, both valid JSON.
        return new Value(s, encode(t, s), str(s, random.nextBoolean()), s);
    }

    private static Value string(CqlType t, Object java, String text) {
        return new Value(java, encode(t, java), str(text), text);
    }

    private static Value number(CqlType t, long x) {
        Object java;
        switch (t.kind()) {
            case BIGINT: java = x; break;
            case INT: java = (int) x; break;
            case SMALLINT: java = (short) x; break;
            default: java = (byte) x; break;
        }
        return new Value(java, encode(t, java), Long.toString(x), Long.toString(x));
    }

    /** Mostly letters; sometimes characters that JSON must escape, and for text non-ASCII ones (also outside the BMP). */
    private String randomString(boolean ascii) {
        StringBuilder sb = new StringBuilder();
        int n = random.nextInt(12);
        String[] odd = ascii ? new String[] {"\"", "\\", "\n", "\t", "\u0001", "/", "\u007f"}
                : new String[] {"\"", "\\", "\n", "\u0001", "é", "€", "\u00a0", "😀", "\u2028", "𝄞"};
        for (int i = 0; i < n; i++) {
            if (random.nextInt(8) == 0) sb.append(odd[random.nextInt(odd.length)]);
            else sb.append((char) ('a' + random.nextInt(26)));
        }
        return sb.toString();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static byte[] encode(CqlType t, Object java) {
        ByteBuffer b = ((TypeCodec) codec(t)).encode(java, ProtocolVersion.DEFAULT);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** The driver's codec for a Flushline type: the twin table's values never pass through Flushline's ValueCodec. */
    private static TypeCodec<?> codec(CqlType t) {
        switch (t.kind()) {
            case ASCII: return TypeCodecs.ASCII;
            case TEXT: return TypeCodecs.TEXT;
            case BIGINT: return TypeCodecs.BIGINT;
            case INT: return TypeCodecs.INT;
            case SMALLINT: return TypeCodecs.SMALLINT;
            case TINYINT: return TypeCodecs.TINYINT;
            case VARINT: return TypeCodecs.VARINT;
            case DECIMAL: return TypeCodecs.DECIMAL;
            case DOUBLE: return TypeCodecs.DOUBLE;
            case FLOAT: return TypeCodecs.FLOAT;
            case BOOLEAN: return TypeCodecs.BOOLEAN;
            case BLOB: return TypeCodecs.BLOB;
            case DATE: return TypeCodecs.DATE;
            case TIME: return TypeCodecs.TIME;
            case TIMESTAMP: return TypeCodecs.TIMESTAMP;
            case UUID: return TypeCodecs.UUID;
            case TIMEUUID: return TypeCodecs.TIMEUUID;
            case INET: return TypeCodecs.INET;
            case LIST: return TypeCodecs.listOf(codec(t.elementType()));
            case SET: return TypeCodecs.setOf(codec(t.elementType()));
            case MAP: return TypeCodecs.mapOf(codec(t.elementType()), codec(t.valueType()));
            default: throw new AssertionError(t);
        }
    }

    // ---------------------------------------------------------------------------------------
    // JSON and CQL text

    /** The key object: the partition key columns and the first {@code n} clustering values. */
    private Map<String, String> keyJson(Value[] key, Value[] clustering, int n) {
        Map<String, String> out = new LinkedHashMap<>();
        ColumnMetadata[] pk = schema.partitionKeyColumns(), cc = schema.clusteringColumns();
        for (int i = 0; i < pk.length; i++) out.put(pk[i].name(), key[i].json);
        for (int i = 0; i < n; i++) out.put(cc[i].name(), clustering[i].json);
        return out;
    }

    /** Name/JSON-text pairs, in order. */
    static Map<String, String> fields(String... nameValue) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) out.put(nameValue[i], nameValue[i + 1]);
        return out;
    }

    /** A JSON object from names and already rendered values. */
    static String obj(Map<String, String> fields) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, String> e : fields.entrySet()) {
            if (sb.length() > 1) sb.append(',');
            sb.append(str(e.getKey())).append(':').append(e.getValue());
        }
        return sb.append('}').toString();
    }

    static String str(String s) {
        return str(s, false);
    }

    /** A JSON string literal; {@code escapeAll}: every non-ASCII character (and surrogate) as \\uXXXX. */
    static String str(String s, boolean escapeAll) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') sb.append("\\\"");
            else if (c == '\\') sb.append("\\\\");
            else if (c == '\n') sb.append("\\n");
            else if (c == '\t') sb.append("\\t");
            else if (c < 0x20 || (escapeAll && c > 0x7e)) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }

    private List<String> keyNames() {
        List<String> out = new ArrayList<>();
        for (ColumnMetadata c : schema.partitionKeyColumns()) out.add(q(c));
        return out;
    }

    private String keyWhere() {
        List<String> out = new ArrayList<>();
        for (ColumnMetadata c : schema.partitionKeyColumns()) out.add(q(c) + " = ?");
        return String.join(" AND ", out);
    }

    private String clusteringWhere(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(q(schema.clusteringColumns()[i]) + " = ?");
        return String.join(" AND ", out);
    }

    private static List<ByteBuffer> buffers(Value[] vs) {
        List<ByteBuffer> out = new ArrayList<>();
        for (Value v : vs) out.add(v.buffer());
        return out;
    }

    /** A column name as CQL text: always quoted, so case and reserved words cannot bite. */
    static String q(ColumnMetadata c) {
        return "\"" + c.name().replace("\"", "\"\"") + "\"";
    }
}
