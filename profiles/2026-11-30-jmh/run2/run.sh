#!/bin/sh
# Second pass: longer runs of the numbers that matter, after run1 showed iteration-to-iteration
# noise of up to 3x on this shared 2-core machine. MemtableWriteBench and FlushBench now fix the
# heap at 3 GiB and (MemtableWriteBench) System.gc() in the untimed invocation teardown.
# From the repo root, after: mvn -q -B install -DskipTests && mvn -q -B -f jmh/pom.xml package
set -e
D=profiles/2026-11-30-jmh/run2
J="java -jar jmh/target/benchmarks.jar"
$J MemtableWriteBench -f 1 -wi 3 -i 8 -w 2s -r 2s -prof gc -rf json -rff $D/memtable-write.json > $D/memtable-write.txt 2>&1
$J FlushBench         -f 1 -wi 3 -i 10             -prof gc -rf json -rff $D/flush.json          > $D/flush.txt 2>&1
$J CellSerializationBench -p valueSize=16 -f 1 -wi 3 -i 8 -w 1s -r 1s -prof gc -rf json -rff $D/cell-serialization.json > $D/cell-serialization.txt 2>&1
