package dev.flushline.testing;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random but valid partition updates for any supported schema: inserts with and without TTL,
 * updates, cell tombstones, row, partition and range deletions, static writes, collection
 * assignments (with their complex deletion) and appends. Keys and clusterings come from small
 * pools so that updates overlap and reconcile. Values go through ValueCodec, so every value is
 * valid for its type (Cassandra's verifier checks them).
 */
public final class RandomUpdates {
    private final TableSchema schema;
    private final Random random;
    private long nowSeconds;
    private final List<byte[][]> keyPool = new ArrayList<>();
    private final List<byte[][]> clusteringPool = new ArrayList<>();
    private long timestamp;
    private long listUuidCounter;

    /** Probability knobs, public for tests that want a particular mix. */
    public double ttlChance = 0.15, nullChance = 0.1, rowDeleteChance = 0.04, partitionDeleteChance = 0.02,
            rangeDeleteChance = 0.04, cellDeleteChance = 0.04, updateChance = 0.2, staticChance = 0.3;
    /** Whether one write in twenty goes up to 49 microseconds back in time (off: timestamps only grow). */
    public boolean outOfOrderWrites = true;

    public RandomUpdates(TableSchema schema, long seed, long nowSeconds, int keys, int clusteringsPerKey) {
        this.schema = schema;
        this.random = new Random(seed);
        this.nowSeconds = nowSeconds;
        this.timestamp = 1_700_000_000_000_000L + random.nextInt(1000);
        for (int i = 0; i < keys; i++) keyPool.add(randomValues(schema.partitionKeyColumns()));
        for (int i = 0; i < clusteringsPerKey; i++) clusteringPool.add(randomValues(schema.clusteringColumns()));
    }

    private byte[][] randomValues(ColumnMetadata[] cols) {
        byte[][] v = new byte[cols.length][];
        for (int i = 0; i < cols.length; i++) v[i] = value(cols[i].type());
        return v;
    }

    public static byte[] partitionKeyBytes(TableSchema schema, byte[][] values) {
        return PartitionKey.compose(values);
    }

    /** Moves the clock: later operations delete and expire relative to it (several flushes at several times). */
    public void setNowSeconds(long nowSeconds) {
        this.nowSeconds = nowSeconds;
    }

    /** The timestamp the last write was based on (the largest so far, out-of-order writes aside). */
    public long timestamp() {
        return timestamp;
    }

    /** Moves the timestamp clock: the next write's is 1 to 3 above {@code t} (or back in time, if out of order). */
    public void setTimestamp(long t) {
        this.timestamp = t;
    }

    public List<PartitionUpdate> next(int count) {
        List<PartitionUpdate> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) out.add(next());
        return out;
    }

    public PartitionUpdate next() {
        timestamp += 1 + random.nextInt(3);
        long ts = random.nextInt(20) == 0 && outOfOrderWrites ? timestamp - random.nextInt(50) : timestamp; // some out-of-order writes
        byte[] key = partitionKeyBytes(schema, keyPool.get(random.nextInt(keyPool.size())));
        PartitionKey pk = PartitionKey.of(key);
        double r = random.nextDouble();
        boolean hasClustering = schema.clusteringColumns().length > 0;
        if (r < partitionDeleteChance) {
            return new PartitionUpdate(pk, DeletionTime.of(ts, nowSeconds), List.of(), null, List.of());
        }
        r -= partitionDeleteChance;
        if (hasClustering && r < rangeDeleteChance) {
            return new PartitionUpdate(pk, DeletionTime.LIVE, List.of(randomRange(ts)), null, List.of());
        }
        r -= rangeDeleteChance;
        byte[][] clustering = hasClustering ? clusteringPool.get(random.nextInt(clusteringPool.size())) : new byte[0][];
        if (r < rowDeleteChance) {
            Row row = new Row(false, clustering, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(ts, nowSeconds),
                    new Cell[schema.regularComplexStart()], new ComplexColumn[schema.regularColumns().length - schema.regularComplexStart()]);
            return new PartitionUpdate(pk, DeletionTime.LIVE, List.of(), null, List.of(row));
        }
        r -= rowDeleteChance;
        boolean cellDelete = r < cellDeleteChance;
        boolean isUpdate = !cellDelete && random.nextDouble() < updateChance;
        int ttl = !cellDelete && random.nextDouble() < ttlChance ? 1 + random.nextInt(100_000) : 0;
        Row staticRow = null;
        if (schema.staticColumns().length > 0 && random.nextDouble() < staticChance) {
            staticRow = randomRow(true, null, ts, ttl, true, cellDelete);
        }
        List<Row> rows = new ArrayList<>();
        if (schema.regularColumns().length > 0 || !isUpdate) {
            Row row = randomRow(false, clustering, ts, ttl, isUpdate, cellDelete);
            if (row != null) rows.add(row);
        }
        return new PartitionUpdate(pk, DeletionTime.LIVE, List.of(), staticRow, rows);
    }

    private RangeTombstone randomRange(long ts) {
        int n = schema.clusteringColumns().length;
        byte[][] a = clusteringPool.get(random.nextInt(clusteringPool.size()));
        byte[][] b = clusteringPool.get(random.nextInt(clusteringPool.size()));
        int prefix = random.nextInt(n); // fixed prefix length, then a range on the next column
        byte[][] lo = java.util.Arrays.copyOf(a, prefix + 1);
        byte[][] hi = java.util.Arrays.copyOf(a, prefix + 1);
        hi[prefix] = b[prefix];
        ColumnMetadata c = schema.clusteringColumns()[prefix];
        if (c.compareClustering(lo[prefix], hi[prefix]) > 0) {
            byte[] t = lo[prefix]; lo[prefix] = hi[prefix]; hi[prefix] = t;
        }
        if (random.nextInt(4) == 0) {
            // a delete of a clustering prefix: [prefix] inclusive on both sides
            byte[][] p = java.util.Arrays.copyOf(a, prefix + 1);
            return new RangeTombstone(ClusteringBound.start(true, p), ClusteringBound.end(true, p), DeletionTime.of(ts, nowSeconds));
        }
        return new RangeTombstone(ClusteringBound.start(random.nextBoolean(), lo), ClusteringBound.end(random.nextBoolean(), hi),
                DeletionTime.of(ts, nowSeconds));
    }

    private Row randomRow(boolean isStatic, byte[][] clustering, long ts, int ttl, boolean isUpdate, boolean cellDelete) {
        ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
        int complexStart = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
        Cell[] cells = new Cell[complexStart];
        ComplexColumn[] complex = new ComplexColumn[cols.length - complexStart];
        long exp = ttl == 0 ? Cell.NO_DELETION_TIME : nowSeconds + ttl;
        int written = 0;
        for (int i = 0; i < cols.length; i++) {
            if (random.nextInt(3) == 0) continue; // column absent from this write
            written++;
            ColumnMetadata c = cols[i];
            if (i < complexStart) {
                if (cellDelete || random.nextDouble() < nullChance) {
                    cells[i] = Cell.tombstone(ts, nowSeconds, null);
                } else {
                    byte[] v = value(c.type());
                    cells[i] = ttl == 0 ? Cell.live(ts, v, null) : Cell.expiring(ts, ttl, exp, v, null);
                }
            } else {
                complex[i - complexStart] = randomCollection(c, ts, ttl, exp, cellDelete);
            }
        }
        if (written == 0 && (isStatic || isUpdate)) return null;
        boolean liveness = !isStatic && !isUpdate && !cellDelete;
        return new Row(isStatic, clustering, liveness ? ts : Cell.NO_TIMESTAMP, liveness ? ttl : 0,
                liveness ? exp : Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, complex);
    }

    private ComplexColumn randomCollection(ColumnMetadata c, long ts, int ttl, long exp, boolean delete) {
        if (delete) return new ComplexColumn(DeletionTime.of(ts - 1 < 0 ? ts : ts - 1, nowSeconds), new Cell[0]);
        boolean assign = random.nextBoolean(); // assignment clears older elements; append does not
        DeletionTime cd = assign ? DeletionTime.of(ts - 1, nowSeconds) : DeletionTime.LIVE;
        int n = random.nextInt(4);
        CqlType t = c.type();
        List<Cell> cells = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            byte[] path, value;
            switch (t.kind()) {
                case LIST: path = timeUuid(); value = value(t.elementType()); break;
                case SET: path = value(t.elementType()); value = new byte[0]; break;
                case UDT: {
                    // one cell per field written: the field's index as the path; a null field now and then is a cell tombstone
                    int f = random.nextInt(t.size());
                    path = CqlType.fieldPath(f);
                    if (random.nextInt(6) == 0) {
                        cells.add(Cell.tombstone(ts, nowSeconds, path));
                        continue;
                    }
                    value = value(t.component(f));
                    break;
                }
                default: path = value(t.elementType()); value = value(t.valueType()); break;
            }
            cells.add(ttl == 0 ? Cell.live(ts, value, path) : Cell.expiring(ts, ttl, exp, value, path));
        }
        CqlType pathType = t.cellPathType();
        cells.sort((x, y) -> pathType.compare(x.path(), y.path()));
        List<Cell> dedup = new ArrayList<>();
        for (Cell x : cells) {
            if (!dedup.isEmpty() && pathType.compare(dedup.get(dedup.size() - 1).path(), x.path()) == 0) continue;
            dedup.add(x);
        }
        if (dedup.isEmpty() && cd.isLive()) return null;
        return new ComplexColumn(cd, dedup.toArray(new Cell[0]));
    }

    /** Version-1 time UUIDs in increasing time order, as list element paths. */
    private byte[] timeUuid() {
        long time = 0x01e0000000000000L / 16 + (++listUuidCounter) * 10;
        long msb = ((time & 0xFFFFFFFFL) << 32) | (((time >>> 32) & 0xFFFFL) << 16) | 0x1000L | ((time >>> 48) & 0x0FFFL);
        long lsb = 0x8000000000000000L | (random.nextLong() & 0x3FFFFFFFFFFFFFFFL);
        return ByteBuffer.allocate(16).putLong(msb).putLong(lsb).array();
    }

    /** A random valid value of a native or frozen type. */
    public byte[] value(CqlType t) {
        return ValueCodec.encode(t, json(t));
    }

    private Object json(CqlType t) {
        switch (t.kind()) {
            case ASCII: return word(random.nextInt(8));
            case TEXT: return random.nextInt(10) == 0 ? "é" + word(3) : word(random.nextInt(12));
            case BIGINT: return BigDecimal.valueOf(random.nextLong() >> random.nextInt(64));
            case INT: return BigDecimal.valueOf(random.nextInt() >> random.nextInt(32));
            case SMALLINT: return BigDecimal.valueOf((short) random.nextInt());
            case TINYINT: return BigDecimal.valueOf((byte) random.nextInt());
            case VARINT: return BigDecimal.valueOf(random.nextLong() >> random.nextInt(64));
            case DECIMAL: return BigDecimal.valueOf(random.nextInt(100000), random.nextInt(5));
            case DOUBLE: return BigDecimal.valueOf(random.nextInt(1000000) / 64.0);
            case FLOAT: return BigDecimal.valueOf(random.nextInt(10000) / 4.0);
            case BOOLEAN: return random.nextBoolean();
            case BLOB: {
                StringBuilder sb = new StringBuilder("0x");
                int n = random.nextInt(10);
                for (int i = 0; i < n; i++) sb.append(String.format("%02x", random.nextInt(256)));
                return sb.toString();
            }
            case DATE: return String.format("%04d-%02d-%02d", 1970 + random.nextInt(100), 1 + random.nextInt(12), 1 + random.nextInt(28));
            case TIME: return String.format("%02d:%02d:%02d.%09d", random.nextInt(24), random.nextInt(60), random.nextInt(60), random.nextInt(1_000_000_000));
            case TIMESTAMP: return BigDecimal.valueOf(random.nextLong() >> 20);
            case UUID: return new java.util.UUID(random.nextLong(), random.nextLong()).toString();
            case TIMEUUID: {
                byte[] b = timeUuid();
                ByteBuffer bb = ByteBuffer.wrap(b);
                return new java.util.UUID(bb.getLong(), bb.getLong()).toString();
            }
            case INET: return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
            case LIST:
            case SET: {
                List<Object> l = new ArrayList<>();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) l.add(json(t.elementType()));
                return l;
            }
            case MAP: {
                Map<String, Object> m = new HashMap<>();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) m.put(mapKey(t.elementType()), json(t.valueType()));
                return m;
            }
            case TUPLE: {
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < t.size(); i++) l.add(random.nextInt(6) == 0 ? null : json(t.component(i)));
                return l;
            }
            case UDT: {
                Map<String, Object> m = new java.util.LinkedHashMap<>();
                for (int i = 0; i < t.size(); i++) {
                    if (random.nextInt(5) == 0) continue; // left out: null
                    String name = t.fieldName(i);
                    m.put(name.equals(name.toLowerCase(java.util.Locale.US)) ? name : "\"" + name + "\"", json(t.component(i)));
                }
                return m;
            }
            case VECTOR: {
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < t.dimension(); i++) {
                    Object e;
                    do {
                        e = json(t.elementType());
                    } while (isEmpty(e) && t.elementType().kind() != CqlType.Kind.TEXT && t.elementType().kind() != CqlType.Kind.ASCII
                            && t.elementType().kind() != CqlType.Kind.BLOB); // a vector element may not be empty
                    l.add(e);
                }
                return l;
            }
            case DURATION: {
                String[] units = {"y", "mo", "w", "d", "h", "m", "s", "ms", "us", "ns"};
                StringBuilder sb = new StringBuilder(random.nextInt(4) == 0 ? "-" : "");
                for (String u : units) if (random.nextInt(3) == 0) sb.append(random.nextInt(1000)).append(u);
                if (sb.length() <= 1) sb.append(random.nextInt(100)).append("d");
                return sb.toString();
            }
            default: throw new AssertionError(t);
        }
    }

    /** A JSON object key for a map: a native key's literal as a string, any other key as JSON text. */
    private String mapKey(CqlType k) {
        Object v = json(k);
        if (k.isNative()) return String.valueOf(v);
        return toJson(v);
    }

    private static boolean isEmpty(Object v) {
        return v instanceof String && (((String) v).isEmpty() || v.equals("0x"));
    }

    private static String toJson(Object v) {
        if (v == null) return "null";
        if (v instanceof String) return "\"" + ((String) v).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        if (v instanceof List) {
            StringBuilder sb = new StringBuilder("[");
            for (Object e : (List<?>) v) sb.append(sb.length() == 1 ? "" : ",").append(toJson(e));
            return sb.append(']').toString();
        }
        if (v instanceof Map) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                sb.append(sb.length() == 1 ? "" : ",").append(toJson(String.valueOf(e.getKey()))).append(':').append(toJson(e.getValue()));
            }
            return sb.append('}').toString();
        }
        return String.valueOf(v); // numbers, booleans
    }

    private String word(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append((char) ('a' + random.nextInt(26)));
        return sb.toString();
    }
}
