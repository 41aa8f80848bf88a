package dev.flushline.node;

/**
 * {@link NodeImportTest} against a node configured for BTI ({@code sstable: selected_format: bti},
 * as in the {@code cassandra_latest.yaml} that 5.0 ships): every table loaded mostly as da (one run
 * of the first test as oa, as a node's directory holds both after its format changed), imported
 * with {@code nodetool import}, and read back through the driver equal to its twin written with CQL.
 * The base class's node imports da too, into a default (big) node.
 */
class BtiNodeImportTest extends NodeImportTest {
    @Override
    CassandraNode.Settings nodeSettings() {
        CassandraNode.Settings s = new CassandraNode.Settings();
        s.selectedFormat = "bti";
        return s;
    }

    @Override
    String[] versionsByRun() {
        return new String[] {"da", "da", "oa", "da"};
    }

    @Override
    String defaultVersion() {
        return "da";
    }
}
