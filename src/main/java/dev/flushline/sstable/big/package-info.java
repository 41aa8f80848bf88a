/**
 * The BIG format's partition index: Index.db (an entry per partition, with a promoted row index
 * for a partition of two or more row index blocks) and Summary.db (a sample of the entries, for
 * lookups), as {@link dev.flushline.sstable.big.BigIndexLayout} draws them. The classes here
 * implement the seam of {@code dev.flushline.sstable} (the writer, the reader and the verifier's
 * check) and build on its shared layouts; only {@code SSTableFormat} refers to them, and nothing
 * here imports a stage above sstable.
 */
package dev.flushline.sstable.big;
