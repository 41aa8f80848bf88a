#!/usr/bin/env bash
# The seven strategies of the range-aware compaction proposal's table, scaled down: one data set
# written once by `compaction-stress write`, copied, and each strategy run over its own copy by
# `compaction-stress compact` until it picks nothing more. Prints each run's result row.
#
# Scale: the original wrote 40 GB over 256 vnodes. Here SIZE_GB of data (default 0.25, so 1/160)
# over the same 256 vnodes, and every MB setting multiplied by the same factor SIZE_GB / 40, so
# that the data per range and the sizes that decide tiers, levels and splits keep their ratios.
#
# Usage: [TIME_LIMIT=SECONDS] run.sh WORK_DIR [SIZE_GB] [THREADS]
# (WORK_DIR is created; it needs ~3x SIZE_GB free; TIME_LIMIT: no new compaction after that many
# seconds of a strategy's run, whose row then says it is not at rest; 0 = run to rest)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
flushline="$here/../../scripts/flushline"
work="$1"
size="${2:-0.25}"
threads="${3:-2}"
f="$(awk -v s="$size" 'BEGIN { printf "%.10f", s / 40 }')"
mb() { awk -v x="$1" -v f="$f" 'BEGIN { printf "%.6f", x * f }'; }
mkdir -p "$work"
rm -rf "$work/written"
# Flush size: the original's 26 size-tiered compactions of 40 GB imply about 78 flushes of ~500 MB;
# a memtable of M MiB writes about M / 2.6 MiB of Data.db here, so 1300 MB x factor.
"$flushline" compaction-stress write --dir "$work/written" --size-gb "$size" --seed 1 --flush-mb "$(mb 1300)" | tail -n 1
run() {
    local name="$1"; shift
    rm -rf "$work/$name"
    cp -r "$work/written" "$work/$name"
    "$flushline" compaction-stress compact --dir "$work/$name" --compaction-threads "$threads" \
        --time-limit-s "${TIME_LIMIT:-0}" "$@" > "$work/$name.log"
    tail -n 1 "$work/$name.log"
    rm -rf "$work/$name"
}
stcs_min="$(mb 50)"
run stcs            --strategy stcs --min-sstable-size-mb "$stcs_min"
run stcs-ra-1       --strategy stcs --min-sstable-size-mb "$stcs_min" --range-aware --vnodes 256 --min-range-sstable-size-mb "$(mb 1)"
run stcs-ra-50      --strategy stcs --min-sstable-size-mb "$stcs_min" --range-aware --vnodes 256 --min-range-sstable-size-mb "$(mb 50)"
run lcs-10          --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 10)"
run lcs-10-ra-10    --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 10)" --range-aware --vnodes 256 --min-range-sstable-size-mb "$(mb 10)"
run lcs-160         --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 160)"
run lcs-160-ra-20   --strategy lcs --min-sstable-size-mb "$stcs_min" --sstable-size-mb "$(mb 160)" --range-aware --vnodes 256 --min-range-sstable-size-mb "$(mb 20)"
