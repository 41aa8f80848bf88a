package dev.flushline.sstable;

/**
 * The files of one oa sstable. The declaration order is the publish order: every component is
 * complete and fsynced before the first rename, Data.db is renamed after all the components a
 * reader needs with it, and TOC.txt is renamed last, so a crash mid-publish leaves at worst a
 * generation without TOC.txt, which the next run deletes.
 */
public enum Component {
    STATISTICS("Statistics.db"),
    INDEX("Index.db"),
    COMPRESSION_INFO("CompressionInfo.db"),
    SUMMARY("Summary.db"),
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
     * TOC.txt order as Cassandra 5.0.9 writes it: the component names sorted as Java strings ("CRC.db" before
     * "CompressionInfo.db"). Cassandra up to 5.0.5 wrote them in the order of its writer (Data.db first);
     * every reader treats the file as a set, so both orders read the same everywhere.
     */
    static final Component[] TOC_ORDER_COMPRESSED = {COMPRESSION_INFO, DATA, DIGEST, FILTER, INDEX, STATISTICS, SUMMARY, TOC};
    static final Component[] TOC_ORDER_UNCOMPRESSED = {CRC, DATA, DIGEST, FILTER, INDEX, STATISTICS, SUMMARY, TOC};
}
