#!/usr/bin/env bash
# The seven strategies of the range-aware compaction proposal's table, scaled down, second run:
# as run.sh (one data set written once by `compaction-stress write`, copied, each strategy run
# over its own copy by `compaction-stress compact` until it picks nothing more), with the flush
# size the first run got wrong and a time limit sized for all seven rows to reach rest.
#
# Scale: the original wrote 40 GB over 256 vnodes. Here SIZE_GB of data (default 0.25, so
# f = 1/160) over the same 256 vnodes (257 ranges with the wrap-around), and every MB setting
# multiplied by f, so that the data per range and the sizes that decide tiers, levels and splits
# keep their ratios.
#
# Flush size: the original's 26 size-tiered compactions of 40 GB are what about 800 flushes of
# ~50 MB give (800 / max_threshold 32 = 25 compactions of 32 flushes, then one of the outputs).
# So a flush here writes 50 MB x f of Data.db (0.31 MiB at the default size, ~850 flushes), the
# scaled min_sstable_size, as the original's flushes were about its min_sstable_size. A memtable
# of M MiB writes about M / 2.6 MiB of Data.db in compaction-stress (85 flushes of 8.1 MiB wrote
# 258.7 MiB in the first run), hence --flush-mb = 2.6 x 50 x f (0.81 at the default size).
#
# Time: each strategy stops starting compactions after TIME_LIMIT seconds (default 900), so one
# strategy that falls far behind cannot take the whole run; a row that hits it says "no" under
# "at rest". Expected at the default size on 2 shared cores: under 20 minutes in all, the leveled
# 64 KiB row the longest (a few minutes).
#
# Usage: [TIME_LIMIT=SECONDS] rerun.sh WORK_DIR [SIZE_GB] [THREADS] [VNODES]
# (WORK_DIR is created; it needs ~3x SIZE_GB free; TIME_LIMIT=0: no limit)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flushline="$here/../../scripts/flushline"
work="$1"
size="${2:-0.25}"
threads="${3:-2}"
vnodes="${4:-256}"
limit="${TIME_LIMIT:-900}"
f="$(awk -v s="$size" 'BEGIN { printf "%.10f", s / 40 }')"
mb() { awk -v x="$1" -v f="$f" 'BEGIN { printf "%.6f", x * f }'; }
flush_mb="$(awk -v f="$f" 'BEGIN { printf "%.6f", 2.6 * 50 * f }')"
mkdir -p "$work"
rm -rf "$work/written"
echo "size ${size} GiB (f = ${f}), ${vnodes} vnodes, ${threads} compaction threads, flush every ${flush_mb} MiB of memtable, time limit ${limit} s per strategy"
date -u +%Y-%m-%dT%H:%M:%SZ
"$flushline" compaction-stress write --dir "$work/written" --size-gb "$size" --seed 1 --flush-mb "$flush_mb" | tail -n 1
run() {
    local name="$1"; shift
    rm -rf "$work/$name"
    cp -r "$work/written" "$work/$name"
    "$flushline" compaction-stress compact --dir "$work/$name" --compaction-threads "$threads" \
        --time-limit-s "$limit" "$@" > "$work/$name.log"
    tail -n 1 "$work/$name.log"
    rm -rf "$work/$name"
}
stcs_min="$(mb 50)"
ra=(--range-aware --vnodes "$vnodes")
run stcs            --strategy stcs --min-sstable-size-mb "$stcs_min"
run stcs-ra-1       --strategy stcs --min-sstable-size-mb "$stcs_min" "${ra[@]}" --min-range-sstable-size-mb "$(mb 1)"
run stcs-ra-50      --strategy stcs --min-sstable-size-mb "$stcs_min" "${ra[@]}" --min-range-sstable-size-mb "$(mb 50)"
run lcs-10          --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 10)"
run lcs-10-ra-10    --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 10)" "${ra[@]}" --min-range-sstable-size-mb "$(mb 10)"
run lcs-160         --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 160)"
run lcs-160-ra-20   --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 160)" "${ra[@]}" --min-range-sstable-size-mb "$(mb 20)"
date -u +%Y-%m-%dT%H:%M:%SZ
