package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Liveness;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.SSTableDumpOracle;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import org.apache.cassandra.db.context.CounterContext;
import org.apache.cassandra.utils.CounterId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Counter tables: sstables written by Cassandra's own writer with counter contexts (global, local
 * and remote shards) are read by {@code dump} exactly as sstabledump prints them and pass
 * {@code verify --extended}; {@code compact}, {@code load} and the Java writer refuse the table by
 * name before writing anything.
 */
class CounterTableTest {
    static final long NOW = FixedClock.FIXED_MILLIS / 1000;
    static final String CQL = "CREATE TABLE ks.ct (k int, c text, hits counter, misses counter, total counter static,"
            + " PRIMARY KEY (k, c)) WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    /** A context of one shard of each kind Cassandra writes: global, local and remote (ids in order, as contexts keep them). */
    static Bytes context(int seed) {
        CounterContext.ContextState s = CounterContext.ContextState.allocate(1, 1, 1);
        s.writeGlobal(CounterId.fromInt(seed), 3L + seed, 10L * seed);
        s.writeLocal(CounterId.fromInt(seed + 1), 5L, -4L);
        s.writeRemote(CounterId.fromInt(seed + 2), 2L, 7L + seed);
        return Bytes.of(s.context);
    }

    static Bytes key(int k) {
        return Bytes.int32(k);
    }

    Path writeCounterSSTable() {
        CassandraOracle.init();
        List<Partition> partitions = new ArrayList<>();
        for (int k = 1; k <= 6; k++) {
            List<Unfiltered> rows = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                long ts = 1_700_000_000_000_000L + k * 10 + c;
                Cell hits = Cell.live("hits", ts, context(k + c));
                // a counter delete leaves a cell tombstone
                Cell misses = c == 1 ? Cell.tombstone("misses", ts, NOW) : Cell.live("misses", ts, context(k * 7 + c));
                rows.add(Row.of(List.of(Bytes.utf8("r" + c)), Liveness.EMPTY, hits, misses));
            }
            Row staticRow = k % 2 == 0 ? Row.staticRow(Cell.live("total", 1_700_000_000_000_000L, context(100 + k))) : Row.EMPTY_STATIC;
            partitions.add(new Partition(key(k), Deletion.LIVE, staticRow, rows));
        }
        partitions.sort(java.util.Comparator.comparing(p -> org.apache.cassandra.dht.Murmur3Partitioner.instance.getToken(p.key().toBuffer())));
        TableSchema schema = CqlParser.parse(CQL);
        Path dir = Descriptor.tableDir(tmp.resolve("data"), schema.keyspace(), schema.name(), schema.idHex());
        return CassandraReferenceWriter.write(dir, CQL, partitions, 1_700_000_000_000_000L, NOW, 0, partitions.size(), false);
    }

    static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void dumpAndVerifyReadCassandrasCounterSSTables() throws Exception {
        Path data = writeCounterSSTable();
        Path schemaFile = Files.writeString(tmp.resolve("schema.cql"), CQL);
        for (String[] options : new String[][] {{}, {"-d"}, {"-t", "-l"}}) {
            List<String> args = new ArrayList<>(List.of(data.toString()));
            args.addAll(List.of(options));
            SSTableDumpOracle.Output expected = SSTableDumpOracle.run(tmp.resolve("dump"), args.toArray(new String[0]));
            assertEquals(0, expected.status(), expected.stderr());
            List<String> ours = new ArrayList<>(List.of("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW)));
            ours.addAll(args);
            String[] r = run(ours.toArray(new String[0]));
            assertEquals("0", r[0], r[2]);
            assertEquals(expected.asFlushlinePrints(options), r[1], "dump " + List.of(options));
            if (options.length == 1) assertTrue(r[1].contains("[hits=") && r[1].contains("[misses=<tombstone>"), r[1]);
        }
        String[] v = run("verify", "--schema", schemaFile.toString(), "--extended", data.getParent().toString());
        assertEquals("0", v[0], v[1] + v[2]);
        assertTrue(v[1].startsWith("OK "), v[1]);
    }

    @Test
    void verifyCatchesABrokenCounterContext() throws Exception {
        Path data = writeCounterSSTable();
        // a context whose shards are not whole: validated as CounterContext.validateContext does
        dev.flushline.schema.CqlType counter = dev.flushline.schema.CqlType.of(dev.flushline.schema.CqlType.Kind.COUNTER);
        assertEquals("counter context of 37 bytes: 35 bytes after the header are not whole 32-byte shards",
                dev.flushline.schema.ValueValidator.problem(counter, new byte[37], 0, 37));
        byte[] good = context(1).toArray();
        assertEquals(null, dev.flushline.schema.ValueValidator.problem(counter, good, 0, good.length));
        // as Cassandra's own check says
        org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> CounterContext.instance().validateContext(ByteBuffer.wrap(new byte[37]), org.apache.cassandra.db.marshal.ByteBufferAccessor.instance));
        assertTrue(Files.size(data) > 0);
    }

    @Test
    void compactLoadAndWritersRefuseCounterTablesBeforeWriting() throws Exception {
        Path data = writeCounterSSTable();
        Path schemaFile = Files.writeString(tmp.resolve("schema.cql"), CQL);
        Path out = tmp.resolve("out");
        String[] c = run("compact", "--schema", schemaFile.toString(), "--input", data.getParent().toString(), "--out", out.toString());
        assertEquals("1", c[0], c[2]);
        assertTrue(c[2].contains("table ks.ct is a counter table; compact refuses it before writing anything"), c[2]);
        assertFalse(Files.exists(out), "nothing written");

        Path ops = Files.writeString(tmp.resolve("ops.jsonl"), "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"k\":1,\"c\":\"a\"},\"set\":{\"hits\":1}}\n");
        String[] l = run("load", "--schema", schemaFile.toString(), "--input", ops.toString(), "--out", out.toString());
        assertEquals("1", l[0], l[2]);
        assertTrue(l[2].contains("table ks.ct is a counter table; load does not write counter tables"), l[2]);
        assertFalse(Files.exists(out), "nothing written");

        Files.createDirectories(out);
        IllegalArgumentException w = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> dev.flushline.writer.FlushlineSSTableWriter.builder().inDirectory(out).forTable(CQL)
                        .using("UPDATE ks.ct SET hits = hits + ? WHERE k = ? AND c = ?").build());
        assertTrue(w.getMessage().startsWith("Counter modification statements are not supported"), w.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> dev.flushline.writer.SortedSSTableWriter.builder(CQL, out));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(0, files.count(), "nothing written");
        }
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new dev.flushline.compaction.Compactor(CqlParser.parse(CQL), dev.flushline.sstable.SSTableFiles.inDirectory(data.getParent()),
                        dev.flushline.compaction.Compactor.Options.builder(0, 0).build()));
    }
}
