package dev.flushline.io;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Raw off-heap memory: allocation, release, and big-endian-agnostic primitive access by address.
 *
 * <p>This is the only class that touches {@code sun.misc.Unsafe}. Everything off heap (native
 * slabs of row records and the flush's copies out of them) goes through it, so that one counter,
 * {@link #allocatedBytes()}, tells how much native memory Flushline holds. Tests use that counter to
 * prove that discarding memtables gives every byte back.
 *
 * <p>Values are stored in the platform's native byte order; only Flushline reads them, and the
 * sstable serializers copy value bytes verbatim (they are already in their on-disk form).
 *
 * <p>Thread safety: allocation and release may be called from any thread. Reads and writes of a
 * region follow the owner's publication rules (the memtable publishes a cell only after writing it).
 */
public final class NativeMemory {
    private NativeMemory() {}

    private static final sun.misc.Unsafe UNSAFE;
    private static final long BYTE_ARRAY_BASE_OFFSET;
    private static final AtomicLong ALLOCATED_BYTES = new AtomicLong();

    static {
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            UNSAFE = (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        BYTE_ARRAY_BASE_OFFSET = UNSAFE.arrayBaseOffset(byte[].class);
    }

    /** Allocates {@code sizeBytes} of uninitialised native memory; never returns 0. */
    public static long allocate(long sizeBytes) {
        long address = UNSAFE.allocateMemory(sizeBytes);
        ALLOCATED_BYTES.addAndGet(sizeBytes);
        return address;
    }

    /** REQUIRES: {@code address} came from {@link #allocate} with this size and is not freed yet. */
    public static void free(long address, long sizeBytes) {
        UNSAFE.freeMemory(address);
        ALLOCATED_BYTES.addAndGet(-sizeBytes);
    }

    /** Native bytes currently allocated through this class and not yet freed, process-wide. */
    public static long allocatedBytes() {
        return ALLOCATED_BYTES.get();
    }

    public static byte getByte(long address) { return UNSAFE.getByte(address); }

    public static void putByte(long address, byte v) { UNSAFE.putByte(address, v); }

    public static int getInt(long address) { return UNSAFE.getInt(address); }

    public static void putInt(long address, int v) { UNSAFE.putInt(address, v); }

    public static long getLong(long address) { return UNSAFE.getLong(address); }

    public static void putLong(long address, long v) { UNSAFE.putLong(address, v); }

    /** Copies {@code length} bytes from native memory into {@code dst[dstOffset..]}. */
    public static void copyToArray(long srcAddress, byte[] dst, int dstOffset, int length) {
        if ((dstOffset | length) < 0 || dstOffset + length > dst.length) {
            throw new IndexOutOfBoundsException("dst " + dst.length + " offset " + dstOffset + " length " + length);
        }
        UNSAFE.copyMemory(null, srcAddress, dst, BYTE_ARRAY_BASE_OFFSET + dstOffset, length);
    }

    /** Copies {@code length} bytes of {@code src[srcOffset..]} into native memory. */
    public static void copyFromArray(byte[] src, int srcOffset, long dstAddress, int length) {
        if ((srcOffset | length) < 0 || srcOffset + length > src.length) {
            throw new IndexOutOfBoundsException("src " + src.length + " offset " + srcOffset + " length " + length);
        }
        UNSAFE.copyMemory(src, BYTE_ARRAY_BASE_OFFSET + srcOffset, null, dstAddress, length);
    }

    /**
     * Unmaps a mapping now. REQUIRES: nothing reads {@code mapped} or a view of it afterwards (a read
     * would touch unmapped memory).
     */
    public static void unmap(java.nio.MappedByteBuffer mapped) {
        UNSAFE.invokeCleaner(mapped);
    }

    /** Copies between two native regions. */
    public static void copy(long srcAddress, long dstAddress, long length) {
        UNSAFE.copyMemory(srcAddress, dstAddress, length);
    }
}
