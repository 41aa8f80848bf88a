#!/bin/sh
# Fourth pass: MemtableWriteBench and FlushBench again on a benchmarks.jar verified to contain
# exactly this work tree's main classes. Another work tree installed its own
# dev.flushline:flushline:0.1.0-SNAPSHOT into the shared ~/.m2 at ~04:40 and ~04:52, so the jar
# run3 used (built ~04:46) may have carried that tree's Memtable/RowSerializer/FlushWriter.
# From the repo root:
#   mvn -q -B -o install -DskipTests -DbuildDir=target-jmh && mvn -q -B -f jmh/pom.xml package
#   (then compare jmh/target/benchmarks.jar's dev/flushline/**/*.class with target-jmh/classes)
set -e
D=profiles/2026-11-30-jmh/run4
J="java -jar jmh/target/benchmarks.jar"
$J MemtableWriteBench -f 1 -wi 3 -i 8 -w 2s -r 2s -prof gc -rf json -rff $D/memtable-write.json > $D/memtable-write.txt 2>&1
$J FlushBench         -f 1 -wi 3 -i 8             -prof gc -rf json -rff $D/flush.json          > $D/flush.txt 2>&1
