package dev.flushline.sstable;

/**
 * The files an sstable may have, of every format: the shared ones (Data.db, Statistics.db,
 * Filter.db, CompressionInfo.db or CRC.db, Digest.crc32, TOC.txt) and each format's partition
 * index (BIG: Index.db and Summary.db; BTI: Partitions.db and Rows.db; see
 * {@link SSTableFormat#indexComponents}). The constants carry Cassandra's component type names;
 * the file suffixes are Cassandra's. The declaration
 * order is the publish order: every component is complete and fsynced before the first rename,
 * Data.db is renamed after all the components a reader needs with it, and TOC.txt is renamed
 * last, so a crash mid-publish leaves at worst a generation without TOC.txt, which the next run
 * deletes. A format's components go before DATA.
 */
public enum Component {
    STATISTICS("Statistics.db"),
    INDEX("Index.db"),
    COMPRESSION_INFO("CompressionInfo.db"),
    SUMMARY("Summary.db"),
    PARTITION_INDEX("Partitions.db"),
    ROW_INDEX("Rows.db"),
    FILTER("Filter.db"),
    CRC("CRC.db"),
    DIGEST("Digest.crc32"),
    DATA("Data.db"),
    TOC("TOC.txt");

    private final String fileSuffix;

    Component(String fileSuffix) {
        this.fileSuffix = fileSuffix;
    }

    public String fileSuffix() {
        return fileSuffix;
    }

    /**
     * The components of an sstable of {@code format} in TOC.txt order, as Cassandra 5.0.9 writes it:
     * the component names sorted as Java strings ("CRC.db" before "CompressionInfo.db"). Cassandra
     * up to 5.0.5 wrote them in the order of its writer (Data.db first); every reader treats the
     * file as a set, so both orders read the same everywhere. {@code filtered}: a Filter.db is
     * written (not for a bloom filter fp chance of 1).
     */
    static Component[] tocOrder(SSTableFormat format, boolean compressed, boolean filtered) {
        java.util.List<Component> all = new java.util.ArrayList<>();
        all.add(compressed ? COMPRESSION_INFO : CRC);
        all.add(DATA);
        all.add(DIGEST);
        if (filtered) all.add(FILTER);
        all.add(STATISTICS);
        all.add(TOC);
        java.util.Collections.addAll(all, format.indexComponents());
        all.sort((a, b) -> a.fileSuffix.compareTo(b.fileSuffix));
        return all.toArray(new Component[0]);
    }
}
