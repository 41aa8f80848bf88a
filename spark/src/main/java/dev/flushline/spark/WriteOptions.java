package dev.flushline.spark;

import dev.flushline.data.RingFile;
import dev.flushline.data.TokenRing;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The options of a {@code df.write.format("flushline")} write, checked once on the driver and
 * shipped to the tasks. Every refusal names the option and its value.
 *
 * <p>Immutable, so it is safe to share between the driver's threads and to serialize to tasks.
 */
final class WriteOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    static final String TABLE = "table";
    static final String PATH = "path";
    static final String RANGES = "ranges";
    static final String COMPRESSION = "compression";
    static final String SSTABLE_VERSION = "sstable_version";
    static final String MAX_SSTABLE_SIZE_MB = "max_sstable_size_mb";
    static final String BUFFER_SIZE_MB = "buffer_size_mb";
    static final String TIMESTAMP_COLUMN = "timestamp_column";
    static final String TTL_COLUMN = "ttl_column";
    static final String IGNORE_NULLS = "ignore_nulls";
    /** A fixed "now" in epoch milliseconds for default timestamps, tombstones and TTL expiry: repeatable output. */
    static final String NOW_MILLIS = "now_millis";
    /**
     * Testing only: the first attempt of the task writing this Spark partition fails after its
     * sstables are written and synced, just before it would report them, so the tests can watch a
     * retry replace it.
     */
    static final String FAIL_FIRST_ATTEMPT_OF_PARTITION = "test_fail_first_attempt_of_partition";
    /**
     * Testing only: every task attempt, once it has written its first row, waits (up to ten
     * minutes) until this file exists, so that a test can kill a worker while its tasks are
     * mid-write and then let the job go on.
     */
    static final String HOLD_TASKS_UNTIL_FILE = "test_hold_tasks_until_file";
    /**
     * A ring file (see dev.flushline.data.RingFile), read on the driver: the write is split at the
     * ring's token ranges, one task each, and each range is placed into the directories of its
     * replicas, {@code <path>/<node address>/<ks>/<table>-<id>/}.
     */
    static final String RING = "ring";

    private static final Set<String> KNOWN = Set.of(TABLE, PATH, RANGES, COMPRESSION, SSTABLE_VERSION, MAX_SSTABLE_SIZE_MB,
            BUFFER_SIZE_MB, TIMESTAMP_COLUMN, TTL_COLUMN, IGNORE_NULLS, NOW_MILLIS, FAIL_FIRST_ATTEMPT_OF_PARTITION, HOLD_TASKS_UNTIL_FILE, RING);
    private static final Pattern WITH = Pattern.compile("(?i)\\bWITH\\b");

    /** The CREATE TABLE statement as given. */
    final String tableCql;
    /** The CREATE TABLE statement the sstables are written for: the given one with the compression option applied. */
    final String effectiveTableCql;
    final String path;
    /** 0 when not given: as many as the input has partitions. */
    final int ranges;
    final String sstableVersion;
    /** 0 or less: no limit. */
    final int maxSSTableSizeMiB;
    /** 0 or less: the writer's default. */
    final int bufferSizeMiB;
    /** The DataFrame column holding write timestamps, or null to look for {@code timestamp}. */
    final String timestampColumn;
    /** The DataFrame column holding TTLs, or null to look for {@code ttl}. */
    final String ttlColumn;
    final boolean ignoreNulls;
    /** -1: the wall clock. */
    final long nowMillis;
    final int failFirstAttemptOfPartition;
    /** Null, or the file tasks wait for after their first row. */
    final String holdTasksUntilFile;
    /** The ring file as given, and its text (read on the driver); null without the option. */
    final String ringSource;
    final String ringText;
    private transient TokenRing ring;
    private transient long[] starts;

    private WriteOptions(Map<String, String> o) {
        for (String k : o.keySet()) {
            if (!KNOWN.contains(k.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("flushline: unknown option '" + k + "'; the options are " + new java.util.TreeSet<>(KNOWN));
            }
        }
        this.tableCql = o.get(TABLE);
        if (tableCql == null || tableCql.isBlank()) {
            throw new IllegalArgumentException("flushline: option 'table' is required: the table's CREATE TABLE statement, with its keyspace");
        }
        this.path = o.get(PATH);
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("flushline: option 'path' is required: the directory the range directories are written into");
        }
        this.ringSource = o.get(RING);
        if (ringSource != null) {
            try {
                this.ringText = Files.readString(Paths.get(ringSource), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("flushline: option 'ring': cannot read the ring file " + ringSource + ": " + e, e);
            }
            int segments;
            try {
                segments = RingFile.parse(ringText, ringSource).segmentCount();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("flushline: option 'ring': " + e.getMessage(), e);
            }
            int given = intOption(o, RANGES, 0, 1);
            if (given != 0 && given != segments) {
                throw new IllegalArgumentException("flushline: option 'ranges' is " + given + ", but the ring " + ringSource + " splits into "
                        + segments + " token ranges; drop 'ranges'");
            }
            this.ranges = segments;
        } else {
            this.ringText = null;
            this.ranges = intOption(o, RANGES, 0, 1);
        }
        this.sstableVersion = o.getOrDefault(SSTABLE_VERSION, "oa");
        if (!sstableVersion.equals("oa") && !sstableVersion.equals("nb") && !sstableVersion.equals("da")) {
            throw new IllegalArgumentException("flushline: option 'sstable_version' must be oa, nb or da, not '" + sstableVersion + "'");
        }
        this.maxSSTableSizeMiB = intOption(o, MAX_SSTABLE_SIZE_MB, 0, 1);
        this.bufferSizeMiB = intOption(o, BUFFER_SIZE_MB, 0, 1);
        this.timestampColumn = o.get(TIMESTAMP_COLUMN);
        this.ttlColumn = o.get(TTL_COLUMN);
        String ignore = o.getOrDefault(IGNORE_NULLS, "false");
        if (!ignore.equals("true") && !ignore.equals("false")) {
            throw new IllegalArgumentException("flushline: option 'ignore_nulls' must be true or false, not '" + ignore + "'");
        }
        this.ignoreNulls = ignore.equals("true");
        String now = o.get(NOW_MILLIS);
        try {
            this.nowMillis = now == null ? -1 : Long.parseLong(now.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("flushline: option 'now_millis' must be an integer (epoch milliseconds), not '" + now + "'");
        }
        if (now != null && nowMillis < 0) throw new IllegalArgumentException("flushline: option 'now_millis' must be 0 or more, not " + now);
        this.failFirstAttemptOfPartition = intOption(o, FAIL_FIRST_ATTEMPT_OF_PARTITION, -1, 0);
        this.holdTasksUntilFile = o.get(HOLD_TASKS_UNTIL_FILE);
        this.effectiveTableCql = withCompression(tableCql, o.get(COMPRESSION));
        CqlParser.parse(effectiveTableCql); // refuse a bad statement on the driver, naming line and column
    }

    /** Parses Spark's options map (its keys are case-insensitive; looked up lower-case). */
    static WriteOptions parse(Map<String, String> options) {
        Map<String, String> lower = new java.util.HashMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) lower.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue());
        return new WriteOptions(lower);
    }

    TableSchema schema() {
        return CqlParser.parse(effectiveTableCql);
    }

    /** The ring of the 'ring' option, or null. */
    TokenRing ring() {
        if (ringText == null) return null;
        if (ring == null) ring = RingFile.parse(ringText, ringSource);
        return ring;
    }

    /**
     * The first token of each of the {@link #ranges} token ranges: the ring's ranges with the
     * 'ring' option, else the ring split evenly.
     */
    long[] starts() {
        if (starts == null) {
            TokenRing r = ring();
            if (r == null) {
                starts = TokenPartitioning.starts(ranges);
            } else {
                long[] s = new long[r.segmentCount()];
                for (int i = 0; i < s.length; i++) s[i] = r.segmentFirst(i);
                starts = s;
            }
        }
        return starts;
    }

    private static int intOption(Map<String, String> o, String name, int absent, int min) {
        String v = o.get(name);
        if (v == null) return absent;
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("flushline: option '" + name + "' must be an integer, not '" + v + "'");
        }
        if (n < min) throw new IllegalArgumentException("flushline: option '" + name + "' must be at least " + min + ", not " + n);
        return n;
    }

    /**
     * The statement with {@code compression} set: lz4 (Cassandra's default) or none. Absent, the
     * statement's own compression (or the default) stands.
     */
    static String withCompression(String cql, String compression) {
        if (compression == null) return cql;
        String map;
        switch (compression.toLowerCase(Locale.ROOT)) {
            case "lz4": map = "{'class': 'LZ4Compressor'}"; break;
            case "none": map = "{'enabled': 'false'}"; break;
            default:
                throw new IllegalArgumentException("flushline: option 'compression' must be lz4 or none, not '" + compression + "'");
        }
        String body = cql.strip();
        if (body.endsWith(";")) body = body.substring(0, body.length() - 1);
        if (body.toLowerCase(Locale.ROOT).contains("compression")) {
            throw new IllegalArgumentException("flushline: option 'compression' is given, and the table statement sets compression too: " + cql);
        }
        return body + (WITH.matcher(body).find() ? " AND" : " WITH") + " compression = " + map;
    }
}
