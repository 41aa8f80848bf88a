/**
 * The BTI format's partition index, read: Partitions.db (a trie of the shortest distinguishing
 * prefixes of the partition keys' byte-comparable forms, with the first and last keys and a
 * footer) and Rows.db (a row index trie and an entry per partition of two or more index blocks),
 * as {@link dev.flushline.sstable.bti.TrieNodeLayout}, {@link dev.flushline.sstable.bti.PartitionsLayout},
 * {@link dev.flushline.sstable.bti.RowsLayout} and {@link dev.flushline.sstable.bti.DecoratedKeyBytes}
 * draw them; the layouts are written so that a writer can share their constants. The classes here
 * implement the reading side of the seam of {@code dev.flushline.sstable} (the partition index and
 * the verifier's check; the writer refuses) and build on its shared layouts; only
 * {@code SSTableFormat} refers to them, and nothing here imports a stage above sstable.
 */
package dev.flushline.sstable.bti;
