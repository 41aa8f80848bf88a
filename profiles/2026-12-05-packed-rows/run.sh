#!/usr/bin/env bash
# The runs behind this folder, one after another on a quiet machine, from the repository root; outputs land next to
# this file, each stamped with its start and end, main's commit and the load. bench-against.out and the loads ran
# with main at 483ad1f, bench-against-rounds.out at a8b3bcd (the same flush code; --rounds added).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp() { { echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), main at $(git rev-parse --short HEAD), $(uptime)"; } >> "$1"; }
run() { local out="$here/$1"; shift; : > "$out"; stamp "$out"; "$@" >> "$out" 2>&1; stamp "$out"; }
against() {
    scripts/flushline bench --against cassandra,cassandra6,rocksdb --sstable-version oa,da \
        --allocation heap_buffers,offheap_objects --compression lz4,none "$@"
}
run bench-against.out against
run load-against-jsonl-offheap.out scripts/load-against --allocation offheap_objects --json
run load-against-jsonl.out scripts/load-against --json
run load-against-jsonl-2.out scripts/load-against --json
run load-against-csv.out scripts/load-against --format csv --json
run load-against-csv-2.out scripts/load-against --format csv --json
run bench-against-rounds.out against --rounds 3
# the fill benchmark (main at 4f765e7), in a node's JVM
node="-Xms6026m -Xmx6026m -XX:+AlwaysPreTouch -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70"
run memtable-write-jmh.out java -cp "target/flushline.jar:target/lib/*:jmh/target/classes:$(cat jmh/target/compare.classpath)" \
    org.openjdk.jmh.Main MemtableWriteBench -p memtable=HASH -p mode=HEAP_BUFFERS,OFFHEAP_OBJECTS -wi 2 -i 5 -prof gc -jvmArgs "$node"

# Profiles (async-profiler 4.1 as scripts/profile finds it; AP=path to libasyncProfiler.so):
# - flush-lz4-heap_buffers-packed.collapsed (main at b7dcdd4) and flush-lz4-heap_buffers-guard.collapsed (483ad1f):
#   JAVA_OPTS="<the node options scripts/flushline prints in the JVM line> -agentpath:$AP=start,event=cpu,interval=1ms,threads,file=F,collapsed" \
#       scripts/flushline bench --allocation heap_buffers --compression lz4
#   then the stacks under FlushWriter.write that are not under the warm-up (the measured flush's serializer thread).
# - load-alloc.collapsed (483ad1f): the load's heap allocation by site,
#   JAVA_OPTS="-XX:MaxRAMPercentage=70 -agentpath:$AP=start,event=alloc,alloc=64k,total,file=F,collapsed" \
#       scripts/flushline load --schema stress_table.cql --input bench.jsonl --out DIR --memtable-size-mb 2048
#   (stress_table.cql and bench.jsonl as `scripts/load-against --dir D` leaves them in D).
