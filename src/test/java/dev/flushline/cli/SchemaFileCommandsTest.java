package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * load, dump, verify and compact on one schema file as DESCRIBE KEYSPACE prints it (a keyspace,
 * types, two tables, an index): --table picks the table; without it the commands refuse and list
 * the tables; a table that is not there is named.
 */
class SchemaFileCommandsTest {
    static final String SCHEMA = "CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}"
            + "  AND durable_writes = true;\n\n"
            + "CREATE TYPE shop.addr (\n    street text,\n    city text\n);\n\n"
            + "CREATE TABLE shop.customers (\n    id int PRIMARY KEY,\n    home addr,\n    name text\n) WITH additional_write_policy = '99p'\n"
            + "    AND allow_auto_snapshot = true\n    AND bloom_filter_fp_chance = 0.01\n"
            + "    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}\n    AND cdc = false\n    AND comment = ''\n"
            + "    AND compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', 'min_threshold': '4'}\n"
            + "    AND compression = {'chunk_length_in_kb': '16', 'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}\n"
            + "    AND memtable = 'default'\n    AND crc_check_chance = 1.0\n    AND default_time_to_live = 0\n    AND extensions = {}\n"
            + "    AND gc_grace_seconds = 864000\n    AND incremental_backups = true\n    AND max_index_interval = 2048\n"
            + "    AND memtable_flush_period_in_ms = 0\n    AND min_index_interval = 128\n    AND read_repair = 'BLOCKING'\n"
            + "    AND speculative_retry = '99p';\n\n"
            + "CREATE TABLE shop.orders (\n    id int,\n    at int,\n    ship frozen<addr>,\n    PRIMARY KEY (id, at)\n)"
            + " WITH CLUSTERING ORDER BY (at DESC);\n\n"
            + "CREATE INDEX customers_name_idx ON shop.customers (name);\n";

    @TempDir
    Path tmp;

    static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void everyCommandTakesTheFileAndATable() throws Exception {
        CassandraOracle.init();
        Path schema = Files.writeString(tmp.resolve("shop.cql"), SCHEMA);
        Path ops = Files.writeString(tmp.resolve("ops.jsonl"),
                "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"id\":1,\"name\":\"ann\",\"home\":{\"city\":\"Oslo\"}}}\n"
                + "{\"op\":\"update\",\"timestamp\":11,\"key\":{\"id\":1},\"set\":{\"home.street\":\"Main\"}}\n"
                + "{\"op\":\"insert\",\"timestamp\":12,\"values\":{\"id\":2,\"name\":\"bo\"}}\n");
        Path out = tmp.resolve("out");

        String[] several = run("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(), "--now", "1750000000");
        assertEquals("1", several[0]);
        assertTrue(several[2].contains("the schema defines 2 tables (shop.customers, shop.orders); choose one with --table NAME"), several[2]);
        String[] missing = run("load", "--schema", schema.toString(), "--table", "nope", "--input", ops.toString(), "--out", out.toString());
        assertEquals("1", missing[0]);
        assertTrue(missing[2].contains("the schema defines no table 'nope'; it defines shop.customers, shop.orders"), missing[2]);
        assertFalse(Files.exists(out), "nothing written");

        String[] load = run("load", "--schema", schema.toString(), "--table", "customers", "--input", ops.toString(), "--out", out.toString(),
                "--now", "1750000000");
        assertEquals("0", load[0], load[2]);
        TableSchema customers = CqlParser.parse(SCHEMA, "shop.customers");
        Path dir = Descriptor.tableDir(out, "shop", "customers", customers.idHex());
        List<Partition> read = CassandraReader.readAll(dir, "CREATE TYPE shop.addr (street text, city text);\n"
                + "CREATE TABLE shop.customers (id int PRIMARY KEY, home addr, name text)");
        assertEquals(2, read.size());

        String[] dump = run("dump", "--schema", schema.toString(), "--table", "shop.customers", dir.toString());
        assertEquals("0", dump[0], dump[2]);
        assertTrue(dump[1].contains("\"path\" : [ \"street\" ], \"value\" : \"Main\""), dump[1]);
        String[] verify = run("verify", "--schema", schema.toString(), "--table", "customers", "--extended", dir.toString());
        assertEquals("0", verify[0], verify[1] + verify[2]);
        // the other table's schema does not fit these sstables: refused, not misread
        String[] wrong = run("verify", "--schema", schema.toString(), "--table", "orders", dir.toString());
        assertEquals("1", wrong[0], wrong[1] + wrong[2]);
        String[] compact = run("compact", "--schema", schema.toString(), "--table", "customers", "--input", dir.toString(),
                "--out", tmp.resolve("compacted").toString(), "--now", "1750000000");
        assertEquals("0", compact[0], compact[2]);
        String[] noTable = run("dump", "--schema", schema.toString(), dir.toString());
        assertEquals("1", noTable[0]);
        assertTrue(noTable[2].contains("choose one with --table NAME"), noTable[2]);
    }
}
