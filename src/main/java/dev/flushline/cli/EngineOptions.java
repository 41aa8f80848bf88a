package dev.flushline.cli;

import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.table.TableOptions;

import java.util.Set;

/**
 * The memtable and flush options that {@code load} and {@code bench} share: memtable kind,
 * shards, allocation mode, compression override, flush ranges and threads.
 *
 * <p>Thread safety: immutable.
 */
public final class EngineOptions {
    public static final Set<String> OPTIONS = Set.of("memtable", "shards", "allocation", "compression", "ranges", "flush-threads");

    /** The allocation a node uses unless told otherwise: Cassandra's default memtable_allocation_type. */
    public static final String NODE_ALLOCATION = "heap_buffers";
    /**
     * The allocation {@code load} uses unless told otherwise: its memtables are a staging buffer for
     * one bulk write, so their rows stay off the heap, out of the collector's way (as in the
     * cassandra_latest.yaml that Cassandra 5.0 ships).
     */
    public static final String LOAD_ALLOCATION = "offheap_objects";

    /** The options' help, with a node's allocation default ({@code bench}). */
    public static final String HELP = help(NODE_ALLOCATION + ",\n                                Cassandra's default memtable_allocation_type)");

    /** The options' help; {@code allocationDefault} ends the --allocation line's "(default ..." and closes it. */
    public static String help(String allocationDefault) {
        return "  --memtable skiplist|sharded|hash\n"
          + "                                memtable implementation (default hash: finds partitions through a\n"
          + "                                hash table and sorts them by token once, at the flush; skiplist\n"
          + "                                keeps them in a skip list, as Cassandra's SkipListMemtable)\n"
          + "  --shards N                    shards of the sharded memtable, 1..1024 (default 4; needs\n"
          + "                                --memtable sharded)\n"
          + "  --allocation MODE             unslabbed_heap | heap_buffers | offheap_objects (default "
          + allocationDefault + "\n"
          + "  --compression CODEC           lz4, zstd, snappy, deflate, noop or none: overrides the table's codec\n"
          + "                                with that codec's defaults at the table's chunk length (default: the\n"
          + "                                table's compression; a table without a compression option gets LZ4\n"
          + "                                with 16 KiB chunks)\n"
          + "  --ranges N                    split each flush into N equal token ranges, one sstable each,\n"
          + "                                1..4096 (default 1)\n"
          + "  --flush-threads N             threads writing those ranges, 1..256 (default 1); with --memtable\n"
          + "                                sharded and --ranges 1, a value above 1 flushes the shards in\n"
          + "                                parallel, one sstable per shard\n";
    }

    /** {@code --sstable-version}: taken by the commands that write sstables for a cluster (load, compact). */
    public static final String SSTABLE_VERSION_OPTION = "sstable-version";
    public static final String SSTABLE_VERSION_HELP =
            "  --sstable-version oa|nb|da    sstable version written (default oa, Cassandra 5.0's BIG format);\n"
          + "                                da is Cassandra 5.0's trie-indexed BTI format; nb is for\n"
          + "                                Cassandra 4.x and for 5.0 nodes in storage_compatibility_mode:\n"
          + "                                CASSANDRA_4, and stores expiry and deletion times only up to\n"
          + "                                2038-01-19T03:14:06Z\n";

    /** skiplist, sharded or hash. */
    public final String memtable;
    public final int shards;
    /** A memtable_allocation_type name. */
    public final String allocation;
    /** null = keep the schema's compression. */
    public final TableSchema.Compression compression;
    public final int ranges;
    public final int flushThreads;

    /** The options of {@code a}, with a node's allocation default. */
    public EngineOptions(Args a) throws UsageException {
        this(a, NODE_ALLOCATION);
    }

    public EngineOptions(Args a, String defaultAllocation) throws UsageException {
        memtable = a.choice("memtable", "hash", "skiplist", "sharded", "hash");
        shards = a.intValue("shards", 4, 1, 1024);
        if (a.has("shards") && !memtable.equals("sharded")) {
            throw new UsageException("--shards needs --memtable sharded");
        }
        allocation = a.choice("allocation", defaultAllocation, "unslabbed_heap", "heap_buffers", "offheap_objects");
        compression = a.has("compression") ? compressionChoice(a) : null;
        ranges = a.intValue("ranges", 1, 1, 4096);
        flushThreads = a.intValue("flush-threads", 1, 1, 256);
    }

    /**
     * {@code --sstable-version oa|nb|da}, default oa.
     */
    public static SSTableVersion sstableVersion(Args a) throws UsageException {
        return SSTableVersion.fromId(a.choice(SSTABLE_VERSION_OPTION, SSTableVersion.OA.id(), SSTableVersion.OA.id(),
                SSTableVersion.NB.id(), SSTableVersion.DA.id()));
    }

    /** {@code --compression CODEC}: a codec's command line name. */
    public static TableSchema.Compression compressionChoice(Args a) throws UsageException {
        String[] names = new String[TableSchema.Compression.values().length];
        for (int i = 0; i < names.length; i++) names[i] = TableSchema.Compression.values()[i].cliName();
        return TableSchema.Compression.fromCliName(a.choice("compression", null, names));
    }

    public TableSchema apply(TableSchema schema) {
        return withCompression(schema, compression);
    }

    /**
     * {@code schema} compressed with {@code codec}: unchanged if it already uses it (its options
     * kept), else that codec's defaults at the table's chunk length. Null keeps the schema.
     */
    public static TableSchema withCompression(TableSchema schema, TableSchema.Compression codec) {
        if (codec == null || codec == schema.compression()) return schema;
        int chunk = schema.chunkLengthBytes() > 0 ? schema.chunkLengthBytes() : TableSchema.DEFAULT_CHUNK_LENGTH_BYTES;
        return schema.withCompression(codec, chunk);
    }

    /** A table of {@code schema} with these memtable and flush settings (the rest at their defaults). */
    TableOptions.Builder tableOptions(TableSchema schema) {
        TableOptions.Builder b = TableOptions.builder().schema(schema).memtable(memtable).allocation(allocation)
                .ranges(ranges).flushThreads(flushThreads);
        if (memtable.equals(TableOptions.MemtableKind.SHARDED.configName())) b.shards(shards);
        return b;
    }

    public static String compressionName(TableSchema schema) {
        return schema.compression().cliName();
    }
}
