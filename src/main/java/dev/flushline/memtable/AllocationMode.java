package dev.flushline.memtable;

import dev.flushline.data.RowRecord;
import dev.flushline.data.Cell;
import dev.flushline.data.Row;

/**
 * How a memtable stores its rows (Cassandra's memtable_allocation_type). In both slab modes a row
 * is one {@link RowRecord} (liveness, deletion and every cell, values included), not a Row with a
 * cell object per value: the garbage collector sees one skip-list node and the clustering per row,
 * and the flush reads the record through a reused flyweight ({@link MemtableRowReader}).
 */
public enum AllocationMode {
    /** The parsed {@link Row}s and their {@link Cell}s themselves, on heap. */
    UNSLABBED_HEAP("unslabbed_heap"),
    /** Row records in 1 MiB heap slabs. */
    HEAP_BUFFERS("heap_buffers"),
    /** Row records in 1 MiB native slabs, freed when the memtable is discarded. */
    OFFHEAP_OBJECTS("offheap_objects");

    private final String cliName;

    AllocationMode(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    public static AllocationMode fromCliName(String name) {
        for (AllocationMode m : values()) {
            if (m.cliName.equals(name)) return m;
        }
        throw new IllegalArgumentException("unknown allocation mode '" + name
                + "' (expected unslabbed_heap, heap_buffers or offheap_objects)");
    }
}
