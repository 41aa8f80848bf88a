#!/usr/bin/env bash
# The flush against the peers and compaction against the peers, then the load beside CQLSSTableWriter, one after
# another on a quiet machine, from the repository root; outputs land next to this file, each stamped with its start
# and end, main's commit and the load. The first pair ran with main at 0efccfd, the rest with main at b84562e,
# the da/oa rounds at 543bad1, the scan at 794d868.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp() { { echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), main at $(git rev-parse --short HEAD), $(uptime)"; } >> "$1"; }
run() { local out="$here/$1"; shift; : > "$out"; stamp "$out"; "$@" >> "$out" 2>&1; stamp "$out"; }
against() {
    scripts/flushline bench --against cassandra,cassandra6,rocksdb --sstable-version oa,da \
        --allocation heap_buffers,offheap_objects --compression lz4,none
}
run bench-against.out against
run bench-compact.out scripts/flushline bench compact --against cassandra,cassandra6
run bench-against-2.out against
run bench-compact-2.out scripts/flushline bench compact --against cassandra,cassandra6
run load-against-jsonl.out scripts/load-against --json
run load-against-jsonl-2.out scripts/load-against --json
# da beside oa over ten rounds in alternating order (main at 543bad1), three times
run bench-da-oa-rounds.out scripts/flushline bench --sstable-version oa,da --version-rounds 10
run bench-da-oa-rounds-2.out scripts/flushline bench --sstable-version oa,da --version-rounds 10
run bench-da-oa-rounds-3.out scripts/flushline bench --sstable-version oa,da --version-rounds 10
# the scan (main at 794d868): the default bench sstable, then the scan benchmark over it in a node's JVM
dir="${SCAN_DIR:-/tmp/flushline-scan-bench}"
rm -rf "$dir"
scripts/flushline bench --out "$dir" > /dev/null
data="$(find "$dir" -name '*-Data.db' | head -n 1)"
node="-Xms6026m -Xmx6026m -XX:+AlwaysPreTouch -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70"
run scan-jmh.out java -cp "target/flushline.jar:target/lib/*:jmh/target/classes:$(cat jmh/target/compare.classpath)" org.openjdk.jmh.Main \
    SSTableScanBench -f 1 -wi 3 -i 5 -w 6s -r 6s -prof gc -jvmArgs "$node" -p sstable="$data" -p compression=lz4
