#!/usr/bin/env bash
# The measured compaction runs behind README.md, one shape per invocation (each well under 10 minutes), from the
# repository root. Output: bench-compact-<shape>.out next to this script.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for shape in ${SHAPES:-disjoint overwrite tombstones}; do
    { date -u; uptime; } > "$here/bench-compact-$shape.out"
    scripts/flushline bench compact --against cassandra --shape "$shape" --compression lz4,none \
        >> "$here/bench-compact-$shape.out" 2>&1
    { date -u; uptime; } >> "$here/bench-compact-$shape.out"
done
