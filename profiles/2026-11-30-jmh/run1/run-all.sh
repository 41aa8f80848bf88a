#!/bin/sh
# Runs every Flushline JMH benchmark with the short settings recorded in README.md.
# From the repo root, after: mvn -q -B install -DskipTests && mvn -q -B -f jmh/pom.xml package
set -e
D=profiles/2026-11-30-jmh/run1
J="java -jar jmh/target/benchmarks.jar"
$J DeletionTimeBench      -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc -rf json -rff $D/deletion-time.json   > $D/deletion-time.txt 2>&1
$J MemtableWriteBench     -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc -rf json -rff $D/memtable-write.json  > $D/memtable-write.txt 2>&1
$J FlushBench             -f 1 -wi 3 -i 5              -prof gc -rf json -rff $D/flush.json           > $D/flush.txt 2>&1
$J CellSerializationBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc -rf json -rff $D/cell-serialization.json > $D/cell-serialization.txt 2>&1
