/**
 * The BTI format's partition index, written and read: Partitions.db (a trie of the shortest
 * distinguishing prefixes of the partition keys' byte-comparable forms, with the first and last keys
 * and a footer) and Rows.db (a row index trie and an entry per partition of two or more index
 * blocks), as {@link dev.flushline.sstable.bti.TrieNodeLayout}, {@link dev.flushline.sstable.bti.PartitionsLayout},
 * {@link dev.flushline.sstable.bti.RowsLayout} and {@link dev.flushline.sstable.bti.DecoratedKeyBytes}
 * draw them; the writing side ({@link dev.flushline.sstable.bti.BtiIndexWriter} over
 * {@link dev.flushline.sstable.bti.TrieWriter} and
 * {@link dev.flushline.sstable.bti.ClusteringComparableBytes}) and the reading side (the partition
 * index and the verifier's check) share those layouts. The classes here implement the seam of
 * {@code dev.flushline.sstable}; only {@code SSTableFormat} refers to them, and nothing here imports
 * a stage above sstable.
 */
package dev.flushline.sstable.bti;
