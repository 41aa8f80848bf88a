#!/bin/sh
# Third pass: MemtableWriteBench again, now with the writer thread's CPU time per row
# (cpuNanos / rowsApplied aux counters) next to the wall-clock score, because run1 and run2
# wall-clock medians for the same combination differed by up to 2.6x under load from other workers.
# From the repo root, after: mvn -q -B install -DskipTests && mvn -q -B -f jmh/pom.xml package
set -e
D=profiles/2026-11-30-jmh/run3
J="java -jar jmh/target/benchmarks.jar"
$J MemtableWriteBench -f 1 -wi 3 -i 8 -w 2s -r 2s -prof gc -rf json -rff $D/memtable-write.json > $D/memtable-write.txt 2>&1
