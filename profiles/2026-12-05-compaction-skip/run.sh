#!/usr/bin/env bash
# The runs behind this folder, from the repository root on a quiet machine (outputs land next to this file).
# ab-compact.out came from the same bench command run in a detached worktree of the commit before each change and
# in main, alternating; its header says how.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
c=$(git rev-parse --short HEAD)

# Profiles before (main at 0b733e5, one warm-up round as the bench then had) and after (main at a9c9f07).
# git checkout 0b733e5; scripts/flushline bench compact --rounds 3 --profile-dir /tmp/ccbefore; git checkout main
# for s in disjoint overwrite tombstones; do cp /tmp/ccbefore/compaction-$s-none-cpu.collapsed "$here/before-0b733e5-$s-none-cpu.collapsed"; done
scripts/flushline bench compact --compression none --warmup 3 --rounds 3 --profile-dir /tmp/ccafter > "$here/profile-run-$c.out" 2>&1
for s in disjoint overwrite tombstones; do cp "/tmp/ccafter/compaction-$s-none-cpu.collapsed" "$here/after-$c-$s-none-cpu.collapsed"; done

# one-cpu.out, two-cpu.out: taskset -c 0 scripts/flushline bench compact --rounds 3, then the same without taskset.
# bench-compact-against-c5-c6-<commit>[-n].out: compaction beside Cassandra 5.0.5 and 6.0-alpha2, at 837fd37,
# twice at a9c9f07, one after the other, and at 48188fc (main's head at this stop).
scripts/flushline bench compact --against cassandra,cassandra6 > "$here/bench-compact-against-c5-c6-$c-1.out" 2>&1
scripts/flushline bench compact --against cassandra,cassandra6 > "$here/bench-compact-against-c5-c6-$c-2.out" 2>&1
