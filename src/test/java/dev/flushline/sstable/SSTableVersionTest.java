package dev.flushline.sstable;

import dev.flushline.compaction.Compactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.schema.CqlParser;
import dev.flushline.table.TableOptions;
import org.apache.cassandra.io.sstable.format.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The versions against Cassandra 5.0.9's: da (BTI) has oa's (BIG) feature flags (all that shape
 * the bytes), which is why every shared reader takes da's Data.db and Statistics.db as oa's; nb differs where
 * {@link SSTableVersion} says. Writing da is refused, by name, wherever a writer is given a version.
 */
class SSTableVersionTest {
    @TempDir
    Path tmp;

    /** Every boolean feature method of Cassandra's Version (has*, is* but the latest-version ones). */
    static List<String> features(Version v) throws ReflectiveOperationException {
        List<String> out = new ArrayList<>();
        for (Method m : Version.class.getMethods()) {
            if (m.getReturnType() != boolean.class || m.getParameterCount() != 0 || !m.getName().startsWith("has")) continue;
            out.add(m.getName() + "=" + m.invoke(v));
        }
        out.sort(null);
        return out;
    }

    static Version cassandra(SSTableVersion v) {
        return CassandraReferenceWriter.formatOf(v.id()).getVersion(v.id());
    }

    @Test
    void daHasOasFeatures() throws Exception {
        CassandraOracle.init();
        List<String> oa = features(cassandra(SSTableVersion.OA));
        List<String> da = features(cassandra(SSTableVersion.DA));
        assertTrue(oa.size() >= 14, oa.toString());
        // The one difference: BIG deprecated hasAccurateMinMax in oa. Cassandra reads it only for versions with
        // hasLegacyMinMax (false for both), to trust the legacy min/max clustering lists, which neither has.
        assertTrue(oa.remove("hasAccurateMinMax=false") && da.remove("hasAccurateMinMax=true"), oa + " " + da);
        assertTrue(oa.contains("hasLegacyMinMax=false"), oa.toString());
        assertEquals(oa, da);
        assertTrue(cassandra(SSTableVersion.DA).isCompatible() && cassandra(SSTableVersion.DA).isLatestVersion());
        assertEquals("bti", cassandra(SSTableVersion.DA).format.name());
        for (SSTableVersion v : SSTableVersion.values()) {
            assertEquals(cassandra(v).hasUIntDeletionTime(), v.hasUnsignedDeletionTime(), v.id());
            assertEquals(cassandra(v).format.name(), v.format().id(), v.id());
        }
        assertEquals(SSTableVersion.OA.maxLocalDeletionTime(), SSTableVersion.DA.maxLocalDeletionTime());
        assertEquals("da-7-bti-", SSTableVersion.DA.fileNamePrefix("7"));
    }
}
