#!/usr/bin/env bash
# The runs behind this folder, from the repository root on a quiet machine; outputs land next to this file, each
# stamped with its start and end, main's commit and the load. ab-compact.out came from the same bench command run
# in a worktree of the commit before each change and in main, alternating (its header says how).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stamp() { { echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), main at $(git rev-parse --short HEAD), $(uptime)"; } >> "$1"; }
run() { local out="$here/$1"; shift; : > "$out"; stamp "$out"; "$@" >> "$out" 2>&1; stamp "$out"; }

# Profiles before (main at 95b61ae; tombstones at a0dbd2a, which left that shape as it was): one shape each.
before() {
    scripts/flushline bench compact --shape "$1" --compression none --rounds 5 --profile-dir /tmp/ccbefore
    cp "/tmp/ccbefore/compaction-$1-none-cpu.collapsed" "$here/before-$(git rev-parse --short HEAD)-$1-none-cpu.collapsed"
}
# git checkout 95b61ae; before disjoint; before overwrite; git checkout a0dbd2a; before tombstones; git checkout main

# bench-compact-against-c5-c6-<commit>.out: compaction beside Cassandra 5.0.5 and 6.0-alpha2, run at 6cae01d,
# 5000643 (with the after profiles) and 9fc44a7 (main's head at this stop).
c=$(git rev-parse --short HEAD)
run "bench-compact-against-c5-c6-$c.out" scripts/flushline bench compact --against cassandra,cassandra6 --profile-dir /tmp/ccfinal
for f in /tmp/ccfinal/*-cpu.collapsed; do cp "$f" "$here/after-$c-$(basename "$f" | sed 's/^compaction-//')"; done
