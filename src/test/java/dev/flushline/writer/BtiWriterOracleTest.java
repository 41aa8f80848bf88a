package dev.flushline.writer;

/**
 * {@link WriterOracleTest} with both writers told to write BTI, by the name Cassandra gives the
 * format: CQLSSTableWriter's {@code withFormat} of Cassandra's "bti" format and our
 * {@code withFormat("bti")}; both write da files, which Cassandra reads back equal.
 */
class BtiWriterOracleTest extends WriterOracleTest {
    @Override
    String format() {
        return "bti";
    }
}
