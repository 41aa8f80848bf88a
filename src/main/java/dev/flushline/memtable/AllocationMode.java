package dev.flushline.memtable;

import dev.flushline.data.ArrayCell;
import dev.flushline.data.BufferCell;
import dev.flushline.data.NativeCell;

/** How a memtable stores cell data, which fixes its cell class (Cassandra's memtable_allocation_type). */
public enum AllocationMode {
    /** {@link ArrayCell}: the parsed cells themselves, on heap. */
    UNSLABBED_HEAP("unslabbed_heap"),
    /** {@link BufferCell}: values copied into 1 MiB heap slabs. */
    HEAP_BUFFERS("heap_buffers"),
    /** {@link NativeCell}: cells copied into 1 MiB native slabs, freed when the memtable is discarded. */
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
