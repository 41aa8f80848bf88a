#!/usr/bin/env bash
# The runs behind this folder, one after another on a quiet machine, from the repository root; outputs land next to
# this file, each stamped with its start and end, main's commit and the load.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp() { { echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), main at $(git rev-parse --short HEAD), $(uptime)"; } >> "$1"; }
run() { local out="$here/$1"; shift; : > "$out"; stamp "$out"; "$@" >> "$out" 2>&1; stamp "$out"; }
node="-Xms6026m -Xmx6026m -XX:+AlwaysPreTouch -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m -XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70"

# ab-direct-buffered.out: our flush with Data.db written direct and through the page cache, alternating, three runs
# each of four flushes (oa, da, da, oa) in one JVM; only the Filled and Completed lines kept.
ab() {
    for i in 1 2 3; do for mode in true false; do
        echo "== run $i flushline.io.direct=$mode"
        JAVA_OPTS="$node -Dflushline.io.direct=$mode" scripts/flushline bench --allocation heap_buffers --compression lz4 \
            --sstable-version oa,da --version-rounds 2 2>&1 | grep -E "^Completed|^Filled"
    done; done
}
run ab-direct-buffered.out ab

# The machine: what a buffered and a direct write of 256 MiB cost the writing thread (dd's system time).
dd_costs() {
    for i in 1 2 3; do /usr/bin/time -f "buffered: sys %S s, wall %e s" dd if=/dev/zero of=/tmp/ddtest bs=1M count=256 2>&1 | grep buffered; rm -f /tmp/ddtest; done
    sleep 5; /usr/bin/time -f "buffered after 5 s idle: sys %S s, wall %e s" dd if=/dev/zero of=/tmp/ddtest bs=1M count=256 2>&1 | grep buffered; rm -f /tmp/ddtest
    for i in 1 2; do /usr/bin/time -f "direct: sys %S s, wall %e s" dd if=/dev/zero of=/tmp/ddtest bs=1M count=256 oflag=direct 2>&1 | grep direct; rm -f /tmp/ddtest; done
    echo "virtio balloon features (bit 5 = free page reporting): $(cat /sys/bus/virtio/devices/virtio0/features)"
}
run dd-costs.out dd_costs

against() {
    scripts/flushline bench --against cassandra,cassandra6,rocksdb --sstable-version oa,da \
        --allocation heap_buffers,offheap_objects --compression lz4,none "$@"
}
run bench-against-rounds.out against --rounds 3

# bench-compact-against-c5-c6.out (main at ff622e3): compaction beside both Cassandras
run bench-compact-against-c5-c6.out scripts/flushline bench compact --against cassandra,cassandra6 --dir /tmp/cc --profile-dir /tmp/ccprof
# ab-compact-direct-buffered.out: our compaction direct and buffered, alternating, two each
ab_compact() {
    for i in 1 2; do for mode in true false; do
        echo "== run $i flushline.io.direct=$mode"
        JAVA_OPTS="-Dflushline.io.direct=$mode" scripts/flushline bench compact --shape disjoint,overwrite --dir /tmp/cc 2>&1 \
            | grep -E "^(disjoint|overwrite) +(lz4|none) +flushline "
    done; done
}
run ab-compact-direct-buffered.out ab_compact
# the loads: heap_buffers (main at ba43bed, then load's default), offheap_objects, and the new default (main at c1ee065)
# (load-against-*.out without -offheap/-default ran when heap_buffers was the load default, as plain --json and --format csv --json)
run load-against-jsonl.out scripts/load-against --allocation heap_buffers --json
run load-against-csv.out scripts/load-against --allocation heap_buffers --format csv --json
run load-against-jsonl-2.out scripts/load-against --allocation heap_buffers --json
run load-against-csv-2.out scripts/load-against --allocation heap_buffers --format csv --json
run load-against-jsonl-offheap.out scripts/load-against --allocation offheap_objects --json
run load-against-csv-offheap.out scripts/load-against --format csv --allocation offheap_objects --json
run load-against-jsonl-default.out scripts/load-against --json
run load-against-csv-default.out scripts/load-against --format csv --json
# the version order in a peer run
run bench-against-cassandra-none-heap-oa-da.out scripts/flushline bench --against cassandra --sstable-version oa,da --allocation heap_buffers --compression none --rounds 3
run bench-against-cassandra-none-heap-da-oa.out scripts/flushline bench --against cassandra --sstable-version da,oa --allocation heap_buffers --compression none --rounds 3

# Profiles (async-profiler 4.1; AP=path to libasyncProfiler.so; node = the options above):
# - flush-io-threads-buffered.collapsed (main at 3a629bd, before O_DIRECT): the I/O threads' stacks of
#   JAVA_OPTS="$node -agentpath:$AP=start,event=cpu,interval=1ms,threads,file=F,collapsed" \
#       scripts/flushline bench --allocation heap_buffers --compression lz4 --sstable-version oa,da --version-rounds 2
#   (grep '^\[flushline-io' F).
# - flush-none-heap_buffers-serializer.collapsed (main at ba43bed): the same agent on
#   scripts/flushline bench --allocation heap_buffers --compression none, the stacks under FlushWriter.write not under warmUp.

# compact-cold-warm.out (main at 9eb2385): one sstable our flush wrote (bench --out D, the oa-1 files moved to IN),
# compacted cold (page cache dropped) and warm, output direct and buffered, alternating, three runs
cold_warm() {
    for i in 1 2 3; do for mode in cold warm; do for io in true false; do
        rm -rf /tmp/cold/out
        if [ $mode = cold ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
        echo "run $i inputs $mode, output direct=$io: $(JAVA_OPTS="-Dflushline.io.direct=$io" /usr/bin/time -f "proc user %U sys %S wall %e" \
            scripts/flushline compact --schema s.cql --input /tmp/cold/in --out /tmp/cold/out --now 1750000000 2>&1 | grep -E "^cpu time|^proc" | tr '\n' ' ')"
    done; done; done
}
run compact-cold-warm.out cold_warm

# bench-against-rounds-alternating.out (main at abe387c): the flush beside the peers, versions alternating per round
run bench-against-rounds-alternating.out against --rounds 3
