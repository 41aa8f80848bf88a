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

    /** TOC.txt order as Cassandra 5.0.5 writes it (readers treat it as a set). */
    static final Component[] TOC_ORDER_COMPRESSED = {DATA, STATISTICS, DIGEST, TOC, COMPRESSION_INFO, FILTER, INDEX, SUMMARY};
    static final Component[] TOC_ORDER_UNCOMPRESSED = {DATA, STATISTICS, DIGEST, TOC, CRC, FILTER, INDEX, SUMMARY};
}
