package dev.flushline.compaction;

import dev.flushline.data.Reconcile;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.RowBuffer;
import dev.flushline.data.Rows;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.StatisticsReader;

/**
 * Merges the versions of one row (same clustering, or the static rows of one partition) from
 * several inputs into a {@link RowBuffer}, then purges it, following Cassandra 5.0.9:
 *
 * <ul>
 * <li>Merge (Row.Merger): a single version under no covering deletion is taken as it is. Otherwise
 *     the superseding liveness (LivenessInfo.supersedes) and row deletion (DeletionTime.supersedes)
 *     win; a row deletion that does not supersede the covering (partition or range) deletion is
 *     dropped, else it becomes the covering one; it removes the liveness and every cell with
 *     {@code timestamp <= markedForDeleteAt}. Per simple column the surviving versions reconcile
 *     (Cells.reconcile). Per complex column the superseding complex deletion is kept only if it
 *     supersedes the covering deletion, and then covers the column's cells instead; cells merge by
 *     path (the collection's path order) and reconcile.</li>
 * <li>Purge (PurgeFunction, Row.purge, Cell.purge): a deletion, tombstone or expired liveness whose
 *     local deletion time is before {@code gcBefore} goes. An expired TTL cell ({@code now >=
 *     localExpirationTime}) is purged if its expiration time is before gcBefore, else it becomes a
 *     tombstone with {@code ldt = expiration - ttl} (the write time), which is purged in turn if that
 *     is before gcBefore. Each of these also needs a timestamp below the max purgeable timestamp:
 *     in a minor compaction an sstable left out, or a memtable, may hold older data the tombstone
 *     still shadows. In a major compaction nothing is left out (Long.MAX_VALUE).</li>
 * </ul>
 *
 * <p>Losing versions ({@link #losesEverything}): a version of a row whose every part a newer
 * version of it beats, by timestamps its sstable's Statistics.db bounds, contributes nothing to
 * the merge but cells merged away, so the compaction may step over it without decoding it.
 *
 * <p>Values are never copied: the RowBuffer points into the cursors' windows, valid until the
 * inputs advance. Counts of cells merged away (lost a reconciliation or shadowed) and purged feed
 * the compaction's conservation check.
 *
 * <p>Hot path: no allocation; scratch arrays are sized for the number of inputs.
 * Thread safety: none; one per compaction thread.
 */
final class RowMerger {
    static final long LIVE_TS = Long.MIN_VALUE, LIVE_LDT = Long.MAX_VALUE;

    private final long nowSeconds;
    private final long gcBefore;
    private final long maxPurgeableTimestamp;
    private final int staticComplexStart, regularComplexStart;
    private final CqlType[] staticPathType, regularPathType;

    // Per source (index into the versions array): the next column and the next cell of a complex column.
    private final int[] col;
    private final int[] cellAt;
    private final int[] cellEnd;
    private final boolean[] inColumn;

    long mergedAway;
    long purged;

    RowMerger(TableSchema schema, int maxSources, long nowSeconds, long gcBefore, long maxPurgeableTimestamp) {
        this.nowSeconds = nowSeconds;
        this.gcBefore = gcBefore;
        this.maxPurgeableTimestamp = maxPurgeableTimestamp;
        this.staticComplexStart = schema.staticComplexStart();
        this.regularComplexStart = schema.regularComplexStart();
        this.staticPathType = pathTypes(schema.staticColumns());
        this.regularPathType = pathTypes(schema.regularColumns());
        this.col = new int[maxSources];
        this.cellAt = new int[maxSources];
        this.cellEnd = new int[maxSources];
        this.inColumn = new boolean[maxSources];
    }

    private static CqlType[] pathTypes(ColumnMetadata[] cols) {
        CqlType[] out = new CqlType[cols.length];
        for (int i = 0; i < cols.length; i++) out[i] = cols[i].isComplex() ? Rows.pathType(cols[i]) : null;
        return out;
    }

    /**
     * Cassandra's purge rule: gc grace has passed ({@code localDeletionTime < gcBefore}) and nothing
     * outside the compaction can hold data the tombstone shadows ({@code timestamp <
     * maxPurgeableTimestamp}: older than every overlapping sstable not compacted and every live
     * memtable). A major compaction passes Long.MAX_VALUE, so only gc grace counts.
     */
    boolean shouldPurge(long timestamp, long localDeletionTime) {
        return localDeletionTime < gcBefore && timestamp < maxPurgeableTimestamp;
    }

    // ---- losing versions: row versions the merge would drop whole ---------------------------------

    /**
     * Whether the current row of {@code r} loses every part of itself to the current row of
     * {@code w} (the same clustering, or both static rows of one partition) in {@link #merge} of
     * any group holding both, so that merging the group without {@code r} writes the same row
     * and counts the same cells ({@code r}'s own cells then count as merged away:
     * {@link #countSkipped}). Decided from the rows' headers and the sstables' Statistics.db, not
     * from {@code r}'s cells:
     * <ul>
     * <li>every timestamp in r's sstable is strictly below every one in w's ({@code maxTimestamp
     *     < minTimestamp}; Statistics.db bounds every cell, liveness and deletion). Then each of
     *     r's cells has a lower timestamp than w's cell of its column, so reconcile never picks
     *     it (the timestamp decides first), the covering deletion shadows w's cell whenever it
     *     shadows r's, and whatever r's cell beat, w's beats too: r's cell is never the winner,
     *     whichever versions come between in the merge's order. Equal timestamps are not enough:
     *     a tie goes to the tombstone, then to the later expiry, then to the bigger value.</li>
     * <li>w has every column r has (by table position): a column only r holds would be r's.</li>
     * <li>r has no complex column: its cells merge path by path, and a path only r holds would
     *     survive; and the cells of a skipped row are counted as one per column.</li>
     * <li>if r has a primary key liveness, so has w, with a higher timestamp: the merged liveness
     *     is the superseding one, which is then never r's.</li>
     * <li>if r has a row deletion, so has w, with a higher timestamp: the merged row deletion is
     *     the superseding one and shadows the other versions' cells and liveness, so r's must
     *     not be it.</li>
     * </ul>
     * Purging, TTL expiry and the covering (partition or range) deletion act on what wins or on
     * every version alike, after this choice, so they need no condition: r's cells are merged
     * away whether or not a covering deletion shadows them, and the winners are purged the same.
     * The relation is transitive (each condition is), so dropping every version that loses to
     * another of its group still leaves, for each dropped one, a kept version it loses to.
     *
     * <p>The cells' part rests on Statistics.db's timestamp bounds being true, as Cassandra's reads
     * rely on them for the same conclusion (a read by names stops looking for a row in sstables
     * whose largest timestamp is below the liveness and cells it already holds for it). The liveness and deletion parts compare the
     * decoded headers themselves.
     */
    boolean losesEverything(CompactionInput r, CompactionInput w) {
        if (r.metadata.maxTimestamp >= w.metadata.minTimestamp) return false;
        SSTableCursor.Row rr = r.cursor.row(), wr = w.cursor.row();
        if (rr.hasLiveness() && !(wr.hasLiveness() && rr.livenessTimestamp() < wr.livenessTimestamp())) return false;
        if (rr.isDeleted() && !(wr.isDeleted() && rr.deletionTimestamp() < wr.deletionTimestamp())) return false;
        if (rr.hasComplexColumn()) return false;
        // w holds every column of its header, which holds every column r's header can.
        if ((wr.flags() & DataLayout.HAS_ALL_COLUMNS) != 0 && r.columnsWithin(w, rr.isStatic())) return true;
        // r's columns among w's, both in table position order.
        final int rc = rr.columnCount(), wc = wr.columnCount();
        if (rc > wc) return false;
        int k = 0;
        for (int j = 0; j < rc; j++) {
            int p = r.position(rr, j);
            while (k < wc && w.position(wr, k) < p) k++;
            if (k == wc || w.position(wr, k) != p) return false;
            k++;
        }
        return true;
    }

    /** Counts the cells of a version stepped over for {@link #losesEverything} as merged away, as the merge would have. */
    void countSkipped(int cells) {
        mergedAway += cells;
    }

    // ---- copy-through: rows a merge would write back unchanged ------------------------------------

    /**
     * Whether nothing in an sstable can change in a merge that takes its rows one version at a
     * time, by its Statistics.db, whose minima and maxima cover every timestamp, TTL and local
     * deletion time in it (cells, liveness, row, complex, range and partition deletions):
     * <ul>
     * <li>no timestamp is LIVE's (Long.MIN_VALUE), which the merge would take for shadowed;</li>
     * <li>nothing is purgeable: every local deletion time is at or after gcBefore, or every
     *     timestamp at or above the max purgeable one;</li>
     * <li>no expiring cell has expired (it would turn into a tombstone or go): there is no TTL, or
     *     every local deletion time, expiry times included, is after now.</li>
     * </ul>
     * Then {@link #keepsAsIs} need not look at the row's times. Conservative otherwise.
     */
    boolean nothingToPurge(StatisticsReader.Metadata m) {
        if (m.minTimestamp == LIVE_TS) return false;
        boolean nonePurgeable = m.minLocalDeletionTime >= gcBefore || m.minTimestamp >= maxPurgeableTimestamp;
        boolean noneExpired = m.maxTtl == Cell.NO_TTL || m.minLocalDeletionTime > nowSeconds;
        return nonePurgeable && noneExpired;
    }

    /**
     * Whether {@link #merge} of {@code r} alone, under no covering deletion ({@code single}), gives
     * back exactly its content, so that it may be copied rather than merged: something is left of
     * it; every complex column holds a cell or a deletion (the merge drops an empty one); and,
     * unless {@code nothingToPurge} ({@link #nothingToPurge} of its sstable), no deletion, tombstone
     * or expired liveness is purged, no expiring cell has expired, no deletion has LIVE's timestamp
     * (the merge does not take it) and no cell has it (the merge takes it for shadowed). One pass
     * over the row's columns, and over its cells only if its sstable could not rule this out.
     */
    boolean keepsAsIs(SSTableCursor.Row r, boolean nothingToPurge) {
        boolean something = r.hasLiveness() || r.isDeleted();
        final int columns = r.columnCount();
        for (int j = 0; j < columns; j++) {
            if (!r.isComplex(j) || r.cellCount(j) > 0) {
                something = true;
            } else if (r.complexDeletionTimestamp(j) == LIVE_TS) {
                return false;
            } else {
                something = true;
            }
        }
        if (!something) return false;
        if (nothingToPurge) return true;
        if (r.hasLiveness() && r.livenessTtl() != Cell.NO_TTL && nowSeconds >= r.livenessExpirationTime()
                && shouldPurge(r.livenessTimestamp(), r.livenessExpirationTime())) {
            return false;
        }
        if (r.isDeleted() && (r.deletionTimestamp() == LIVE_TS || shouldPurge(r.deletionTimestamp(), r.deletionLocalTime()))) return false;
        for (int j = 0; j < columns; j++) {
            long cts = r.complexDeletionTimestamp(j);
            if (cts != LIVE_TS && shouldPurge(cts, r.complexDeletionLocalTime(j))) return false;
        }
        final int cells = r.cellCount();
        for (int k = 0; k < cells; k++) {
            SSTableCursor.Cell c = r.cell(k);
            long ts = c.timestamp(), ldt = c.localDeletionTime();
            if (ts == LIVE_TS) return false;
            if (ldt == Cell.NO_DELETION_TIME) continue;
            if (c.ttl() != Cell.NO_TTL ? nowSeconds >= ldt : shouldPurge(ts, ldt)) return false;
        }
        return true;
    }

    /**
     * Merges the current rows of {@code sources[0..n)} into {@code out} and purges it. The merged
     * row takes the bytes of {@code clustering} (ignored for a static row): the first version's, as
     * Cassandra's merge does, even when that version was stepped over ({@link #losesEverything}),
     * since equal clusterings may differ in bytes (decimal 1.0 and 1.00).
     * {@code activeTs/activeLdt}: the covering deletion (partition or open range tombstone).
     * {@code single}: Cassandra's shortcut applies (one version, nothing covering), so the version is
     * taken unmerged. Returns false if nothing is left of the row (out is then meaningless).
     */
    boolean merge(CompactionInput[] sources, int n, boolean isStatic, long activeTs, long activeLdt, boolean single,
                  ClusteringBuffer clustering, RowBuffer out) {
        out.clear(isStatic);
        if (!isStatic) out.clustering().copyFrom(clustering);

        // Liveness and row deletion.
        long lts = Cell.NO_TIMESTAMP, lexp = Cell.NO_DELETION_TIME;
        int lttl = Cell.NO_TTL;
        long dts = LIVE_TS, dldt = LIVE_LDT;
        for (int s = 0; s < n; s++) {
            SSTableCursor.Row r = sources[s].cursor.row();
            if (r.hasLiveness() && Reconcile.livenessSupersedes(r.livenessTimestamp(), r.livenessTtl(), r.livenessExpirationTime(), lts, lttl, lexp)) {
                lts = r.livenessTimestamp();
                lttl = r.livenessTtl();
                lexp = r.livenessExpirationTime();
            }
            if (Reconcile.deletionSupersedes(r.deletionTimestamp(), r.deletionLocalTime(), dts, dldt)) {
                dts = r.deletionTimestamp();
                dldt = r.deletionLocalTime();
            }
        }
        if (!single) {
            if (Reconcile.deletionSupersedes(dts, dldt, activeTs, activeLdt)) {
                activeTs = dts;
                activeLdt = dldt;
            } else {
                dts = LIVE_TS;
                dldt = LIVE_LDT;
            }
            if (lts != Cell.NO_TIMESTAMP && lts <= activeTs) {
                lts = Cell.NO_TIMESTAMP;
                lttl = Cell.NO_TTL;
                lexp = Cell.NO_DELETION_TIME;
            }
        } else {
            activeTs = LIVE_TS; // taken as it is: not even the row's own deletion filters it
        }
        // Purge liveness and deletion.
        if (lts != Cell.NO_TIMESTAMP && lttl != Cell.NO_TTL && nowSeconds >= lexp && shouldPurge(lts, lexp)) {
            lts = Cell.NO_TIMESTAMP;
            lttl = Cell.NO_TTL;
            lexp = Cell.NO_DELETION_TIME;
        }
        if (dts != LIVE_TS && shouldPurge(dts, dldt)) {
            dts = LIVE_TS;
            dldt = LIVE_LDT;
        }
        out.setLiveness(lts, lttl, lexp);
        out.setDeletion(dts, dldt);

        // Columns, in table position order across the versions.
        final int complexStart = isStatic ? staticComplexStart : regularComplexStart;
        final CqlType[] pathType = isStatic ? staticPathType : regularPathType;
        for (int s = 0; s < n; s++) col[s] = 0;
        while (true) {
            int p = Integer.MAX_VALUE;
            for (int s = 0; s < n; s++) {
                CompactionInput in = sources[s];
                SSTableCursor.Row r = in.cursor.row();
                if (col[s] < r.columnCount()) p = Math.min(p, in.position(r, col[s]));
            }
            if (p == Integer.MAX_VALUE) break;
            for (int s = 0; s < n; s++) {
                CompactionInput in = sources[s];
                SSTableCursor.Row r = in.cursor.row();
                inColumn[s] = col[s] < r.columnCount() && in.position(r, col[s]) == p;
            }
            if (p < complexStart) {
                mergeSimple(sources, n, p, activeTs, out);
            } else {
                mergeComplex(sources, n, p, pathType[p], activeTs, activeLdt, single, out);
            }
            for (int s = 0; s < n; s++) {
                if (inColumn[s]) col[s]++;
            }
        }
        return !out.isEmpty();
    }

    private void mergeSimple(CompactionInput[] sources, int n, int p, long activeTs, RowBuffer out) {
        int best = -1, bestK = -1;
        for (int s = 0; s < n; s++) {
            if (!inColumn[s]) continue;
            SSTableCursor.Row r = sources[s].cursor.row();
            int k = r.firstCell(col[s]);
            if (r.cell(k).timestamp() <= activeTs) {
                mergedAway++;
                continue;
            }
            if (best < 0) {
                best = s;
                bestK = k;
            } else {
                mergedAway++;
                if (!firstWins(sources[best].cursor, bestK, sources[s].cursor, k)) {
                    best = s;
                    bestK = k;
                }
            }
        }
        if (best < 0) return;
        out.beginColumn(p, false, LIVE_TS, LIVE_LDT);
        addPurged(sources[best].cursor, bestK, false, out);
        out.endColumn();
    }

    private void mergeComplex(CompactionInput[] sources, int n, int p, CqlType pathType, long activeTs, long activeLdt,
                              boolean single, RowBuffer out) {
        long cts = LIVE_TS, cldt = LIVE_LDT;
        for (int s = 0; s < n; s++) {
            if (!inColumn[s]) continue;
            SSTableCursor.Row r = sources[s].cursor.row();
            int j = col[s];
            if (Reconcile.deletionSupersedes(r.complexDeletionTimestamp(j), r.complexDeletionLocalTime(j), cts, cldt)) {
                cts = r.complexDeletionTimestamp(j);
                cldt = r.complexDeletionLocalTime(j);
            }
            cellAt[s] = r.firstCell(j);
            cellEnd[s] = cellAt[s] + r.cellCount(j);
        }
        long cellActiveTs;
        if (single) {
            cellActiveTs = LIVE_TS;
        } else if (Reconcile.deletionSupersedes(cts, cldt, activeTs, activeLdt)) {
            cellActiveTs = cts;
        } else {
            cellActiveTs = activeTs;
            cts = LIVE_TS;
            cldt = LIVE_LDT;
        }
        if (cts != LIVE_TS && shouldPurge(cts, cldt)) {
            cts = LIVE_TS;
            cldt = LIVE_LDT;
        }
        out.beginColumn(p, true, cts, cldt);
        while (true) {
            // The smallest path among the versions' next cells.
            int min = -1;
            for (int s = 0; s < n; s++) {
                if (!inColumn[s] || cellAt[s] == cellEnd[s]) continue;
                if (min < 0 || comparePaths(pathType, sources[s].cursor, cellAt[s], sources[min].cursor, cellAt[min]) < 0) min = s;
            }
            if (min < 0) break;
            int best = -1, bestK = -1;
            SSTableCursor minCursor = sources[min].cursor;
            int minK = cellAt[min];
            for (int s = 0; s < n; s++) {
                if (!inColumn[s] || cellAt[s] == cellEnd[s]) continue;
                SSTableCursor c = sources[s].cursor;
                int k = cellAt[s];
                if (s != min && comparePaths(pathType, c, k, minCursor, minK) != 0) continue;
                cellAt[s]++;
                if (c.row().cell(k).timestamp() <= cellActiveTs) {
                    mergedAway++;
                    continue;
                }
                if (best < 0) {
                    best = s;
                    bestK = k;
                } else {
                    mergedAway++;
                    if (!firstWins(sources[best].cursor, bestK, c, k)) {
                        best = s;
                        bestK = k;
                    }
                }
            }
            if (best >= 0) addPurged(sources[best].cursor, bestK, true, out);
        }
        out.endColumn();
    }

    private static int comparePaths(CqlType type, SSTableCursor a, int ka, SSTableCursor b, int kb) {
        SSTableCursor.Cell ca = a.row().cell(ka);
        int aOff = ca.pathOffset(), aLen = ca.pathLength();
        SSTableCursor.Cell cb = b.row().cell(kb);
        return type.compare(a.buffer(), aOff, aLen, b.buffer(), cb.pathOffset(), cb.pathLength());
    }

    /** Cells.reconcile(first, second) == first, on the cursors' bytes ({@link Reconcile#cellFirstWins}). */
    private static boolean firstWins(SSTableCursor a, int ka, SSTableCursor b, int kb) {
        SSTableCursor.Cell ca = a.row().cell(ka);
        long ts1 = ca.timestamp(), ldt1 = ca.localDeletionTime();
        int ttl1 = ca.ttl(), off1 = ca.valueOffset(), len1 = ca.valueLength();
        SSTableCursor.Cell cb = b.row().cell(kb);
        return Reconcile.cellFirstWins(ts1, ttl1, ldt1, a.buffer(), off1, len1,
                cb.timestamp(), cb.ttl(), cb.localDeletionTime(), b.buffer(), cb.valueOffset(), cb.valueLength());
    }

    /** Adds the winning cell to the open column, purged: kept, turned into a tombstone, or dropped. */
    private void addPurged(SSTableCursor c, int k, boolean complex, RowBuffer out) {
        SSTableCursor.Cell cell = c.row().cell(k);
        long ts = cell.timestamp(), ldt = cell.localDeletionTime();
        int ttl = cell.ttl();
        byte[] buf = c.buffer();
        int pathOff = complex ? cell.pathOffset() : 0, pathLen = complex ? cell.pathLength() : 0;
        boolean live = ldt == Cell.NO_DELETION_TIME || (ttl != Cell.NO_TTL && nowSeconds < ldt);
        if (live) {
            out.addCell(ts, ttl, ldt, buf, pathOff, pathLen, buf, cell.valueOffset(), cell.valueLength());
            return;
        }
        if (shouldPurge(ts, ldt)) {
            purged++;
            return;
        }
        if (ttl != Cell.NO_TTL) {
            long tombstoneLdt = ldt - ttl; // an expired cell is a tombstone from its write time
            if (shouldPurge(ts, tombstoneLdt)) {
                purged++;
                return;
            }
            out.addCell(ts, Cell.NO_TTL, tombstoneLdt, buf, pathOff, pathLen, buf, 0, 0);
            return;
        }
        out.addCell(ts, ttl, ldt, buf, pathOff, pathLen, buf, cell.valueOffset(), cell.valueLength());
    }
}
