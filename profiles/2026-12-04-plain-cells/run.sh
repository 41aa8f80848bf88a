#!/usr/bin/env bash
# The flush against the peers and compaction against the peers, then the load beside CQLSSTableWriter, one after
# another on a quiet machine, from the repository root; outputs land next to this file, each stamped with its start
# and end, main's commit and the load. The first pair ran with main at 0efccfd, the rest with main at b84562e,
# the da/oa rounds at 543bad1.
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
