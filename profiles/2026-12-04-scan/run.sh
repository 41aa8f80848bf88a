#!/usr/bin/env bash
# The scan benchmark behind README.md, from the repository root: the default bench workload flushed once and kept
# (bench.out, with the bench's own Scanned line), then SSTableScanBench over that sstable with -prof gc (jmh.out).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${SCAN_DIR:-/tmp/flushline-scan-bench}"
rm -rf "$dir"
scripts/flushline bench compact --help >/dev/null   # builds jmh/ and its class path
{ date -u; uptime; } > "$here/bench.out"
scripts/flushline bench --out "$dir" >> "$here/bench.out" 2>&1
data="$(find "$dir" -name '*-Data.db' | head -n 1)"
{ date -u; uptime; } > "$here/jmh.out"
java -cp "target/flushline.jar:target/lib/*:jmh/target/classes:$(cat jmh/target/compare.classpath)" org.openjdk.jmh.Main \
    SSTableScanBench -f 1 -wi 3 -i 5 -w 6s -r 6s -prof gc -p sstable="$data" -p compression=lz4 \
    -rf json -rff "$here/jmh.json" >> "$here/jmh.out" 2>&1
{ date -u; uptime; } >> "$here/jmh.out"
