#!/usr/bin/env bash
# The CPU and allocation profiles of our compaction in this folder (async-profiler 4.1 from the Maven jar, loaded at
# JVM start as scripts/profile does), from the repository root. Output: profile-run.txt and compaction-*.{html,collapsed}.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scripts/flushline bench compact --help >/dev/null   # builds jmh/ and its class path
ap_jar="$(tr ':' '\n' < jmh/target/compare.classpath | grep '/async-profiler-[^/]*\.jar$' | head -n 1)"
mkdir -p target/async-profiler && (cd target/async-profiler && unzip -o -q "$ap_jar" 'linux-x64/libasyncProfiler.so')
lib="$PWD/target/async-profiler/linux-x64/libasyncProfiler.so"
JAVA_OPTS="-XX:MaxRAMPercentage=70 -agentpath:$lib -Dflushline.asyncProfiler=$lib -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints" \
    scripts/flushline bench compact --shape overwrite,tombstones,disjoint --compression lz4 --rounds 1 --warmup 1 \
    --profile-dir "$here" > "$here/profile-run.txt" 2>&1
