#!/usr/bin/env bash
# Every figure of README.md in this directory, from the repository root, one after another on a quiet machine:
# the flush against the peers, compaction against the peers, the three loads and the reader alone, and the
# scan benchmark (its sstable is the default bench workload's, flushed first). Outputs land next to this file.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp() { { echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), main at $(git rev-parse --short HEAD), $(uptime)"; } >> "$1"; }
run() { local out="$here/$1"; shift; : > "$out"; stamp "$out"; "$@" >> "$out" 2>&1; stamp "$out"; }
run bench-against.out scripts/flushline bench --against cassandra,cassandra6,rocksdb --sstable-version oa,da \
    --allocation heap_buffers,offheap_objects --compression lz4,none
# bench-against-2.out: the same command once more (it ran after the chain, 19:52-19:55)
run bench-compact.out scripts/flushline bench compact --against cassandra,cassandra6
run load-against-jsonl.out scripts/load-against --json
run load-against-jsonl-offheap.out scripts/load-against --json --allocation offheap_objects
run load-against-csv.out scripts/load-against --json --format csv
run load-against-reader-alone.out scripts/load-against --reader-alone
dir="${SCAN_DIR:-/tmp/flushline-scan-bench}"
rm -rf "$dir"
run scan-bench.out scripts/flushline bench --out "$dir"
data="$(find "$dir" -name '*-Data.db' | head -n 1)"
node="-Xms6026m -Xmx6026m -XX:+AlwaysPreTouch -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70"
run scan-jmh.out java -cp "target/flushline.jar:target/lib/*:jmh/target/classes:$(cat jmh/target/compare.classpath)" org.openjdk.jmh.Main \
    SSTableScanBench -f 1 -wi 3 -i 5 -w 6s -r 6s -prof gc -jvmArgs "$node" -p sstable="$data" -p compression=lz4
