package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.utils.Clock;

/**
 * The oracle's own fixture: one table exercising every feature the model carries, written by CQLSSTableWriter
 * (one sstable per statement, since a CQLSSTableWriter has a single statement), and the model we expect
 * Cassandra to read back, written out by hand.
 */
final class OracleFixture {
    static final String CQL = "CREATE TABLE ks.oracle_all ("
            + " pk1 int, pk2 text, ck1 text, ck2 int,"
            + " s text static, v1 bigint, v2 text, tags set<text>, attrs map<text, int>,"
            + " PRIMARY KEY ((pk1, pk2), ck1, ck2))"
            + " WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC) AND compression = {'enabled': 'false'}";

    private static final Object UNSET = CQLSSTableWriter.UNSET_VALUE;

    /** Local "now" in seconds the fixture was written at (tombstone ldt; TTL expiry = now + ttl). */
    final long nowSec;
    final Path dir;

    private OracleFixture(Path dir, long nowSec) {
        this.dir = dir;
        this.nowSec = nowSec;
    }

    /**
     * Writes the fixture. With the fixed clock this happens once; with a moving clock (Clock.Global was loaded
     * before our property could take effect) it retries until the whole write fits in one wall-clock second,
     * so every ldt is still exactly {@link #nowSec}.
     */
    static OracleFixture write(Path dir) {
        FixedClock.installIfPossible();
        for (int attempt = 0; attempt < 5; attempt++) {
            deleteContents(dir);
            long before = Clock.Global.currentTimeMillis() / 1000;
            writeAll(dir);
            long after = Clock.Global.currentTimeMillis() / 1000;
            if (before == after) {
                return new OracleFixture(dir, before);
            }
        }
        throw new IllegalStateException("could not write the fixture within one second");
    }

    private static void writeAll(Path dir) {
        CassandraOracle.init();
        // 1: plain inserts with statics, collections, a null cell and a null collection
        write(dir, "INSERT INTO ks.oracle_all (pk1, pk2, ck1, ck2, s, v1, v2, tags, attrs)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP 1000",
              List.of(new Object[]{1, "a", "x", 1, "st", 10L, "hello", Set.of("p", "q"), Map.of("k1", 1, "k2", 2)},
                      new Object[]{1, "a", "x", 2, "st", 20L, null, UNSET, UNSET},
                      new Object[]{2, "b", "y", 5, UNSET, 30L, "w", null, UNSET}));
        // 2: TTL insert
        write(dir, "INSERT INTO ks.oracle_all (pk1, pk2, ck1, ck2, v1, v2)"
                        + " VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP 2000 AND TTL 3600",
              List.<Object[]>of(new Object[]{3, "c", "z", 7, 40L, "ttl"}));
        // 3: row delete
        write(dir, "DELETE FROM ks.oracle_all USING TIMESTAMP 3000 WHERE pk1 = ? AND pk2 = ? AND ck1 = ? AND ck2 = ?",
              List.<Object[]>of(new Object[]{1, "a", "x", 3}));
        // 4: partition delete
        write(dir, "DELETE FROM ks.oracle_all USING TIMESTAMP 4000 WHERE pk1 = ? AND pk2 = ?",
              List.<Object[]>of(new Object[]{4, "d"}));
        // 5: two touching range deletes with different timestamps -> bound, boundary, bound (ck2 is DESC)
        write(dir, "DELETE FROM ks.oracle_all USING TIMESTAMP ? WHERE pk1 = ? AND pk2 = ? AND ck1 = ? AND ck2 > ? AND ck2 <= ?",
              List.of(new Object[]{5000L, 1, "a", "x", 10, 20},
                      new Object[]{6000L, 1, "a", "x", 0, 10}));
    }

    private static void write(Path dir, String statement, List<Object[]> rows) {
        try (CQLSSTableWriter writer = CQLSSTableWriter.builder().inDirectory(dir.toString())
                                                       .forTable(CQL).using(statement).build()) {
            for (Object[] row : rows) {
                writer.addRow(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(statement, e);
        }
    }

    static void deleteContents(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- the expected model, per sstable in generation order ----

    List<List<Partition>> expectedPerSSTable() {
        Deletion collectionReset = Deletion.of(999, nowSec); // INSERT of a collection clears it at ts - 1
        Partition p1 = new Partition(key(1, "a"), Deletion.LIVE,
                Row.staticRow(Cell.live("s", 1000, Bytes.utf8("st"))),
                List.of(
                        // ck2 is DESC: (x, 2) sorts before (x, 1)
                        Row.of(List.of(Bytes.utf8("x"), Bytes.int32(2)), Liveness.of(1000),
                               Cell.live("v1", 1000, Bytes.int64(20)),
                               Cell.tombstone("v2", 1000, nowSec)),
                        Row.of(List.of(Bytes.utf8("x"), Bytes.int32(1)), Liveness.of(1000),
                               Cell.live("v1", 1000, Bytes.int64(10)),
                               Cell.live("v2", 1000, Bytes.utf8("hello")),
                               ComplexColumn.of("attrs", collectionReset,
                                                Cell.live("attrs", 1000, Bytes.int32(1)).withPath(Bytes.utf8("k1")),
                                                Cell.live("attrs", 1000, Bytes.int32(2)).withPath(Bytes.utf8("k2"))),
                               ComplexColumn.of("tags", collectionReset,
                                                Cell.live("tags", 1000, Bytes.EMPTY).withPath(Bytes.utf8("p")),
                                                Cell.live("tags", 1000, Bytes.EMPTY).withPath(Bytes.utf8("q"))))));
        Partition p2 = new Partition(key(2, "b"), Deletion.LIVE, Row.EMPTY_STATIC,
                List.of(Row.of(List.of(Bytes.utf8("y"), Bytes.int32(5)), Liveness.of(1000),
                               Cell.live("v1", 1000, Bytes.int64(30)),
                               Cell.live("v2", 1000, Bytes.utf8("w")),
                               ComplexColumn.of("tags", collectionReset))));
        long expiry = nowSec + 3600;
        Partition ttl = new Partition(key(3, "c"), Deletion.LIVE, Row.EMPTY_STATIC,
                List.of(Row.of(List.of(Bytes.utf8("z"), Bytes.int32(7)), Liveness.expiring(2000, 3600, expiry),
                               Cell.expiring("v1", 2000, 3600, expiry, Bytes.int64(40)),
                               Cell.expiring("v2", 2000, 3600, expiry, Bytes.utf8("ttl")))));
        Partition rowDelete = new Partition(key(1, "a"), Deletion.LIVE, Row.EMPTY_STATIC,
                List.of(new Row(List.of(Bytes.utf8("x"), Bytes.int32(3)), Liveness.EMPTY,
                                Deletion.of(3000, nowSec), List.of())));
        Partition partitionDelete = new Partition(key(4, "d"), Deletion.of(4000, nowSec), Row.EMPTY_STATIC, List.of());
        Partition ranges = new Partition(key(1, "a"), Deletion.LIVE, Row.EMPTY_STATIC,
                List.of(Marker.bound("INCL_START_BOUND", Deletion.of(5000, nowSec), Bytes.utf8("x"), Bytes.int32(20)),
                        Marker.boundary("EXCL_END_INCL_START_BOUNDARY", Deletion.of(5000, nowSec), Deletion.of(6000, nowSec),
                                        Bytes.utf8("x"), Bytes.int32(10)),
                        Marker.bound("EXCL_END_BOUND", Deletion.of(6000, nowSec), Bytes.utf8("x"), Bytes.int32(0))));
        return List.of(byToken(p1, p2), List.of(ttl), List.of(rowDelete), List.of(partitionDelete), List.of(ranges));
    }

    List<Partition> expectedAll() {
        List<Partition> all = new ArrayList<>();
        expectedPerSSTable().forEach(all::addAll);
        return all;
    }

    /** CompositeType encoding of (int, text): per component u16 length, bytes, end-of-component 0. */
    static Bytes key(int pk1, String pk2) {
        byte[] text = pk2.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + 1 + 2 + text.length + 1);
        b.putShort((short) 4).putInt(pk1).put((byte) 0).putShort((short) text.length).put(text).put((byte) 0);
        return Bytes.of(b.array());
    }

    /** Partition order inside an sstable is Murmur3 token order; that order is the one thing we let Cassandra compute. */
    static List<Partition> byToken(Partition... partitions) {
        List<Partition> sorted = new ArrayList<>(List.of(partitions));
        sorted.sort(Comparator.comparing(p -> Murmur3Partitioner.instance.getToken(p.key().toBuffer())));
        return sorted;
    }
}
