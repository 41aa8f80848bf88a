/**
 * The sstable formats Cassandra 5.0 reads, in both directions: the layouts (each drawn in its
 * {@code *Layout} class or in the class that owns it), the one partition writer
 * ({@link dev.flushline.sstable.SSTableOutput}) that flush, compaction and the bulk writer call,
 * the exact-size row serializer and statistics collector, the transactional writer and
 * transaction log that publish sstables, and the cursor reader, verifier and partition index
 * reader.
 *
 * <p>Formats. Everything here is shared by every format: Data.db rows, Statistics.db, Filter.db,
 * CompressionInfo.db or CRC.db, Digest.crc32, TOC.txt, the row index blocks and the transaction
 * log. What differs between formats is the partition index, drawn at partition granularity as
 * {@link dev.flushline.sstable.PartitionIndexWriter}, {@link dev.flushline.sstable.PartitionIndex}
 * and {@link dev.flushline.sstable.PartitionIndexCheck}; each format implements them in its own
 * sub-package ({@code big}: Index.db and Summary.db; {@code bti}: Partitions.db and Rows.db, read
 * only), and
 * {@link dev.flushline.sstable.SSTableFormat}, picked from the sstable's version once per sstable,
 * makes them. Code outside this package names neither a format's classes nor its component files.
 */
package dev.flushline.sstable;
