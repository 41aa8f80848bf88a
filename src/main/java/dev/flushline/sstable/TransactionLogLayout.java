package dev.flushline.sstable;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The transaction log format, as Cassandra 5.0.9 writes and reads it, so that a node (or
 * {@code sstableutil --cleanup}) finding one of our logs after a crash does the same cleanup we do.
 *
 * <pre>
 * file name:  oa_txn_&lt;operation&gt;_&lt;time-UUID&gt;.log        in the table directory
 *             (sstable version, "txn", operation as lower case without spaces, e.g. "compaction")
 *
 * one record per line, '\n'-terminated, UTF-8, appended and fsynced one at a time:
 *   TYPE:[PATH,UPDATE_TIME,NUM_FILES][CHECKSUM]
 *   ADD:[/real/path/of/tableDir/oa-7-big-,0,8][CRC]                an output: kept on commit
 *   ADD:[/real/path/of/tableDir/da-8-bti-,0,8][CRC]                an output of another version
 *   REMOVE:[/real/path/of/tableDir/oa-3-big-,1750000000123,8][CRC]  an input: kept on abort
 *   REMOVE:[/real/path/of/tableDir/nb-4-big-,1750000000456,8][CRC]  an input of another version
 *   COMMIT:[,0,0][2613697770]                                       the last line, if committed
 *   ABORT:[,0,0][737437348]                                         the last line, if aborted
 *
 * PATH         the canonical (symlink-free) absolute path of the sstable up to and including the
 *              '-' before the component name: {@code <version>-<generation>-<format>-}, each
 *              sstable's own (oa-N-big-, nb-N-big-, da-N-bti-), so one log may name several
 *              versions. A file of the sstable is any file of that directory whose name starts
 *              with it. Empty for COMMIT and ABORT.
 * UPDATE_TIME  REMOVE only (0 otherwise): the newest last-modified time in milliseconds of the
 *              sstable's files, Statistics.db excepted (Cassandra rewrites it in place).
 * NUM_FILES    ADD: the files the sstable will have; REMOVE: the files it had; 0 otherwise.
 * CHECKSUM     decimal CRC32 over PATH's UTF-8 bytes, TYPE's ASCII upper-case name, the low then the
 *              high 32 bits of UPDATE_TIME, then NUM_FILES, each int as 4 big-endian bytes.
 * </pre>
 *
 * <p>The version in the file name is not the version of the sstables the log names: Cassandra
 * names its logs after the version its node writes (a BTI node "bti-da_txn_...") and reads every
 * name its pattern matches without looking at that part. Ours are always "oa_", whatever their
 * records name, which Cassandra 5.0's pattern takes (any two characters before "_txn_").
 *
 * <p>Reading: a line parses with the pattern below (type case-insensitive) or it is unknown. A record
 * is valid if it parses and its checksum matches (and, for REMOVE, its files on disk still match:
 * see {@link TransactionLog}). Only the last line may be invalid: a crash mid-append leaves a prefix
 * of a line, which never parses (it lacks the closing ']'), and counts as not written. A line that
 * lacks only its '\n' is whole and counts as written, as Cassandra reads it. COMMIT and ABORT may
 * only be the last line.
 *
 * <p>Thread safety: stateless.
 */
final class TransactionLogLayout {
    private TransactionLogLayout() {}

    static final String FILE_EXTENSION = ".log";
    static final String TXN = "txn";
    static final char SEPARATOR = '_';
    /** Cassandra's own name pattern (an optional "format-" is for non-BIG formats). */
    static final Pattern FILE_NAME = Pattern.compile("^((?:[a-z]+-)?.{2}_)?txn_(.*)_(.*)\\.log$");
    /** Cassandra's own record pattern. */
    static final Pattern RECORD = Pattern.compile(
            "^(add|remove|commit|abort):\\[([^,]*),?([^,]*),?([^,]*)\\]\\[(\\d*)\\]$", Pattern.CASE_INSENSITIVE);
    static final char RECORD_END = '\n';
    /** The operation name of a compaction's log, as Cassandra names it (OperationType COMPACTION). */
    static final String COMPACTION = "compaction";
    /**
     * The NUM_FILES of an ADD: the files an sstable of {@code version} has with a bloom filter, as
     * Cassandra counts a new sstable's components (eight for every version we write: BIG's Index.db
     * and Summary.db or BTI's Partitions.db and Rows.db beside the six shared ones). Recovery never
     * checks an ADD's count.
     */
    static int sstableFiles(SSTableVersion version) {
        return Component.tocOrder(version.format(), true, true).length;
    }

    enum Type {
        ADD, REMOVE, COMMIT, ABORT;

        boolean hasFile() {
            return this == ADD || this == REMOVE;
        }

        boolean isFinal() {
            return this == COMMIT || this == ABORT;
        }
    }

    static String fileName(String operation, String timeUuid) {
        return SSTableVersion.OA.id() + SEPARATOR + TXN + SEPARATOR + operation + SEPARATOR + timeUuid + FILE_EXTENSION;
    }

    static boolean isLogFileName(String name) {
        return FILE_NAME.matcher(name).matches();
    }

    /**
     * The sstable path of a record: {@code <canonical table dir>/<file name prefix>}, the prefix an
     * sstable's own ({@code oa-<generation>-big-}, {@code da-<generation>-bti-}).
     */
    static String sstablePath(String canonicalTableDir, String fileNamePrefix) {
        return canonicalTableDir + '/' + fileNamePrefix;
    }

    /** The record line without its '\n'. UPDATE_TIME and NUM_FILES are stored as Cassandra stores them. */
    static String format(Type type, String path, long updateTime, int numFiles) {
        if (type.hasFile() == path.isEmpty()) throw new IllegalArgumentException(type + " record with path '" + path + "'");
        if (path.indexOf(',') >= 0 || path.indexOf('\n') >= 0 || path.indexOf('\r') >= 0 || path.indexOf(']') >= 0) {
            throw new IllegalArgumentException("a transaction log cannot name a path with ',', ']' or a line break: " + path);
        }
        long storedTime = type == Type.REMOVE ? updateTime : 0;
        int storedFiles = type.hasFile() ? numFiles : 0;
        return type.name() + ":[" + path + ',' + storedTime + ',' + storedFiles + "][" + checksum(type, path, storedTime, storedFiles) + ']';
    }

    static long checksum(Type type, String path, long updateTime, int numFiles) {
        CRC32 crc = new CRC32();
        crc.update(path.getBytes(StandardCharsets.UTF_8));
        crc.update(type.name().getBytes(StandardCharsets.US_ASCII));
        updateInt(crc, (int) updateTime);
        updateInt(crc, (int) (updateTime >>> 32));
        updateInt(crc, numFiles);
        return crc.getValue() & Long.MAX_VALUE;
    }

    private static void updateInt(CRC32 crc, int v) {
        crc.update((v >>> 24) & 0xFF);
        crc.update((v >>> 16) & 0xFF);
        crc.update((v >>> 8) & 0xFF);
        crc.update(v & 0xFF);
    }

    /** One line as read back. {@code type} is null for a line that does not parse. */
    record Record(int lineNumber, String line, Type type, String path, long updateTime, int numFiles, long checksum) {
        boolean parsed() {
            return type != null;
        }

        boolean checksumMatches() {
            return type != null && checksum == TransactionLogLayout.checksum(type, path, updateTime, numFiles);
        }

        /** Records are the same if all but the checksum match (Cassandra's duplicate rule). */
        boolean sameAs(Record o) {
            return type != null && type == o.type && path.equals(o.path) && updateTime == o.updateTime && numFiles == o.numFiles;
        }
    }

    static Record parse(int lineNumber, String line) {
        Matcher m = RECORD.matcher(line);
        if (!m.matches()) return new Record(lineNumber, line, null, "", 0, 0, 0);
        try {
            Type type = Type.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT));
            long updateTime = Long.parseLong(m.group(3));
            int numFiles = Integer.parseInt(m.group(4));
            long checksum = Long.parseLong(m.group(5));
            // As stored by the writer: only REMOVE keeps its time, only file records their path and count.
            return new Record(lineNumber, line, type, type.hasFile() ? m.group(2) : "",
                    type == Type.REMOVE ? updateTime : 0, type.hasFile() ? numFiles : 0, checksum);
        } catch (IllegalArgumentException e) {
            return new Record(lineNumber, line, null, "", 0, 0, 0);
        }
    }

    /** Truncates a millisecond time to whole seconds: file systems and JDKs differ below that. */
    static long truncateToSecond(long millis) {
        return millis - (millis % 1000);
    }
}
