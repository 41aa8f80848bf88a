#!/usr/bin/env bash
# The runs behind this folder, from the repository root on a quiet machine. Outputs land next to this file.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scripts/flushline help > /dev/null   # builds target/ and its lib/
cp_rt="target/classes:$(ls target/lib/*.jar 2>/dev/null | tr '\n' ':')"

# SinkBench: one thread, 257 MiB through a new sink per round (none, then LZ4); run in a worktree of each commit to
# compare (sink-bench.out: 33b926e against the working tree that became 8985508, alternating).
javac -cp "$cp_rt" -d /tmp/sinkbench "$here/SinkBench.java"
for m in none lz4; do echo "$m $(java -cp "/tmp/sinkbench:$cp_rt" SinkBench $m)"; done >> "$here/sink-bench.out"

# Parts: CRC32, copy into a direct block and O_DIRECT pwrite of 257 MiB, each timed alone (parts-one-buffer.out);
# parts-fresh-buffer.out is the same with a new direct buffer every round (the allocateDirect moved into the loop).
javac -d /tmp/parts "$here/Parts.java" && java -cp /tmp/parts Parts > "$here/parts-one-buffer.out"

# steal.out: three runs one after the other, /proc/stat's steal column read before and after each.
for i in 1 2 3; do
  s0=$(awk '/^cpu /{print $9}' /proc/stat)
  r=$(scripts/flushline bench compact --shape disjoint --compression none --rounds 4 --warmup 3 | grep -E '^round [0-9]+  flushline')
  s1=$(awk '/^cpu /{print $9}' /proc/stat)
  echo "steal $((s1 - s0)) jiffies"; echo "$r"
done > "$here/steal.out"

# The inline experiments ran in a scratch worktree with inline-write-behind.patch applied and the choice made by
# system properties instead of the patch's default (-Dflushline.inline=true|false for the compactor's and the
# flush's pipelined flag, -Dflushline.inlineBlock=65536|1048576 for the block), alternating in one loop, e.g.:
#   JAVA_OPTS="<node flags> -Dflushline.inline=true -Dflushline.inlineBlock=65536" \
#     scripts/flushline bench compact --shape disjoint --compression lz4 --rounds 5 --warmup 3
# ab-inline-vs-pipelined-1116.out alternated main (8985508 + the patch as it is) with a worktree of 8985508.
# mmap-uncompressed.out alternated 33b926e with 33b926e + DataChunks mapping an uncompressed Data.db.
