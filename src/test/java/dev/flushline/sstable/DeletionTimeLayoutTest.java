package dev.flushline.sstable;

import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReferenceWriter;
import org.apache.cassandra.io.sstable.format.Version;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The standalone deletion time of each version, against cassandra-all 5.0.9's serializer for that version. */
class DeletionTimeLayoutTest {
    static final long[][] CASES = {
            {Long.MIN_VALUE, Long.MAX_VALUE}, // LIVE
            {0, 0}, {1, 1_750_000_000L}, {Long.MAX_VALUE, 5}, {1_700_000_000_000_000L, Integer.MAX_VALUE - 1},
            {-7, 1_750_000_000L}, {Long.MIN_VALUE, 3}, // negative timestamps: nb only
    };

    @Test
    void bytesAreCassandras() throws Exception {
        CassandraOracle.init();
        for (SSTableVersion v : SSTableVersion.values()) {
            Version cv = CassandraReferenceWriter.formatOf(v.id()).getVersion(v.id()); // da is BTI's
            for (long[] c : CASES) {
                DeletionTime d = DeletionTime.of(c[0], c[1]);
                org.apache.cassandra.db.DeletionTime theirs = d.isLive() ? org.apache.cassandra.db.DeletionTime.LIVE
                        : org.apache.cassandra.db.DeletionTime.build(c[0], c[1]);
                if (v.hasUnsignedDeletionTime() && !d.isLive() && c[0] < 0) {
                    assertThrows(IllegalArgumentException.class, () -> DeletionTimeLayout.put(v, new FixedBuffer(12), d));
                    continue;
                }
                DataOutputBuffer out = new DataOutputBuffer();
                org.apache.cassandra.db.DeletionTime.getSerializer(cv).serialize(theirs, out);
                FixedBuffer ours = new FixedBuffer(DeletionTimeLayout.size(v, d));
                DeletionTimeLayout.put(v, ours, d);
                assertEquals(ours.capacity(), ours.position(), v + " " + d);
                assertArrayEquals(out.toByteArray(), ours.array(), v + " " + d);
            }
        }
    }
}
